import { Migration } from '@mikro-orm/migrations';

/**
 * An Idempotency-Key's claim is marked `committed` in the transaction of the change it ran, with the
 * record it changed: a retry after a crash between the commit and the stored answer replays, and
 * never runs the change again.
 */
export class Migration20261126140000_idempotency_commits extends Migration {

  override name = 'Migration20261126140000_idempotency_commits';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_keys" add column "committed_record_id" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_keys" drop column "committed_record_id";`);
  }

}
