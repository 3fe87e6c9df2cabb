import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { lockRecordRow } from '../../src/domain/records/record-access.js';
import { createTestDatabase } from '../support/database.js';

/** A transaction locks a record's row once; the next transaction locks it again. */
describe('Record row locks', () => {
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;
  const sent: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 2, debugLog: (message) => void sent.push(message) });
    await migrate(orm, db.url);
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });

  const lockStatements = () => sent.filter((line) => /from "records".* for update/.test(line)).length;

  it('sends the lock once per transaction, and again in the next one', async () => {
    const recordId = randomUUID();
    const before = lockStatements();
    await orm.em.fork().transactional(async (em) => {
      await lockRecordRow(em, recordId);
      await lockRecordRow(em, recordId);
    });
    expect(lockStatements() - before).toBe(1);
    await orm.em.fork().transactional(async (em) => {
      await lockRecordRow(em, recordId);
    });
    expect(lockStatements() - before).toBe(2);
  });
});
