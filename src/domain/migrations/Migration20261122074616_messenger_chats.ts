import { Migration } from '@mikro-orm/migrations';

export class Migration20261122074616_messenger_chats extends Migration {

  override name = 'Migration20261122074616_messenger_chats';

  override up(): void | Promise<void> {
    this.addSql(`create table "messenger_chats" ("handle" text not null, "chat_id" text not null, "updated_at" timestamptz not null, primary key ("handle"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "messenger_chats" cascade;`);
  }

}
