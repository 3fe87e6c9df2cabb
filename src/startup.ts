import http from 'node:http';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';

const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 10_000;

/**
 * At start-up, PostgreSQL may not be up yet (a compose file or a pod starting the database beside the
 * service, a failover under way): the service waits for it as an orchestrator expects, instead of
 * exiting with a connection error. While it waits, its port answers `/health` 200 (the process is
 * alive) and `/health/ready` and everything else 503 with `Retry-After`, and each failed attempt is
 * one structured warn line (`event: "database_unreachable"`: attempt, error code, next wait; never
 * the URL, which may hold a password). Waits double from 0.5 s up to 10 s, for at most
 * DATABASE_START_TIMEOUT_SECONDS, then it gives up (the caller exits 1). Returns at once, with no
 * listener, when the database answers the first time.
 */
export async function waitForDatabase(config: Config, logger: Logger): Promise<void> {
  // The server itself (DATABASE_DIRECT_URL behind a pooler): a pooler's session opened now would keep no role timeouts (app.ts sets them next).
  let failure = await tryConnect(config.databaseDirectUrl);
  if (failure === null) return;
  const deadline = Date.now() + config.databaseStartTimeoutSeconds * 1000;
  const holding = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'starting' }));
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5', connection: 'close' });
    res.end(JSON.stringify({ status: 'not_ready', checks: { database: 'unreachable' } }));
  });
  await new Promise<void>((resolve, reject) => holding.once('error', reject).listen(config.port, config.host, resolve));
  try {
    for (let attempt = 1; failure !== null; attempt += 1) {
      const waitMs = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), LONGEST_WAIT_MS, Math.max(0, deadline - Date.now()));
      if (waitMs <= 0) {
        logger.error({ event: 'database_unreachable', attempt, code: failure, waitedSeconds: config.databaseStartTimeoutSeconds }, 'the database did not answer within DATABASE_START_TIMEOUT_SECONDS; giving up');
        throw new Error(`the database did not answer within ${config.databaseStartTimeoutSeconds} s (${failure})`);
      }
      logger.warn({ event: 'database_unreachable', attempt, code: failure, retryInMs: waitMs }, 'the database does not answer yet; waiting for it');
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      failure = await tryConnect(config.databaseDirectUrl);
    }
    logger.info({ event: 'database_reachable' }, 'the database answers; starting');
  } finally {
    holding.closeAllConnections();
    await new Promise((resolve) => holding.close(resolve));
  }
}

/** null when a connection opens and answers; otherwise the error's code (ECONNREFUSED, 57P03 "starting up", ...). */
async function tryConnect(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return code ?? (message?.includes('timeout') ? 'timeout' : 'error');
  } finally {
    await client.end().catch(() => undefined);
  }
}
