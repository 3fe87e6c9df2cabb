import { Migration } from '@mikro-orm/migrations';

/**
 * Secret inputs in the human's hands: an MCP session remembers whether its client takes URL-mode
 * elicitation, and each link it was given (single use, bound to the session and to what it is for: a
 * signature method of a record version for a caller, or a sign-in code; only the token's hash is kept).
 */
export class Migration20261129090000_mcp_secret_inputs extends Migration {

  override name = 'Migration20261129090000_mcp_secret_inputs';

  override up(): void | Promise<void> {
    this.addSql(`alter table "mcp_sessions" add column "secret_input" text not null default 'argument';`);
    this.addSql(`create table "mcp_secret_inputs" ("id" uuid not null, "token_hash" text not null, "session_id" uuid not null, "purpose" text not null, "principal" jsonb null, "record_id" uuid null, "record_version" int null, "method_type" text null, "verification_event_id" uuid null, "browser_hash" text null, "expires_at" timestamptz not null, "completed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "mcp_secret_inputs" add constraint "mcp_secret_inputs_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "mcp_secret_inputs_session_id_index" on "mcp_secret_inputs" ("session_id");`);
    this.addSql(`create index "mcp_secret_inputs_expires_at_index" on "mcp_secret_inputs" ("expires_at");`);
    this.addSql(`alter table "mcp_secret_inputs" add constraint "mcp_secret_inputs_session_id_foreign" foreign key ("session_id") references "mcp_sessions" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mcp_secret_inputs" cascade;`);
    this.addSql(`alter table "mcp_sessions" drop column "secret_input";`);
  }

}
