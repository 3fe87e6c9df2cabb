import { Migration } from '@mikro-orm/migrations';

/**
 * When a rate-limit window last counted a hit: a previous window whose last hit is a whole window old
 * no longer weighs, so a refused client is never told to wait longer than the window.
 */
export class Migration20261129140000_rate_limit_last_hit extends Migration {

  override name = 'Migration20261129140000_rate_limit_last_hit';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" add column "last_hit_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" drop column "last_hit_at";`);
  }

}
