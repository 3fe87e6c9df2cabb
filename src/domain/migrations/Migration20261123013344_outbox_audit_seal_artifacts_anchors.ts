import { Migration } from '@mikro-orm/migrations';

export class Migration20261123013344_outbox_audit_seal_artifacts_anchors extends Migration {

  override name = 'Migration20261123013344_outbox_audit_seal_artifacts_anchors';

  override up(): void | Promise<void> {
    this.addSql(`create table "anchor_batches" ("id" uuid not null, "root" text not null, "leaves" jsonb not null, "network" text not null, "chain_id" int not null, "registry_address" text not null, "raw_tx" text not null, "tx_hash" text not null, "nonce" int not null, "status" text not null default 'prepared', "attempts" int not null default 0, "next_attempt_at" timestamptz null, "block_number" bigint null, "block_time" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "confirmed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "anchor_batches" add constraint "anchor_batches_tx_hash_unique" unique ("tx_hash");`);
    this.addSql(`create index "anchor_batches_status_next_attempt_at_index" on "anchor_batches" ("status", "next_attempt_at");`);

    this.addSql(`create table "record_audit_entries" ("id" uuid not null, "record_id" uuid not null, "seq" int not null, "at" timestamptz not null, "actor_role" text not null, "move" text not null, "version" int not null, "details" jsonb not null, "prev_hash" text null, "entry_hash" text not null, primary key ("id"));`);
    this.addSql(`alter table "record_audit_entries" add constraint "record_audit_entries_record_id_seq_unique" unique ("record_id", "seq");`);

    this.addSql(`create table "card_tickets" ("token_hash" text not null, "record_id" uuid not null, "identity_id" uuid not null, "expires_at" timestamptz not null, "redeemed_at" timestamptz null, "created_at" timestamptz not null, primary key ("token_hash"));`);
    this.addSql(`create index "card_tickets_expires_at_index" on "card_tickets" ("expires_at");`);

    this.addSql(`create table "outbox_events" ("id" bigserial primary key, "type" text not null, "payload" jsonb not null, "record_id" uuid null, "created_at" timestamptz not null, "delivered_at" timestamptz null, "attempts" int not null default 0, "next_attempt_at" timestamptz null);`);
    this.addSql(`create index "outbox_events_undelivered" on "outbox_events" ("id") where "delivered_at" is null;`);

    this.addSql(`create table "record_seals" ("record_id" uuid not null, "metadata" text not null, "metadata_hash" text not null, "sealed_at" timestamptz not null, "anchor_status" text not null default 'pending', "anchor_retry_count" int not null default 0, "anchor_next_retry_at" timestamptz null, "anchor_batch_id" uuid null, "anchor_proof" jsonb null, primary key ("record_id"));`);
    this.addSql(`alter table "record_seals" add constraint "record_seals_metadata_hash_unique" unique ("metadata_hash");`);

    this.addSql(`create table "sealed_artifacts" ("id" uuid not null, "record_id" uuid not null, "kind" text not null, "content" bytea not null, "sha256" text not null, "byte_size" int not null, "content_type" text not null, "filename" text not null, "width" int null, "height" int null, "level" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "sealed_artifacts" add constraint "sealed_artifacts_record_id_kind_unique" unique ("record_id", "kind");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "anchor_batches" cascade;`);
    this.addSql(`drop table if exists "record_audit_entries" cascade;`);
    this.addSql(`drop table if exists "card_tickets" cascade;`);
    this.addSql(`drop table if exists "outbox_events" cascade;`);
    this.addSql(`drop table if exists "record_seals" cascade;`);
    this.addSql(`drop table if exists "sealed_artifacts" cascade;`);
  }

}
