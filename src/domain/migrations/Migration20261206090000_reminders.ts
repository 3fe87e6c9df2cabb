import { Migration } from '@mikro-orm/migrations';

/**
 * Reminders: a record's own schedule (`reminder_every_days`, `reminder_before_expiry_days`; null: the
 * service defaults) and whether reminders go out at all (`reminders_enabled`, on for every existing
 * record); a participant's reminders so far (`reminder_count`, `last_reminded_at`, and
 * `expiry_reminded_at` for the one "before expiry" reminder), updated in the transaction that writes
 * the reminder mail, which is what makes each reminder go out once across instances.
 */
export class Migration20261206090000_reminders extends Migration {

  override name = 'Migration20261206090000_reminders';

  override up(): void | Promise<void> {
    this.addSql(`alter table "records" add "reminders_enabled" boolean not null default true, add "reminder_every_days" smallint null, add "reminder_before_expiry_days" smallint null;`);
    this.addSql(`alter table "participants" add "reminder_count" smallint not null default 0, add "last_reminded_at" timestamptz null, add "expiry_reminded_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "participants" drop column "reminder_count", drop column "last_reminded_at", drop column "expiry_reminded_at";`);
    this.addSql(`alter table "records" drop column "reminders_enabled", drop column "reminder_every_days", drop column "reminder_before_expiry_days";`);
  }

}
