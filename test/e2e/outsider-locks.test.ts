import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { statusWithin } from '../support/wait.js';

/**
 * A change locks its record's row; someone outside the record (signed in, holding its reference)
 * takes no lock at all: the read rule is part of the locking statement. Shown with the row held by
 * another transaction: the outsider's answer (404) does not wait for it, the initiator's change does.
 */
describe('Record locks and outsiders', () => {
  let t: TestApp;
  let initiator: string;
  let outsider: string;
  let record: { id: string; agr_reference: string };
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp();
    initiator = await t.signIn('lock-initiator@example.com');
    outsider = await t.signIn('lock-outsider@example.com');
    record = (await t.request('POST', '/api/v1/agreements', { token: initiator, body: agreementBody() })).body;
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });


  it('answers an outsider not found without waiting for a lock held on the record', async () => {
    await db.query('begin');
    await db.query('select id from records where id = $1 for update', [record.id]);
    try {
      // Signature ceremony (CeremonyService) and a lifecycle move (withLockedRecord), by id and by reference.
      expect(await statusWithin(t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: outsider }), 5000)).toBe(404);
      expect(await statusWithin(t.request('POST', `/api/v1/agreements/${record.agr_reference}/signature-execution`, { token: outsider }), 5000)).toBe(404);
      expect(await statusWithin(t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: outsider }), 5000)).toBe(404);
      expect(await statusWithin(t.request('POST', `/api/v1/agreements/${record.id}/cancel`, { token: outsider, body: {} }), 5000)).toBe(404);

      // The lock is real: the initiator's change waits for it, and goes through once it is released.
      const initiatorStart = t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: initiator });
      expect(await statusWithin(initiatorStart, 500)).toBe('waiting');
      await db.query('rollback');
      expect((await initiatorStart).status).toBe(200);
    } finally {
      await db.query('rollback').catch(() => undefined);
    }
  });

  it('still answers the people in the record as before', async () => {
    const read = await t.request('GET', `/api/v1/agreements/${record.agr_reference}`, { token: initiator });
    expect(read.status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${record.agr_reference}/signature-execution`, { token: initiator })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { token: outsider })).status).toBe(404);
  });
});
