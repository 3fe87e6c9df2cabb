import 'reflect-metadata';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { createTestDatabase } from '../support/database.js';

describe('Migrations', () => {
  it('bring an empty database exactly to the entities, and run safely from two instances at once', async () => {
    const database = await createTestDatabase();
    const first = await openDatabase({ url: database.url, poolMax: 2 });
    const second = await openDatabase({ url: database.url, poolMax: 2 });
    try {
      await Promise.all([migrate(first, database.url), migrate(second, database.url)]);
      const drift = await first.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
      expect(drift.trim()).toBe('');
      expect(await first.migrator.getPending()).toEqual([]);
    } finally {
      await first.close();
      await second.close();
      await database.drop();
    }
  });
});
