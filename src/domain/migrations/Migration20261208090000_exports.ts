import { Migration } from '@mikro-orm/migrations';

/**
 * Bulk exports of sealed records (issue 48): the export (owner, team, filter, parts, progress, expiry)
 * and the records it holds, frozen in order when it is asked for. Its download links are card tickets
 * (`card_tickets.kind` `record_export`, whose `record_id` names the export).
 */
export class Migration20261208090000_exports extends Migration {

  override name = 'Migration20261208090000_exports';

  override up(): void | Promise<void> {
    this.addSql(`create table "exports" ("id" uuid not null, "owner_id" uuid not null, "team_id" uuid null, "filter_status" text null, "filter_from" timestamptz null, "filter_to" timestamptz null, "include" text[] not null, "status" text not null default 'queued', "total" int not null default 0, "processed" int not null default 0, "failure" text null, "created_at" timestamptz not null, "ready_at" timestamptz null, "expires_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "exports_team_id_created_at_index" on "exports" ("team_id", "created_at");`);
    this.addSql(`create index "exports_owner_id_created_at_index" on "exports" ("owner_id", "created_at");`);

    this.addSql(`create table "export_records" ("export_id" uuid not null, "position" int not null, "record_id" uuid not null, primary key ("export_id", "position"));`);

    this.addSql(`alter table "exports" add constraint "exports_owner_id_foreign" foreign key ("owner_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "export_records" add constraint "export_records_export_id_foreign" foreign key ("export_id") references "exports" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "export_records" drop constraint "export_records_export_id_foreign";`);

    this.addSql(`drop table if exists "exports" cascade;`);
    this.addSql(`drop table if exists "export_records" cascade;`);
  }

}
