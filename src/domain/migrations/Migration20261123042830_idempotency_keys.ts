import { Migration } from '@mikro-orm/migrations';

export class Migration20261123042830_idempotency_keys extends Migration {

  override name = 'Migration20261123042830_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_keys" ("id" uuid not null, "scope" text not null, "key_hash" text not null, "fingerprint" text not null, "status" text not null, "response" text null, "locked_until" timestamptz null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_scope_key_hash_unique" unique ("scope", "key_hash");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
