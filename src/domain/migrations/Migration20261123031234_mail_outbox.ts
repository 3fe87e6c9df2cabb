import { Migration } from '@mikro-orm/migrations';

export class Migration20261123031234_mail_outbox extends Migration {

  override name = 'Migration20261123031234_mail_outbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "mail_outbox" ("id" uuid not null, "recipient" text not null, "subject" text not null, "text" text null, "html" text null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "locked_until" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "sent_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "mail_outbox_status_next_attempt_at_index" on "mail_outbox" ("status", "next_attempt_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mail_outbox" cascade;`);
  }

}
