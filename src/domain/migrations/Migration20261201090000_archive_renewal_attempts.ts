import { Migration } from '@mikro-orm/migrations';

/**
 * When the archive renewal may try a sealed PDF again after an attempt that stored nothing (its
 * authorities failed, or their certificates would not extend the file): until then the PDF is not
 * due, so it is neither asked about at every hourly run nor keeps the PDFs behind it waiting.
 */
export class Migration20261201090000_archive_renewal_attempts extends Migration {

  override name = 'Migration20261201090000_archive_renewal_attempts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sealed_artifacts" add column "archive_next_attempt_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sealed_artifacts" drop column "archive_next_attempt_at";`);
  }

}
