import type pg from 'pg';
import { waitFor } from './wait.js';

/**
 * Until every domain event is delivered and every mail sent (their subscribers commit, and any
 * commit drops an instance's read caches), then a second more for a notification still on its way
 * (a loaded machine delays them): what a test of kept answers waits for before it fills them.
 */
export async function settled(sql: pg.Client): Promise<void> {
  await waitFor(async () => {
    const { rows } = await sql.query<{ busy: boolean }>(
      "select exists (select 1 from outbox_events where delivered_at is null) or exists (select 1 from mail_outbox where status in ('pending', 'sending')) as busy",
    );
    return !rows[0]!.busy;
  }, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
