import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { OpenAPIBackend, type OpenAPIRouter } from 'openapi-backend';
import pg from 'pg';
import { openDatabase } from '../../src/infrastructure/database.js';
import { preparedQuery } from '../../src/domain/shared/sql.js';
import { freezeOperations } from '../../src/facade-rest/openapi-backend-patch.js';
import { createTestDatabase } from '../support/database.js';

/**
 * Each patch of a library's behaviour (src/infrastructure/library-patches.ts, facade-rest/openapi-backend-patch.ts)
 * still does what it is for, with the library versions installed: a version that changes underneath
 * one fails here, not in production.
 */
describe('Patches of libraries, against the installed versions', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: MikroORM;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: a connection that is never given back shows at once.
    orm = await openDatabase({ url: database.url, poolMax: 1, acquireTimeoutMs: 3_000 });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await orm.close();
    await database.drop();
  });

  it('pg: a hot statement inside a transaction runs as a named prepared statement on its connection', async () => {
    const names = await orm.em.fork().transactional(async (em) => {
      expect(await preparedQuery<{ n: number }>(em, 'select ?::int + 1 as n', [41])).toEqual([{ n: 42 }]);
      return (await em.execute<{ name: string }[]>('select name from pg_prepared_statements')).map((row) => row.name);
    });
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^q[0-9a-f]{24}$/)]));
  });

  it('Kysely: a transaction whose connection the server dropped gives the connection back to the pool', async () => {
    const failed = await orm.em
      .fork()
      .transactional(async (em) => {
        const [{ pid }] = (await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid')) as [{ pid: number }];
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await em.execute('select 1');
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(Error);
    // With the only connection still checked out, this would wait out the acquire timeout and fail.
    const again = await orm.em.fork().transactional((em) => em.execute<{ ok: number }[]>('select 1 as ok'));
    expect(again).toEqual([{ ok: 1 }]);
  });

  it('openapi-backend: the router looks operations up through getOperations, which the patch answers from its one list', async () => {
    const api = new OpenAPIBackend({
      definition: {
        openapi: '3.1.0',
        info: { title: 'patch check', version: '1' },
        paths: { '/things/{id}': { get: { operationId: 'getThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } } },
      },
      quick: true,
    });
    await api.init();
    const router = api.router as unknown as OpenAPIRouter;
    const compiled = freezeOperations(router);
    let lookups = 0;
    const frozen = router.getOperations.bind(router);
    router.getOperations = () => {
      lookups += 1;
      return frozen();
    };
    expect(router.matchOperation({ method: 'get', path: '/things/1', headers: {} })?.operationId).toBe('getThing');
    expect(lookups).toBeGreaterThan(0);
    expect(frozen()).toBe(compiled);
  });
});
