import { Migration } from '@mikro-orm/migrations';

/**
 * MCP answer streams' events, kept a few minutes for resumption (`GET /mcp` with `Last-Event-ID`,
 * SEP-1699) on any instance; bound to their stored session and gone with it.
 */
export class Migration20261129120000_mcp_events extends Migration {

  override name = 'Migration20261129120000_mcp_events';

  override up(): void | Promise<void> {
    this.addSql(`create table "mcp_events" ("seq" bigserial primary key, "session_id" uuid not null, "stream" uuid not null, "message" text null, "ends_stream" boolean not null default false, "expires_at" timestamptz not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "mcp_events_expires_at_index" on "mcp_events" ("expires_at");`);
    this.addSql(`create index "mcp_events_session_id_stream_seq_index" on "mcp_events" ("session_id", "stream", "seq");`);
    this.addSql(`alter table "mcp_events" add constraint "mcp_events_session_id_foreign" foreign key ("session_id") references "mcp_sessions" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mcp_events" cascade;`);
  }

}
