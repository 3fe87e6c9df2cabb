import { Migration } from '@mikro-orm/migrations';

/**
 * An MCP session belongs to the endpoint and transport credential that initialized it: every later
 * request (POST, GET resumption, DELETE) must come with the same. Sessions opened before have none
 * (null) and keep working until they idle out.
 */
export class Migration20261202120000_mcp_session_owners extends Migration {

  override name = 'Migration20261202120000_mcp_session_owners';

  override up(): void | Promise<void> {
    this.addSql(`alter table "mcp_sessions" add column "owner" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "mcp_sessions" drop column "owner";`);
  }

}
