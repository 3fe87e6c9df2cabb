import { Migration } from '@mikro-orm/migrations';

export class Migration20261123044135_oauth_storage extends Migration {

  override name = 'Migration20261123044135_oauth_storage';

  override up(): void | Promise<void> {
    this.addSql(`create table "connectors" ("id" uuid not null, "grant_id" text not null, "identity_id" uuid not null, "client_id" text not null, "client_name" text null, "redirect_origin" text not null, "scopes" text[] not null, "expires_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "connectors" add constraint "connectors_grant_id_unique" unique ("grant_id");`);
    this.addSql(`create index "connectors_identity_id_revoked_at_index" on "connectors" ("identity_id", "revoked_at");`);

    this.addSql(`create table "oauth_payloads" ("id" uuid not null, "model" text not null, "id_hash" text not null, "payload" jsonb not null, "grant_id" text null, "uid" text null, "user_code" text null, "expires_at" timestamptz null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "oauth_payloads_grant_id_index" on "oauth_payloads" ("grant_id");`);
    this.addSql(`create index "oauth_payloads_uid_index" on "oauth_payloads" ("uid");`);
    this.addSql(`create index "oauth_payloads_expires_at_index" on "oauth_payloads" ("expires_at");`);
    this.addSql(`alter table "oauth_payloads" add constraint "oauth_payloads_model_id_hash_unique" unique ("model", "id_hash");`);

    this.addSql(`create table "oauth_server_keys" ("name" text not null, "value" jsonb not null, "created_at" timestamptz not null, primary key ("name"));`);

    this.addSql(`alter table "connectors" add constraint "connectors_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "connectors" cascade;`);
    this.addSql(`drop table if exists "oauth_payloads" cascade;`);
    this.addSql(`drop table if exists "oauth_server_keys" cascade;`);
  }

}
