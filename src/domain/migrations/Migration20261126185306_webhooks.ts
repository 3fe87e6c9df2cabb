import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints (the signing secret sealed under the server secret) and their deliveries: the
 * webhooks' own outbox, written from the domain outbox and sent by every instance's sender.
 */
export class Migration20261126185306_webhooks extends Migration {

  override name = 'Migration20261126185306_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_endpoints" ("id" uuid not null, "identity_id" uuid not null, "url" text not null, "events" text[] not null, "description" text null, "secret" text not null, "previous_secret" text null, "previous_secret_expires_at" timestamptz null, "enabled" boolean not null default true, "disabled_reason" text null, "disabled_at" timestamptz null, "failing_since" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_identity_id_index" on "webhook_endpoints" ("identity_id");`);

    this.addSql(`create table "webhook_deliveries" ("id" uuid not null, "seq" bigserial, "endpoint_id" uuid not null, "event_id" text not null, "type" text not null, "record_id" uuid null, "body" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz null, "locked_until" timestamptz null, "last_status_code" int null, "last_error" text null, "last_attempt_at" timestamptz null, "delivered_at" timestamptz null, "failed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_seq_unique" unique ("seq");`);
    this.addSql(`create index "webhook_deliveries_endpoint_id_seq_index" on "webhook_deliveries" ("endpoint_id", "seq");`);
    this.addSql(`create index "webhook_deliveries_pending" on "webhook_deliveries" ("seq") where "status" = 'pending';`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
  }

}
