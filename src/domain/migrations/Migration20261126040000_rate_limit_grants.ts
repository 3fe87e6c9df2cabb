import { Migration } from '@mikro-orm/migrations';

/** How many hits the last statement on a window counted: RateLimiter counts a batch of hits in one. */
export class Migration20261126040000_rate_limit_grants extends Migration {

  override name = 'Migration20261126040000_rate_limit_grants';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" add column "granted" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_windows" drop column "granted";`);
  }

}
