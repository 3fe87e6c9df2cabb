import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071239_initial extends Migration {

  override name = 'Migration20261122071239_initial';

  override up(): void | Promise<void> {
    this.addSql(`create type "record_type" as enum ('agreement', 'declaration', 'witnessed_agreement', 'notarization');`);
    this.addSql(`create type "record_status" as enum ('draft', 'pending_confirmation', 'counter_under_review', 'sealed', 'superseded', 'cancelled_draft', 'expired', 'declined', 'rescinded');`);
    this.addSql(`create type "participant_role" as enum ('initiator', 'party', 'witness');`);
    this.addSql(`create table "identities" ("id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "contact_points" ("id" uuid not null, "identity_id" uuid not null, "type" text not null, "value" text not null, "value_hash" text not null, "first_verified_at" timestamptz null, "last_verified_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "contact_points_identity_id_index" on "contact_points" ("identity_id");`);
    this.addSql(`alter table "contact_points" add constraint "contact_points_type_value_unique" unique ("type", "value");`);

    this.addSql(`create table "api_keys" ("id" uuid not null, "identity_id" uuid not null, "key_prefix" text not null, "key_hash" text not null, "name" text null, "scopes" text[] not null, "last_used_at" timestamptz null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "api_keys_identity_id_index" on "api_keys" ("identity_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "access_tokens" ("id" uuid not null, "token_hash" text not null, "identity_id" uuid not null, "contact_point_id" uuid not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "access_tokens" add constraint "access_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "rate_limit_windows" ("key" text not null, "window_start" timestamptz not null, "hits" int not null default 0, primary key ("key", "window_start"));`);

    this.addSql(`create table "records" ("id" uuid not null, "reference" text not null, "type" "record_type" not null, "status" "record_status" not null default 'draft', "title" text null, "body" text not null, "body_hash" text not null, "summary" text null, "language" text null, "jurisdiction" text null, "initiated_via" text not null, "current_version" int not null default 1, "required_signature_method_count" smallint not null default 1, "lapse_days" smallint null, "on_chain_full_text" boolean not null, "on_chain_include_verified_parties" boolean not null, "metadata" jsonb not null, "notarization" jsonb null, "initiator_identity_id" uuid not null, "supersedes_record_id" uuid null, "superseded_by_record_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "expires_at" timestamptz null, "sealed_at" timestamptz null, "row_version" int not null default 1, primary key ("id"));`);
    this.addSql(`alter table "records" add constraint "records_reference_unique" unique ("reference");`);
    this.addSql(`create index "records_initiator_identity_id_created_at_index" on "records" ("initiator_identity_id", "created_at");`);

    this.addSql(`create table "participants" ("id" uuid not null, "record_id" uuid not null, "role" "participant_role" not null, "position" smallint not null, "display_name" text null, "contact_point_type" text not null, "contact_point_value" text null, "identity_id" uuid null, "invited_at" timestamptz not null, "confirmed_at" timestamptz null, "confirmed_version" int null, "declined_at" timestamptz null, "declined_reason" text null, "waived_at" timestamptz null, "removed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "participants_record_id_index" on "participants" ("record_id");`);
    this.addSql(`create index "participants_identity_id_index" on "participants" ("identity_id");`);
    this.addSql(`create index "participants_contact_point_type_contact_point_value_index" on "participants" ("contact_point_type", "contact_point_value");`);

    this.addSql(`create table "verification_events" ("id" uuid not null, "purpose" text not null, "channel" text not null default 'email', "destination" text not null, "code_hash" text not null, "attempts" int not null default 0, "max_attempts" int not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "verification_events_channel_destination_created_at_index" on "verification_events" ("channel", "destination", "created_at");`);

    this.addSql(`alter table "contact_points" add constraint "contact_points_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "access_tokens" add constraint "access_tokens_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);
    this.addSql(`alter table "access_tokens" add constraint "access_tokens_contact_point_id_foreign" foreign key ("contact_point_id") references "contact_points" ("id") on delete cascade;`);

    this.addSql(`alter table "records" add constraint "records_initiator_identity_id_foreign" foreign key ("initiator_identity_id") references "identities" ("id");`);

    this.addSql(`alter table "participants" add constraint "participants_record_id_foreign" foreign key ("record_id") references "records" ("id") on delete cascade;`);
    this.addSql(`alter table "participants" add constraint "participants_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "contact_points" drop constraint "contact_points_identity_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_identity_id_foreign";`);
    this.addSql(`alter table "access_tokens" drop constraint "access_tokens_identity_id_foreign";`);
    this.addSql(`alter table "records" drop constraint "records_initiator_identity_id_foreign";`);
    this.addSql(`alter table "participants" drop constraint "participants_identity_id_foreign";`);
    this.addSql(`alter table "access_tokens" drop constraint "access_tokens_contact_point_id_foreign";`);
    this.addSql(`alter table "participants" drop constraint "participants_record_id_foreign";`);

    this.addSql(`drop table if exists "identities" cascade;`);
    this.addSql(`drop table if exists "contact_points" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
    this.addSql(`drop table if exists "access_tokens" cascade;`);
    this.addSql(`drop table if exists "rate_limit_windows" cascade;`);
    this.addSql(`drop table if exists "records" cascade;`);
    this.addSql(`drop table if exists "participants" cascade;`);
    this.addSql(`drop table if exists "verification_events" cascade;`);

    this.addSql(`drop type "record_type";`);
    this.addSql(`drop type "record_status";`);
    this.addSql(`drop type "participant_role";`);
  }

}
