import pg from 'pg';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const LIFECYCLE = 'subscription ($id: String!, $after: String) { recordLifecycle(recordId: $id, after: $after) { trigger toStatus cursor } }';
const PROGRESS = 'subscription ($id: String!, $after: String) { signatureProgress(recordId: $id, after: $after) { event cursor } }';
const FEED = 'subscription ($after: String) { recordActivity(after: $after) { recordId kind event cursor } }';
type Move = { trigger: string; toStatus: string; cursor: string };
type Step = { event: string; cursor: string };
type Activity = { recordId: string; kind: string; event: string; cursor: string };

/**
 * A dashboard whose connection dropped (its instance restarted) subscribes again, on another
 * instance, from the cursor of the last event it saw: it gets what it missed, in order, then the live
 * events, none twice. Before, nothing let it catch up: the events in between were lost to it.
 */
describe('Subscriptions resume from a cursor', () => {
  let a: TestApp;
  let b: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    a = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' });
    b = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' }, { sameDatabaseAs: a });
    db = new pg.Client({ connectionString: a.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await b.stop();
    await a.stop();
  });

  it('replays what a subscriber missed while away, in order, then goes on live, none twice', async () => {
    const alice = await a.signIn('alice@example.com');
    const created = await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ parties: [{ display_name: 'Bob Example', contact_point_value: 'bob@example.com' }] }) });
    const id = created.body.id as string;

    // Connected to b while alice signs and submits.
    const moves = watchSubscription<Move>(b, alice, LIFECYCLE, 'recordLifecycle', { id });
    const steps = watchSubscription<Step>(b, alice, PROGRESS, 'signatureProgress', { id });
    const feed = watchSubscription<Activity>(b, alice, FEED, 'recordActivity', {});
    await Promise.all([moves.ready, steps.ready, feed.ready]);
    await signWithEmailOtp(a, alice, 'alice@example.com', id);
    await a.request('POST', `/api/v1/agreements/${id}/submit`, { token: alice });
    await until(() => moves.events.length === 1 && steps.events.length === 4 && feed.events.some((activity) => activity.event === 'submit'), 'the first live events');
    expect(moves.events.map((move) => move.trigger)).toEqual(['submit']);
    const cursorOf = (events: { cursor: string }[]) => events.at(-1)!.cursor;
    expect(cursorOf(moves.events)).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // b's clients go away; meanwhile bob signs on a, which seals the record.
    await Promise.all([moves.dispose(), steps.dispose(), feed.dispose()]);
    const bob = await a.signIn('bob@example.com');
    const sealed = await signWithEmailOtp(a, bob, 'bob@example.com', id);
    expect(sealed.body.status).toBe('sealed');

    // They come back on a, each from the cursor of the last event it saw.
    const movesAgain = watchSubscription<Move>(a, alice, LIFECYCLE, 'recordLifecycle', { id, after: cursorOf(moves.events) });
    const stepsAgain = watchSubscription<Step>(a, alice, PROGRESS, 'signatureProgress', { id, after: cursorOf(steps.events) });
    const feedAgain = watchSubscription<Activity>(a, alice, FEED, 'recordActivity', { after: cursorOf(feed.events) });
    await until(() => movesAgain.events.length >= 1 && stepsAgain.events.length >= 4, 'the missed moves and steps', 8000);
    await until(() => feedAgain.events.some((activity) => activity.event === 'complete_signatures'), 'the missed seal in the feed', 8000);
    expect(movesAgain.events.map((move) => `${move.trigger}:${move.toStatus}`)).toEqual(['complete_signatures:sealed']);
    expect(stepsAgain.events.map((step) => step.event)).toEqual(['execution_started', 'method_started', 'method_satisfied', 'finalized']);
    // The feed may repeat what was written in the seconds before its cursor (skipped by cursor); after it, everything once.
    const seen = new Set(feed.events.map((activity) => activity.cursor));
    // (Its overlap also brings the record's creation, written before that feed subscribed.)
    const fresh = feedAgain.events.filter((activity) => activity.recordId === id && !seen.has(activity.cursor) && activity.event !== 'create');
    expect(fresh.slice(0, 5).map((activity) => `${activity.kind}:${activity.event}`)).toEqual([
      'signature:execution_started',
      'signature:method_started',
      'signature:method_satisfied',
      'signature:finalized',
      'lifecycle:complete_signatures',
    ]);

    // Then live: a record created now reaches the resumed feed.
    const next = await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    await until(() => feedAgain.events.some((activity) => activity.recordId === next.body.id && activity.event === 'create'), 'a live creation', 8000);
    for (const events of [movesAgain.events, stepsAgain.events, feedAgain.events]) {
      const cursors = events.map((event) => event.cursor);
      expect(new Set(cursors).size).toBe(cursors.length);
    }
    expect([movesAgain.errors, stepsAgain.errors, feedAgain.errors]).toEqual([[], [], []]);
    await Promise.all([movesAgain.dispose(), stepsAgain.dispose(), feedAgain.dispose()]);
  });

  it('refuses a cursor it did not give, and one it no longer keeps or with too much behind it, telling the client to re-read', async () => {
    const alice = await a.signIn('alice@example.com');
    const created = await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const id = created.body.id as string;
    const moves = watchSubscription<Move>(a, alice, LIFECYCLE, 'recordLifecycle', { id });
    await moves.ready;
    const signed = await signWithEmailOtp(a, alice, 'alice@example.com', id);
    const submitted = await a.request('POST', `/api/v1/agreements/${id}/submit`, { token: alice });
    expect([signed.status, submitted.status]).toEqual([200, 200]);
    // The submit's move, live: 8 s, as the other live waits of this file allow on a loaded machine (the
    // default 5 s ran out once in a clean-clone run); its cursor is all the rest of the test needs.
    await until(() => moves.events.length >= 1, 'a live event', 8000);
    expect(moves.events[0]).toMatchObject({ trigger: 'submit', toStatus: 'pending_confirmation' });
    const cursor = moves.events[0]!.cursor;
    await moves.dispose();

    const refusal = async (after: string) => {
      const again = watchSubscription<Move>(a, alice, LIFECYCLE, 'recordLifecycle', { id, after });
      await until(() => again.errors.length > 0, 'the refusal');
      await again.dispose();
      return again.errors[0] as { message: string; extensions?: { code: string; issues?: { type: string; path: string[] }[] } }[] | { message: string; extensions?: { code: string; issues?: { type: string; path: string[] }[] } };
    };
    const first = (error: unknown) => (Array.isArray(error) ? error[0] : error) as { message: string; extensions?: { code: string; issues?: { type: string; path: string[] }[] } };

    const madeUp = first(await refusal('AAAAAAAAAAAAAAAAAAAAAA'));
    expect(madeUp.extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['after'], type: 'invalid_cursor' }] });

    // More than 500 events behind it.
    await db.query(
      `insert into outbox_events (type, payload, record_id, created_at, delivered_at)
       select 'record_lifecycle', jsonb_build_object('recordId', $1::text, 'trigger', 'update', 'fromStatus', 'draft', 'toStatus', 'draft', 'participantId', null, 'recordVersion', 1, 'at', now()), $1::uuid, now(), now()
         from generate_series(1, 501)`,
      [id],
    );
    const tooMuch = first(await refusal(cursor));
    expect(tooMuch.extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['after'], type: 'resync_required' }] });
    expect(tooMuch.message).toContain('read the current state again');

    // Swept by housekeeping: what came after it cannot be told.
    await db.query(`delete from outbox_events where record_id = $1`, [id]);
    const swept = first(await refusal(cursor));
    expect(swept.extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['after'], type: 'resync_required' }] });
  });
});
