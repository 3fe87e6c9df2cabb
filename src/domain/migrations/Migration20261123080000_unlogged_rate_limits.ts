import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit windows are counters that live for an hour at most: unlogged, a hit is not written to
 * the WAL nor waits for its flush (public verification counts one per anonymous call). A crash of
 * the database empties the table, which only forgets the current windows.
 */
export class Migration20261123080000_unlogged_rate_limits extends Migration {

  override name = 'Migration20261123080000_unlogged_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" set unlogged;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" set logged;`);
  }

}
