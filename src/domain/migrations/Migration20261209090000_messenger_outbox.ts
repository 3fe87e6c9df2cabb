import { Migration } from '@mikro-orm/migrations';

/**
 * Messenger messages through an outbox, as mail goes: written in the transaction of the change that
 * causes them, sent by a worker with retries. It holds the participant's handle; the chat is looked
 * up at each attempt.
 */
export class Migration20261209090000_messenger_outbox extends Migration {

  override name = 'Migration20261209090000_messenger_outbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "messenger_outbox" ("id" uuid not null, "handle" text not null, "text" text null, "kind" text not null, "record_id" uuid not null, "participant_id" uuid not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "locked_until" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "sent_at" timestamptz null, "failed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "messenger_outbox_status_next_attempt_at_index" on "messenger_outbox" ("status", "next_attempt_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "messenger_outbox" cascade;`);
  }

}
