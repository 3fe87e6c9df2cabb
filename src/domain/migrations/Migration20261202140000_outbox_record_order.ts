import { Migration } from '@mikro-orm/migrations';

/**
 * The dispatcher claims an event only when no earlier event of its record is undelivered outside its
 * batch (strict order per record on every instance): this index answers that question.
 */
export class Migration20261202140000_outbox_record_order extends Migration {

  override name = 'Migration20261202140000_outbox_record_order';

  override up(): void | Promise<void> {
    this.addSql(`create index "outbox_events_record_undelivered" on "outbox_events" ("record_id", "id") where "delivered_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "outbox_events_record_undelivered";`);
  }

}
