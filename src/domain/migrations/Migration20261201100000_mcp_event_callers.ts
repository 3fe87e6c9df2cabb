import { Migration } from '@mikro-orm/migrations';

/**
 * Whom an MCP answer stream was made for (the credential of the POST that started it): a resumption
 * (`GET` with `Last-Event-ID`) replays it to that caller only, not to another one presenting the same
 * session id. Events live for minutes; those stored before this default to anonymous callers.
 */
export class Migration20261201100000_mcp_event_callers extends Migration {

  override name = 'Migration20261201100000_mcp_event_callers';

  override up(): void | Promise<void> {
    this.addSql(`alter table "mcp_events" add column "caller" text not null default 'anonymous';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "mcp_events" drop column "caller";`);
  }

}
