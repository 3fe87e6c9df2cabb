import { Migration } from '@mikro-orm/migrations';

/**
 * Signing order: a record's invitations go out together (`parallel`, what every existing record did)
 * or one party at a time (`sequential`); a participant's `invitation_sent_at` says when their
 * invitation was actually written (null: their turn has not come). Participants of records already
 * submitted were all invited at submission, which is their `invited_at`.
 */
export class Migration20261205100000_signing_order extends Migration {

  override name = 'Migration20261205100000_signing_order';

  override up(): void | Promise<void> {
    this.addSql(`alter table "records" add "signing_order" text not null default 'parallel';`);
    this.addSql(`alter table "participants" add "invitation_sent_at" timestamptz null;`);
    this.addSql(`update "participants" p set "invitation_sent_at" = p."invited_at" from "records" r where r."id" = p."record_id" and p."role" <> 'initiator' and r."status" not in ('draft', 'cancelled_draft');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "participants" drop column "invitation_sent_at";`);
    this.addSql(`alter table "records" drop column "signing_order";`);
  }

}
