import { Migration } from '@mikro-orm/migrations';

export class Migration20261122073521_counter_proposals extends Migration {

  override name = 'Migration20261122073521_counter_proposals';

  override up(): void | Promise<void> {
    this.addSql(`create table "counter_proposals" ("id" uuid not null, "record_id" uuid not null, "proposed_by_id" uuid not null, "proposed_by_contact_point_id" uuid not null, "record_version" int not null, "status" text not null default 'pending', "raw_input" text null, "assisted_text" text null, "proposed_body" text not null, "diff_summary" text null, "resolved_body" text null, "created_at" timestamptz not null, "resolved_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "counter_proposals_record_id_status_index" on "counter_proposals" ("record_id", "status");`);

    this.addSql(`alter table "counter_proposals" add constraint "counter_proposals_record_id_foreign" foreign key ("record_id") references "records" ("id") on delete cascade;`);
    this.addSql(`alter table "counter_proposals" add constraint "counter_proposals_proposed_by_id_foreign" foreign key ("proposed_by_id") references "participants" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "counter_proposals" cascade;`);
  }

}
