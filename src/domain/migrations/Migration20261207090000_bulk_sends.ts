import { Migration } from '@mikro-orm/migrations';

/** Bulk sends (issue 48): many drafts from one template, made by a job one row per transaction; (bulk_send_id, row_number) is each row's key, so a row is one record at most. The counts are the rows' statuses, counted when read: no row of the job waits on another's counter. */

export class Migration20261207090000_bulk_sends extends Migration {

  override name = 'Migration20261207090000_bulk_sends';

  override up(): void | Promise<void> {
    this.addSql(`create table "bulk_sends" ("id" uuid not null, "owner_id" uuid not null, "team_id" uuid null, "template_id" uuid not null, "template_version" int not null, "template" jsonb not null, "initiator" jsonb not null, "via" text not null, "submit" boolean not null, "status" text not null default 'queued', "total" int not null, "created_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "bulk_sends_team_id_created_at_index" on "bulk_sends" ("team_id", "created_at");`);
    this.addSql(`create index "bulk_sends_owner_id_created_at_index" on "bulk_sends" ("owner_id", "created_at");`);

    this.addSql(`create table "bulk_send_rows" ("bulk_send_id" uuid not null, "row_number" int not null, "input" jsonb not null, "status" text not null, "record_id" uuid null, "issues" jsonb null, primary key ("bulk_send_id", "row_number"));`);
    this.addSql(`create index "bulk_send_rows_bulk_send_id_status_index" on "bulk_send_rows" ("bulk_send_id", "status");`);

    this.addSql(`alter table "bulk_sends" add constraint "bulk_sends_owner_id_foreign" foreign key ("owner_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "bulk_send_rows" add constraint "bulk_send_rows_bulk_send_id_foreign" foreign key ("bulk_send_id") references "bulk_sends" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "bulk_send_rows" drop constraint "bulk_send_rows_bulk_send_id_foreign";`);

    this.addSql(`drop table if exists "bulk_sends" cascade;`);
    this.addSql(`drop table if exists "bulk_send_rows" cascade;`);
  }

}
