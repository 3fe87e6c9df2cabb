import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C trace context (a traceparent) of the change that wrote an outbox event, when tracing is on:
 * the dispatcher's delivery, and the jobs it enqueues, continue that trace. Null otherwise.
 */
export class Migration20261127090000_outbox_trace_context extends Migration {

  override name = 'Migration20261127090000_outbox_trace_context';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" add column if not exists "traceparent" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" drop column if exists "traceparent";`);
  }

}
