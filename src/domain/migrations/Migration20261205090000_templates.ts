import { Migration } from '@mikro-orm/migrations';

/** Templates (issue 48): record texts with placeholders owned by a person or a team; records remember the template and version they came from. */

export class Migration20261205090000_templates extends Migration {

  override name = 'Migration20261205090000_templates';

  override up(): void | Promise<void> {
    this.addSql(`create table "templates" ("id" uuid not null, "owner_id" uuid not null, "created_by_id" uuid not null, "name" text not null, "record_type" text not null, "title" text null, "body" text not null, "fields" jsonb not null, "parties" jsonb not null, "defaults" jsonb not null, "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "templates_owner_id_created_at_index" on "templates" ("owner_id", "created_at");`);

    this.addSql(`alter table "records" add "template_id" uuid null, add "template_version" int null;`);

    this.addSql(`alter table "templates" add constraint "templates_owner_id_foreign" foreign key ("owner_id") references "identities" ("id") on delete cascade;`);
    this.addSql(`alter table "templates" add constraint "templates_created_by_id_foreign" foreign key ("created_by_id") references "identities" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "templates" cascade;`);

    this.addSql(`alter table "records" drop column "template_id", drop column "template_version";`);
  }

}
