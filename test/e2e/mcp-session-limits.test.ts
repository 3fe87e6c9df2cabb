import { startTestApp, type TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';
import { connectMcp, INITIALIZE, postMcp } from '../support/mcp.js';

const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/**
 * `initialize` cannot be flooded: counted per client, a short first lifetime for sessions that make
 * no call, and a cap on live sessions in all (an outside flood opened 11,361 day-long sessions in 30 s).
 */
describe('MCP session limits', () => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp({ MCP_INITIALIZE_PER_MINUTE: '5', MCP_SESSION_UNUSED_SECONDS: '600', MCP_MAX_SESSIONS: '1000' }, { clock });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('refuses initialize past the per-client rate with 429 and Retry-After, and opens no session for it', async () => {
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push(await postMcp(t.url, INITIALIZE));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    for (const refused of answers.slice(5)) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('mcp-session-id')).toBeNull();
      expect(refused.json().error.message).toMatch(/MCP sessions/);
    }
    // The official client sees the refusal as an error, not a hang.
    await expect(connectMcp(t.url)).rejects.toThrow(/429|Too many|MCP sessions/);
    // Once the (sliding) window has passed, the client may open sessions again.
    clock.advance(120_000);
    expect((await postMcp(t.url, INITIALIZE)).status).toBe(200);
  });

  it('ends a session that made no call within its first lifetime, and keeps a used one for the idle lifetime', async () => {
    clock.advance(120_000);
    const unused = (await postMcp(t.url, INITIALIZE)).headers.get('mcp-session-id')!;
    const used = (await postMcp(t.url, INITIALIZE)).headers.get('mcp-session-id')!;
    expect((await postMcp(t.url, TOOLS_LIST, { 'mcp-session-id': used })).status).toBe(200);
    clock.advance(11 * 60_000);
    expect((await postMcp(t.url, TOOLS_LIST, { 'mcp-session-id': unused })).status).toBe(404);
    expect((await postMcp(t.url, TOOLS_LIST, { 'mcp-session-id': used })).status).toBe(200);
  });

  it('refuses initialize with 503 and Retry-After while the live sessions are at the cap', async () => {
    const capped = await startTestApp({ MCP_INITIALIZE_PER_MINUTE: '100', MCP_MAX_SESSIONS: '3' });
    try {
      const answers = [];
      for (let i = 0; i < 4; i += 1) answers.push(await postMcp(capped.url, INITIALIZE));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 503]);
      expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
      // Ending a session frees a place.
      const ended = await fetch(new URL('/mcp', capped.url), { method: 'DELETE', headers: { 'mcp-session-id': answers[0]!.headers.get('mcp-session-id')! } });
      expect(ended.status).toBe(200);
      expect((await postMcp(capped.url, INITIALIZE)).status).toBe(200);
    } finally {
      await capped.stop();
    }
  });
});
