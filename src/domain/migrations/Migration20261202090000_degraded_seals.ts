import { Migration } from '@mikro-orm/migrations';

/**
 * A sealed PDF made while its timestamp authorities or revocation servers were down is degraded (B-B,
 * B-T or B-LT where B-LTA was asked for): what it lacks, how many attempts to complete it were made,
 * and when the next is due. The completion job takes those due; a completed PDF clears all three.
 */
export class Migration20261202090000_degraded_seals extends Migration {

  override name = 'Migration20261202090000_degraded_seals';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sealed_artifacts" add column "seal_missing" text[] null, add column "seal_completion_attempts" integer not null default 0, add column "seal_completion_next_at" timestamptz null;`);
    this.addSql(`create index "sealed_artifacts_seal_completion_index" on "sealed_artifacts" ("seal_completion_next_at") where "seal_completion_next_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "sealed_artifacts_seal_completion_index";`);
    this.addSql(`alter table "sealed_artifacts" drop column "seal_missing", drop column "seal_completion_attempts", drop column "seal_completion_next_at";`);
  }

}
