import { Migration } from '@mikro-orm/migrations';

export class Migration20261123020911_hot_query_indexes extends Migration {

  override name = 'Migration20261123020911_hot_query_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "records_status_expires_at_index" on "records" ("status", "expires_at");`);

    this.addSql(`create index "signature_methods_pending_messenger_challenge_index" on "signature_methods" (("state"->>'challenge')) where "method_type" = 'messenger' and "status" = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "records_status_expires_at_index";`);

    this.addSql(`drop index "signature_methods_pending_messenger_challenge_index";`);
  }

}
