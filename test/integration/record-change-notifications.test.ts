import pg from 'pg';
import { PUBSUB_CHANNEL, RECORDS_CHANGED } from '../../src/domain/shared/record-changes.js';
import { openServiceDatabase } from '../support/service-database.js';

/**
 * Every table a reader's record view is read from (record-read-model.ts), and the contact points that
 * decide who reads it: a committed write to any of them notifies RECORDS_CHANGED, so the listing and
 * public-answer caches of every instance drop theirs whatever path wrote.
 */
const VIEW_TABLES = [
  'records',
  'participants',
  'signature_executions',
  'signature_methods',
  'counter_proposals',
  'record_seals',
  'anchor_batches',
  'sealed_artifacts',
  'contact_points',
];

describe('Record change notifications', () => {
  let database: Awaited<ReturnType<typeof openServiceDatabase>>;
  let listener: pg.Client;
  let writer: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    database = await openServiceDatabase();
    listener = new pg.Client({ connectionString: database.url });
    writer = new pg.Client({ connectionString: database.url });
    await Promise.all([listener.connect(), writer.connect()]);
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query(`listen ${PUBSUB_CHANNEL}`);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([listener.end(), writer.end()]);
    await database.close();
  });

  /** What the listener has heard once every notification committed before now has arrived. */
  const settled = async () => {
    await listener.query('select 1');
    return heard.splice(0).map((payload) => (JSON.parse(payload) as { topic: string }).topic);
  };

  it.each(VIEW_TABLES)('a committed write to %s notifies once, a rolled-back one never', async (table) => {
    await settled();
    const [{ column }] = (await writer.query<{ column: string }>('select column_name as column from information_schema.columns where table_name = $1 order by ordinal_position limit 1', [table])).rows as [{ column: string }];
    const update = `update "${table}" set "${column}" = "${column}" where false`;
    // A statement-level trigger fires for a statement that touches no row as well.
    await writer.query('begin');
    await writer.query(update);
    await writer.query('rollback');
    expect(await settled()).toEqual([]);
    await writer.query('begin');
    await writer.query(update);
    await writer.query(`delete from "${table}" where false`);
    await writer.query('commit');
    // Two statements, one transaction: PostgreSQL folds identical notifications into one.
    expect(await settled()).toEqual([RECORDS_CHANGED]);
  });

  it('tables a view is not made from stay quiet (the outbox, the mail queue)', async () => {
    await settled();
    await writer.query('delete from outbox_events where false');
    await writer.query('delete from mail_outbox where false');
    expect(await settled()).toEqual([]);
  });
});
