import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp, postMcp } from '../support/mcp.js';

type SseEvent = { id?: string; retry?: string; event?: string; data: string };

/** The events of an SSE body, in order (a frame with only `retry:` counts as one too). */
function sseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '' && !frame.startsWith(':'))
    .map((frame) => {
      const event: SseEvent = { data: '' };
      for (const line of frame.split('\n')) {
        const at = line.indexOf(':');
        const [field, value] = at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1).replace(/^ /, '')];
        if (field === 'data') event.data += value;
        else if (field === 'id' || field === 'retry' || field === 'event') event[field] = value;
      }
      return event;
    });
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'resumption-test', version: '1.0.0' } },
});

/** A new session at `version`; answers its id. */
async function openSession(url: string, version = '2025-11-25'): Promise<string> {
  const opened = await postMcp(url, initialize(version));
  expect(opened.status).toBe(200);
  return opened.headers.get('mcp-session-id')!;
}

const resume = (url: string, sessionId: string, lastEventId: string, headers: Record<string, string> = {}) =>
  fetch(new URL('/mcp', url), { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId, ...headers } });

describe('MCP SSE priming and resumption (SEP-1699)', () => {
  let t: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    second = await startTestApp({}, { sameDatabaseAs: t });
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  it('starts an SSE answer with a priming event (id, retry, empty data), then the response with its own id', async () => {
    const sessionId = await openSession(t.url);
    const listed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    expect(listed.headers.get('content-type')).toContain('text/event-stream');
    const [priming, response, ...rest] = sseEvents(listed.text);
    expect(priming).toEqual({ id: expect.stringMatching(/\S/), retry: '1000', data: '' });
    expect(response!.id).toMatch(/\S/);
    expect(response!.id).not.toBe(priming!.id);
    expect(JSON.parse(response!.data).result.tools).toHaveLength(35);
    expect(rest).toEqual([]);
  });

  it('replays what followed an event id, on the same instance and on another one, and nothing after the last', async () => {
    const sessionId = await openSession(t.url);
    const listed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    const [priming, response] = sseEvents(listed.text);
    for (const url of [t.url, second.url]) {
      const resumed = await resume(url, sessionId, priming!.id!);
      expect(resumed.status).toBe(200);
      expect(resumed.headers.get('content-type')).toContain('text/event-stream');
      // The stream ends by itself: its last response is there.
      const messages = sseEvents(await resumed.text()).filter((event) => event.data !== '');
      expect(messages).toEqual([{ event: 'message', id: response!.id, data: response!.data }]);
    }
    const afterLast = await resume(second.url, sessionId, response!.id!);
    expect(afterLast.status).toBe(200);
    expect(sseEvents(await afterLast.text()).filter((event) => event.data !== '')).toEqual([]);
  });

  it('lets a client that dropped the connection after the priming event resume the answer on another instance', async () => {
    const sessionId = await openSession(t.url);
    const abort = new AbortController();
    const posted = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_authentication_status', arguments: {} } }),
      signal: abort.signal,
    });
    const reader = posted.body!.getReader();
    let seen = '';
    while (!seen.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const [priming] = sseEvents(seen.slice(0, seen.indexOf('\n\n') + 2));
    expect(priming).toEqual({ id: expect.stringMatching(/\S/), retry: '1000', data: '' });
    abort.abort();

    const resumed = await resume(second.url, sessionId, priming!.id!);
    expect(resumed.status).toBe(200);
    const messages = sseEvents(await resumed.text()).filter((event) => event.data !== '');
    expect(messages).toHaveLength(1);
    const message = JSON.parse(messages[0]!.data);
    expect(message.id).toBe(5);
    expect(message.result.structuredContent).toBeDefined();
  });

  it('resumes with the SDK client transport on another instance (Last-Event-ID from onresumptiontoken)', async () => {
    const mcp = await connectMcp(t.url);
    const tokens: string[] = [];
    const listed = await mcp.client.listTools(undefined, { onresumptiontoken: (token) => tokens.push(token) });
    expect(listed.tools).toHaveLength(35);
    expect(tokens.length).toBeGreaterThanOrEqual(2);

    const transport = new StreamableHTTPClientTransport(new URL('/mcp', second.url), { sessionId: mcp.transport.sessionId });
    transport.setProtocolVersion(mcp.transport.protocolVersion ?? '2025-11-25');
    const received = new Promise<JSONRPCMessage>((resolve, reject) => {
      transport.onmessage = resolve;
      transport.onerror = reject;
    });
    await transport.start();
    // The replayed response answers the request the client names (the SDK maps it to that id).
    await transport.send({ jsonrpc: '2.0', id: 77, method: 'tools/list' }, { resumptionToken: tokens[0] });
    const message = (await received) as unknown as { id: number; result: { tools: unknown[] } };
    expect(message.id).toBe(77);
    expect(message.result.tools).toHaveLength(35);
    await transport.close();
    await mcp.close();
  });

  it("gives another session's event id nothing, and keeps GET's other answers (405 without Last-Event-ID, 404, 400, 401)", async () => {
    const mine = await openSession(t.url);
    const listed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': mine, 'mcp-protocol-version': '2025-11-25' });
    const [priming] = sseEvents(listed.text);
    const theirs = await openSession(second.url);

    const foreign = await resume(second.url, theirs, priming!.id!);
    expect(foreign.status).toBe(400);
    const body = await foreign.text();
    expect(body).not.toContain('tools');
    expect(JSON.parse(body).error.code).toBe(-32000);

    expect((await resume(t.url, mine, 'not-an-event-id')).status).toBe(400);
    expect((await resume(t.url, 'rss_mcps_unknown', priming!.id!)).status).toBe(404);
    expect((await resume(t.url, mine, priming!.id!, { authorization: 'Bearer rss_key_not_a_key' })).status).toBe(401);
    const standalone = await fetch(new URL('/mcp', t.url), { headers: { accept: 'text/event-stream', 'mcp-session-id': mine } });
    expect(standalone.status).toBe(405);
    expect(standalone.headers.get('allow')).toBe('GET, POST, DELETE');
    // Nothing secret in the logs: neither session id appears.
    expect(t.logs()).not.toContain(mine);
    expect(second.logs()).not.toContain(theirs);
  });

  it('replays an answer only to the caller it was made for, not to another credential presenting the same session id', async () => {
    const key = async (email: string) => (await t.request('POST', '/api/v1/api-keys', { token: await t.signIn(email), body: { scopes: ['retrieve'] } })).body.key as string;
    const [mine, theirs] = [await key('resume-owner@example.com'), await key('resume-other@example.com')];
    const opened = await postMcp(t.url, initialize('2025-11-25'), { authorization: `Bearer ${mine}` });
    const sessionId = opened.headers.get('mcp-session-id')!;
    const listed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: `Bearer ${mine}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    const [priming] = sseEvents(listed.text);

    // The session is not theirs: for them it does not exist (404, as for an unknown id).
    const foreign = await resume(second.url, sessionId, priming!.id!, { authorization: `Bearer ${theirs}` });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).not.toContain('tools');
    // Nor without a credential (the anonymous caller is another caller).
    expect((await resume(second.url, sessionId, priming!.id!)).status).toBe(404);
    const own = await resume(second.url, sessionId, priming!.id!, { authorization: `Bearer ${mine}` });
    expect(own.status).toBe(200);
    expect(sseEvents(await own.text()).some((event) => event.data.includes('"id":2'))).toBe(true);
  });

  it('primes by the version the session negotiated: not for a 2025-06-18 client, yes for a 2025-11-25 one whatever its header says', async () => {
    const older = await openSession(t.url, '2025-06-18');
    const unprimed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': older, 'mcp-protocol-version': '2025-06-18' });
    const [first] = sseEvents(unprimed.text);
    expect(first!.retry).toBeUndefined();
    expect(JSON.parse(first!.data).result.tools).toHaveLength(35);

    const newer = await openSession(t.url);
    const primed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': newer, 'mcp-protocol-version': '2025-03-26' });
    expect(sseEvents(primed.text)[0]).toEqual({ id: expect.stringMatching(/\S/), retry: '1000', data: '' });
    // An unsupported version is still refused.
    const unsupported = await postMcp(t.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': newer, 'mcp-protocol-version': '1999-01-01' });
    expect(unsupported.status).toBe(400);
  });

  it('lets housekeeping delete expired events', async () => {
    const sessionId = await openSession(t.url);
    await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    const em = t.app.orm.em.fork();
    // Stored sealed under a key from the client's session id (which the database never holds): no answer text in the table.
    const stored = await em.execute<{ message: string | null }[]>('select message from mcp_events where message is not null');
    expect(stored.length).toBeGreaterThan(0);
    for (const { message } of stored) expect(message).not.toMatch(/jsonrpc|tools|result/);
    await em.execute(`update mcp_events set expires_at = now() - interval '1 second'`);
    const swept = await t.app.services.housekeeping.sweep();
    expect(swept.mcpEvents).toBeGreaterThanOrEqual(2);
    expect((await em.execute<{ n: number }[]>('select count(*)::int as n from mcp_events'))[0]!.n).toBe(0);
  });
});
