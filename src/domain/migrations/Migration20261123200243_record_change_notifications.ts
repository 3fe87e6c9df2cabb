import { Migration } from '@mikro-orm/migrations';

/**
 * Every committed write to a table a record view is made from notifies every instance (topic
 * RECORDS_CHANGED on the PubSub's channel): see notifyRecordsChanged in domain/shared/record-changes.ts.
 */
export class Migration20261123200243_record_change_notifications extends Migration {

  override name = 'Migration20261123200243_record_change_notifications';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "anchor_batches_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "anchor_batches" for each STATEMENT execute function "anchor_batches_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "contact_points_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "contact_points" for each STATEMENT execute function "contact_points_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "record_seals_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "record_seals" for each STATEMENT execute function "record_seals_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "sealed_artifacts_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "sealed_artifacts" for each STATEMENT execute function "sealed_artifacts_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "records_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "records" for each STATEMENT execute function "records_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "participants_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "participants" for each STATEMENT execute function "participants_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "signature_executions_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "signature_executions" for each STATEMENT execute function "signature_executions_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "signature_methods_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "signature_methods" for each STATEMENT execute function "signature_methods_notify_records_changed_fn"();`);

    this.addSql(`create or replace function "counter_proposals_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "counter_proposals" for each STATEMENT execute function "counter_proposals_notify_records_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "notify_records_changed" on "anchor_batches";`);
    this.addSql(`drop function if exists "anchor_batches_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "contact_points";`);
    this.addSql(`drop function if exists "contact_points_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "counter_proposals";`);
    this.addSql(`drop function if exists "counter_proposals_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "participants";`);
    this.addSql(`drop function if exists "participants_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "record_seals";`);
    this.addSql(`drop function if exists "record_seals_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "records";`);
    this.addSql(`drop function if exists "records_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "sealed_artifacts";`);
    this.addSql(`drop function if exists "sealed_artifacts_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "signature_executions";`);
    this.addSql(`drop function if exists "signature_executions_notify_records_changed_fn"();`);

    this.addSql(`drop trigger if exists "notify_records_changed" on "signature_methods";`);
    this.addSql(`drop function if exists "signature_methods_notify_records_changed_fn"();`);
  }

}
