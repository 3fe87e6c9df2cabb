import { Migration } from '@mikro-orm/migrations';

/**
 * Mail that someone waits for goes first, and never late: each message's urgency (0 waiting, 1
 * bulk), the instant after which it is not sent, the key a newer message replaces it by, and the
 * client address that queued it (unsent mail is capped per client and per recipient).
 */
export class Migration20261126130000_mail_urgency extends Migration {

  override name = 'Migration20261126130000_mail_urgency';

  override up(): void | Promise<void> {
    this.addSql(`alter table "mail_outbox" add column "urgency" smallint not null default 1, add column "not_after" timestamptz null, add column "replaces_key" text null, add column "client_address" text null;`);
    this.addSql(`create index "mail_outbox_due_index" on "mail_outbox" ("urgency", "created_at") where "status" = 'pending';`);
    this.addSql(`create index "mail_outbox_unsent_recipient_index" on "mail_outbox" ("recipient") where "status" in ('pending', 'sending');`);
    this.addSql(`create index "mail_outbox_unsent_client_index" on "mail_outbox" ("client_address") where "status" in ('pending', 'sending') and "client_address" is not null;`);
    this.addSql(`create index "mail_outbox_replaces_index" on "mail_outbox" ("replaces_key", "created_at") where "replaces_key" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "mail_outbox_due_index"; drop index "mail_outbox_unsent_recipient_index"; drop index "mail_outbox_unsent_client_index"; drop index "mail_outbox_replaces_index";`);
    this.addSql(`alter table "mail_outbox" drop column "urgency", drop column "not_after", drop column "replaces_key", drop column "client_address";`);
  }

}
