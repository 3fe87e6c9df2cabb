import { resilientPool } from './infrastructure/database.js';

/** One dependency's state: `ok`, or a short reason it is not. */
type CheckResult = 'ok' | 'unavailable' | 'timeout' | 'reconnecting' | 'stopping';

export type Readiness = {
  /** Every check, each answered within the deadline. */
  check(): Promise<{ ready: boolean; checks: Record<string, CheckResult> }>;
  close(): Promise<void>;
};

/** How long readiness waits for the database: a balancer's probe must get an answer, even from a frozen server. */
const READINESS_DEADLINE_MS = 2000;

/**
 * Readiness: the database answers `select 1` within the deadline on a connection of its own (a
 * one-connection pool with client-side connect and query timeouts: a hung server costs one
 * connection, never the request pools), and every long-lived connection is up (`listening`: the
 * LISTEN connection that carries events, cache invalidations and job wake-ups between instances).
 * An instance that is stopping (`stopping`) is not ready, at once and without asking the database:
 * `checks.shutdown` says so, and the balancer takes it out of its rotation during the drain.
 */
export function readiness(databaseUrl: string, listening: () => boolean, stopping: () => boolean, deadlineMs = READINESS_DEADLINE_MS): Readiness {
  // A probe connection the server drops is replaced at the next check; its loss is what the check reports.
  const pool = resilientPool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: deadlineMs, query_timeout: deadlineMs, idleTimeoutMillis: 30_000 }, () => undefined);
  const database = async (): Promise<CheckResult> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckResult>((resolve) => (timer = setTimeout(() => resolve('timeout'), deadlineMs + 250)));
    try {
      return await Promise.race([
        pool.query('select 1').then(
          (): CheckResult => 'ok',
          (error: unknown): CheckResult => (/timeout/i.test((error as Error).message) ? 'timeout' : 'unavailable'),
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async check() {
      if (stopping()) return { ready: false, checks: { shutdown: 'stopping' } };
      // A second try: one probe connection the server dropped a moment ago is not unreadiness.
      let state = await database();
      if (state === 'unavailable') state = await database();
      const checks: Record<string, CheckResult> = { database: state, notifications: listening() ? 'ok' : 'reconnecting' };
      return { ready: Object.values(checks).every((state) => state === 'ok'), checks };
    },
    close: () => pool.end(),
  };
}
