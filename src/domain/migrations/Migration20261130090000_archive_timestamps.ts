import { Migration } from '@mikro-orm/migrations';

/**
 * Sealed PDFs that outlive their certificates: every version of a record's sealed PDF is kept by hash
 * (an archive timestamp renewal adds a revision, so the bytes and their hash change while every
 * earlier version keeps verifying), the newest timestamp's certificate expiry says when a PDF is due
 * for its next archive timestamp, and the seal certificate that signed it is named.
 */
export class Migration20261130090000_archive_timestamps extends Migration {

  override name = 'Migration20261130090000_archive_timestamps';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sealed_artifacts" add column "archive_expires_at" timestamptz null, add column "seal_certificate_sha256" text null, add column "seal_certificate_subject" text null;`);
    this.addSql(`create index "sealed_artifacts_archive_due_index" on "sealed_artifacts" ("archive_expires_at") where "archive_expires_at" is not null;`);
    this.addSql(`create table "sealed_document_versions" (
      "record_id" uuid not null,
      "version" int not null,
      "sha256" text not null,
      "byte_size" int not null,
      "level" text null,
      "cause" text not null,
      "created_at" timestamptz not null,
      constraint "sealed_document_versions_pkey" primary key ("record_id", "version")
    );`);
    this.addSql(`create index "sealed_document_versions_hash_index" on "sealed_document_versions" ("record_id", "sha256");`);
    this.addSql(`insert into "sealed_document_versions" ("record_id", "version", "sha256", "byte_size", "level", "cause", "created_at")
      select "record_id", 1, "sha256", "byte_size", "level", 'sealed', "created_at" from "sealed_artifacts" where "kind" = 'sealed_pdf';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sealed_document_versions" cascade;`);
    this.addSql(`drop index if exists "sealed_artifacts_archive_due_index";`);
    this.addSql(`alter table "sealed_artifacts" drop column "archive_expires_at", drop column "seal_certificate_sha256", drop column "seal_certificate_subject";`);
  }

}
