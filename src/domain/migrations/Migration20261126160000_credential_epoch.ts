import { Migration } from '@mikro-orm/migrations';

/**
 * The credential epoch: advanced after every committed revocation or identity merge, before its
 * answer leaves; a reused principal is only trusted while the epoch read after its request began
 * is the one it was resolved under (see CredentialEpoch in domain/identity/credential-epoch.ts).
 */
export class Migration20261126160000_credential_epoch extends Migration {

  override name = 'Migration20261126160000_credential_epoch';

  override up(): void | Promise<void> {
    this.addSql(`create sequence if not exists "credential_epoch" as bigint minvalue 1 start 1;`);
    // Called once, so that every later advance changes last_value (the first nextval would not).
    this.addSql(`select nextval('credential_epoch');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop sequence if exists "credential_epoch";`);
  }

}
