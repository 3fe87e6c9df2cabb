import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { createTestDatabase } from './database.js';

/** A migrated database of its own and the ORM on it, for service-level tests. */
export async function openServiceDatabase(): Promise<{ orm: MikroORM; url: string; close: () => Promise<void> }> {
  const database = await createTestDatabase();
  const orm = await openDatabase({ url: database.url, poolMax: 4 });
  await migrate(orm, database.url);
  return {
    orm,
    url: database.url,
    close: async () => {
      await orm.close();
      await database.drop();
    },
  };
}
