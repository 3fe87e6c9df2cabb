import { Migration } from '@mikro-orm/migrations';

/**
 * Teams (issue 47): organizations whose id is also an identity (their keys and webhooks belong to it),
 * their members and roles, single-use mailed invitations, a hash-chained activity log, and the team
 * that owns a record. team_members notifies every instance on each write: cached record views drop.
 */

export class Migration20261204090000_teams extends Migration {

  override name = 'Migration20261204090000_teams';

  override up(): void | Promise<void> {
    this.addSql(`create table "teams" ("id" uuid not null, "name" text not null, "created_by_id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "team_activity_entries" ("id" uuid not null, "team_id" uuid not null, "seq" int not null, "at" timestamptz not null, "actor_identity_id" uuid null, "action" text not null, "details" jsonb not null, "prev_hash" text null, "entry_hash" text not null, primary key ("id"));`);
    this.addSql(`alter table "team_activity_entries" add constraint "team_activity_entries_team_id_seq_unique" unique ("team_id", "seq");`);

    this.addSql(`create table "team_invitations" ("id" uuid not null, "team_id" uuid not null, "email" text not null, "role" text not null, "token_hash" text not null, "invited_by_id" uuid not null, "status" text not null default 'pending', "expires_at" timestamptz not null, "settled_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "team_invitations" add constraint "team_invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "team_invitations_team_id_created_at_index" on "team_invitations" ("team_id", "created_at");`);

    this.addSql(`create table "team_members" ("id" uuid not null, "team_id" uuid not null, "identity_id" uuid not null, "role" text not null, "email" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "team_members_identity_id_index" on "team_members" ("identity_id");`);
    this.addSql(`alter table "team_members" add constraint "team_members_team_id_identity_id_unique" unique ("team_id", "identity_id");`);

    this.addSql(`alter table "records" add "team_id" uuid null;`);
    this.addSql(`alter table "records" add constraint "records_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete restrict;`);
    this.addSql(`create index "records_team_id_created_at_index" on "records" ("team_id", "created_at");`);

    this.addSql(`alter table "teams" add constraint "teams_created_by_id_foreign" foreign key ("created_by_id") references "identities" ("id");`);

    this.addSql(`alter table "team_activity_entries" add constraint "team_activity_entries_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete cascade;`);

    this.addSql(`alter table "team_invitations" add constraint "team_invitations_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete cascade;`);
    this.addSql(`alter table "team_invitations" add constraint "team_invitations_invited_by_id_foreign" foreign key ("invited_by_id") references "identities" ("id");`);

    this.addSql(`alter table "team_members" add constraint "team_members_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete cascade;`);
    this.addSql(`alter table "team_members" add constraint "team_members_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);
    this.addSql(`create or replace function "team_members_notify_records_changed_fn"() returns trigger as $$ begin perform pg_notify('rss_graph_events', '{"topic":"RECORDS_CHANGED","payload":null}'); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "notify_records_changed" AFTER INSERT OR UPDATE OR DELETE on "team_members" for each STATEMENT execute function "team_members_notify_records_changed_fn"();`);

    this.addSql(`alter table "connectors" add "teams" text[] not null default '{}', add "teams_chosen_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "connectors" drop column "teams", drop column "teams_chosen_at";`);
    this.addSql(`alter table "records" drop constraint "records_team_id_foreign";`);
    this.addSql(`alter table "team_activity_entries" drop constraint "team_activity_entries_team_id_foreign";`);
    this.addSql(`alter table "team_invitations" drop constraint "team_invitations_team_id_foreign";`);
    this.addSql(`alter table "team_members" drop constraint "team_members_team_id_foreign";`);

    this.addSql(`drop table if exists "teams" cascade;`);
    this.addSql(`drop table if exists "team_activity_entries" cascade;`);
    this.addSql(`drop table if exists "team_invitations" cascade;`);
    this.addSql(`drop trigger if exists "notify_records_changed" on "team_members";`);
    this.addSql(`drop function if exists "team_members_notify_records_changed_fn"();`);
    this.addSql(`drop table if exists "team_members" cascade;`);

    this.addSql(`drop index "records_team_id_created_at_index";`);
    this.addSql(`alter table "records" drop column "team_id";`);
  }

}
