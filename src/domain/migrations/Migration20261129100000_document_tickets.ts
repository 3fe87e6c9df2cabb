import { Migration } from '@mikro-orm/migrations';

/** Single-use tickets for the sealed PDF beside the share card's: one table, the artifact named by `kind`. */
export class Migration20261129100000_document_tickets extends Migration {

  override name = 'Migration20261129100000_document_tickets';

  override up(): void | Promise<void> {
    this.addSql(`alter table "card_tickets" add column "kind" text not null default 'share_card';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "card_tickets" drop column "kind";`);
  }

}
