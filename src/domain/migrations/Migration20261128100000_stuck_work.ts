import { Migration } from '@mikro-orm/migrations';

/**
 * Stuck work: the last warning logged about each stuck item (so that warnings repeat ever more rarely,
 * whichever instance runs the check), and when a mail message failed for good.
 */
export class Migration20261128100000_stuck_work extends Migration {

  override name = 'Migration20261128100000_stuck_work';

  override up(): void | Promise<void> {
    this.addSql(`create table "stuck_work_warnings" ("kind" text not null, "item_id" uuid not null, "first_warned_at" timestamptz not null, "last_warned_at" timestamptz not null, "warnings" int not null, primary key ("kind", "item_id"));`);
    this.addSql(`alter table "mail_outbox" add column "failed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "stuck_work_warnings" cascade;`);
    this.addSql(`alter table "mail_outbox" drop column "failed_at";`);
  }

}
