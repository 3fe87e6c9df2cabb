import { Migration } from '@mikro-orm/migrations';

export class Migration20261123043029_mcp_sessions_grants_confirmations extends Migration {

  override name = 'Migration20261123043029_mcp_sessions_grants_confirmations';

  override up(): void | Promise<void> {
    this.addSql(`create table "mcp_confirmations" ("id" uuid not null, "token_hash" text not null, "principal" text not null, "action" text not null, "scope" text not null, "record" uuid not null, "target" text not null, "arguments_hash" text not null, "record_version" int not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "mcp_confirmations" add constraint "mcp_confirmations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "mcp_confirmations_expires_at_index" on "mcp_confirmations" ("expires_at");`);

    this.addSql(`create table "mcp_sessions" ("id" uuid not null, "session_hash" text not null, "protocol_version" text not null, "client_name" text null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "closed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "mcp_sessions" add constraint "mcp_sessions_session_hash_unique" unique ("session_hash");`);
    this.addSql(`create index "mcp_sessions_expires_at_index" on "mcp_sessions" ("expires_at");`);

    this.addSql(`create table "mcp_grants" ("id" uuid not null, "session_id" uuid not null, "identity" uuid not null, "scopes" text[] not null, "token_hash" text null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "mcp_grants_session_id_index" on "mcp_grants" ("session_id");`);
    this.addSql(`alter table "mcp_grants" add constraint "mcp_grants_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "mcp_grants" add constraint "mcp_grants_session_id_foreign" foreign key ("session_id") references "mcp_sessions" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "mcp_grants" drop constraint "mcp_grants_session_id_foreign";`);

    this.addSql(`drop table if exists "mcp_confirmations" cascade;`);
    this.addSql(`drop table if exists "mcp_sessions" cascade;`);
    this.addSql(`drop table if exists "mcp_grants" cascade;`);
  }

}
