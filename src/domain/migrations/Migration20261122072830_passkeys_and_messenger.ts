import { Migration } from '@mikro-orm/migrations';

export class Migration20261122072830_passkeys_and_messenger extends Migration {

  override name = 'Migration20261122072830_passkeys_and_messenger';

  override up(): void | Promise<void> {
    this.addSql(`create table "messenger_updates" ("update_id" text not null, "received_at" timestamptz not null, primary key ("update_id"));`);

    this.addSql(`create table "passkey_credentials" ("id" uuid not null, "identity_id" uuid not null, "credential_id" text not null, "public_key" text not null, "counter" bigint not null default '0', "transports" text[] not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "passkey_credentials_identity_id_index" on "passkey_credentials" ("identity_id");`);
    this.addSql(`alter table "passkey_credentials" add constraint "passkey_credentials_credential_id_unique" unique ("credential_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "messenger_updates" cascade;`);
    this.addSql(`drop table if exists "passkey_credentials" cascade;`);
  }

}
