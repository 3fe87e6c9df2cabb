import { Migration } from '@mikro-orm/migrations';

/**
 * A subscription resumed from a cursor replays its record's events written after it: this index reads
 * a record's events in order, delivered or not.
 */
export class Migration20261203090000_outbox_record_replay extends Migration {

  override name = 'Migration20261203090000_outbox_record_replay';

  override up(): void | Promise<void> {
    this.addSql(`create index "outbox_events_record_id" on "outbox_events" ("record_id", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "outbox_events_record_id";`);
  }

}
