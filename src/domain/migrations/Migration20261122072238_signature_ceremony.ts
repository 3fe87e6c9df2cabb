import { Migration } from '@mikro-orm/migrations';

export class Migration20261122072238_signature_ceremony extends Migration {

  override name = 'Migration20261122072238_signature_ceremony';

  override up(): void | Promise<void> {
    this.addSql(`create type "signature_execution_status" as enum ('in_progress', 'finalized', 'superseded');`);
    this.addSql(`create table "signature_executions" ("id" uuid not null, "record_id" uuid not null, "participant_id" uuid not null, "record_version" int not null, "status" "signature_execution_status" not null default 'in_progress', "required_method_count" smallint not null, "evidence" jsonb null, "identicon" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "finalized_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "signature_executions_record_id_index" on "signature_executions" ("record_id");`);
    this.addSql(`alter table "signature_executions" add constraint "signature_executions_participant_id_record_version_unique" unique ("participant_id", "record_version");`);

    this.addSql(`create table "signature_methods" ("id" uuid not null, "execution_id" uuid not null, "method_type" text not null, "status" text not null default 'pending', "step" jsonb null, "state" jsonb not null, "evidence_hash" text null, "failure_reason" text null, "satisfied_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "signature_methods" add constraint "signature_methods_execution_id_method_type_unique" unique ("execution_id", "method_type");`);

    this.addSql(`alter table "signature_executions" add constraint "signature_executions_record_id_foreign" foreign key ("record_id") references "records" ("id") on delete cascade;`);
    this.addSql(`alter table "signature_executions" add constraint "signature_executions_participant_id_foreign" foreign key ("participant_id") references "participants" ("id") on delete cascade;`);

    this.addSql(`alter table "signature_methods" add constraint "signature_methods_execution_id_foreign" foreign key ("execution_id") references "signature_executions" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "signature_methods" drop constraint "signature_methods_execution_id_foreign";`);

    this.addSql(`drop table if exists "signature_executions" cascade;`);
    this.addSql(`drop table if exists "signature_methods" cascade;`);

    this.addSql(`drop type "signature_execution_status";`);
  }

}
