import { createHash } from 'node:crypto';
import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp } from '../support/mcp.js';
import { waitFor } from '../support/wait.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';

const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function raw(t: TestApp, path: string, token?: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json: any }> {
  const response = await fetch(t.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : null;
  return { status: response.status, headers: response.headers, bytes, json };
}


describe('Artifacts over REST: document, card, single-use card tickets, audit trail', () => {
  let t: TestApp;
  let sealed: SealedAgreement;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    sealed = await sealTwoPartyAgreement(t);
    await waitFor(async () => (await raw(t, `/api/v1/agreements/${sealed.id}/document`, sealed.initiator)).status === 200);
  }, 180_000);
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  it('downloads the sealed PDF with its name and the document hash as ETag; the bytes hash to the stored document hash', async () => {
    const pdf = await raw(t, `/api/v1/agreements/${sealed.reference}/document`, sealed.party);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="${sealed.reference}.pdf"`);
    expect(pdf.headers.get('etag')).toBe(`"${sha(pdf.bytes)}"`);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const record = await t.request('GET', `/api/v1/agreements/${sealed.id}`, { token: sealed.initiator });
    const { body } = await t.graphql(`query($id: String!) { record(id: $id) { document { hash } } }`, { id: sealed.id }, { token: sealed.initiator });
    expect(body.data.record.document.hash).toBe(sha(pdf.bytes));
    expect(record.body.share_card).toMatchObject({ content_type: 'image/png', width: 1200, height: 630, available: true });
  });

  it('links the sealed PDF from the MCP card tool through a single-use ticket of its own', async () => {
    const key = (await t.request('POST', '/api/v1/api-keys', { token: sealed.initiator, body: { scopes: ['retrieve'] } })).body.key as string;
    const assistant = await connectMcp(t.url, { bearer: key });
    const card = await assistant.call('get_agreement_card', { agr_reference: sealed.reference });
    await assistant.close();
    const link = card.result.content.find((block) => block.type === 'resource_link') as { uri: string; mimeType: string; name: string; description: string };
    expect(link).toMatchObject({ mimeType: 'application/pdf', name: `${sealed.reference}-sealed.pdf`, uri: expect.stringContaining('/api/v1/artifacts/document/') });
    expect(link.description).toContain('opens once');
    const path = new URL(link.uri).pathname;
    // A card ticket does not open the PDF, nor the other way round.
    expect((await raw(t, new URL(card.structured.url).pathname.replace('share-card', 'document'))).status).toBe(404);
    expect((await raw(t, path.replace('document', 'share-card'))).status).toBe(404);
    const pdf = await raw(t, path);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(pdf.headers.get('referrer-policy')).toBe('no-referrer');
    const stored = await raw(t, `/api/v1/agreements/${sealed.id}/document`, sealed.initiator);
    expect(sha(pdf.bytes)).toBe(sha(stored.bytes));
    expect((await raw(t, path)).status).toBe(404);
    // The ticket is redacted from the request log like a card ticket.
    expect(t.logs()).toContain('/api/v1/artifacts/document/[redacted]');
    expect(t.logs()).not.toContain(path.split('/').pop()!);
  });

  it('refuses strangers and anonymous callers, and answers 409 artifact_pending with Retry-After while the PDF is made', async () => {
    const stranger = await t.signIn('stranger@example.com');
    expect((await raw(t, `/api/v1/agreements/${sealed.id}/document`, stranger)).status).toBe(404);
    expect((await raw(t, `/api/v1/agreements/${sealed.id}/document`)).status).toBe(401);
    const { rows } = await db.query(`select content from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id]);
    await db.query(`delete from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id]);
    const pending = await raw(t, `/api/v1/agreements/${sealed.id}/document`, sealed.initiator);
    expect(pending.status).toBe(409);
    expect(pending.json).toMatchObject({ error_code: 'artifact_pending', retry_after_seconds: 5 });
    expect(pending.headers.get('retry-after')).toBe('5');
    const remade = await t.app.services.sealArtifacts.pdf(sealed.id);
    expect(remade?.sha256).toBe(sha(rows[0].content));
  });

  it('has no document for a notarization, and a card on the notarization route', async () => {
    const key = await t.request('POST', '/api/v1/api-keys', { token: sealed.initiator, body: { scopes: ['create', 'retrieve', 'verify'], name: 'ci' } });
    const created = await t.request('POST', '/api/v1/notarizations', {
      apiKey: key.body.key,
      body: { content_type: 'hash', content_hash: 'sha256:' + 'ab'.repeat(32), label: 'Build 42', signature_mode: 'auto_seal' },
    });
    expect(created.body.record.status).toBe('sealed');
    const id = created.body.record.id as string;
    expect((await raw(t, `/api/v1/agreements/${id}/document`, sealed.initiator)).status).toBe(404);
    const card = await raw(t, `/api/v1/notarizations/${id}/card.png`, sealed.initiator);
    expect(card.status).toBe(200);
    expect(card.headers.get('content-type')).toBe('image/png');
    expect((await raw(t, `/api/v1/notarizations/${sealed.id}/card.png`, sealed.initiator)).status).toBe(404);
  });

  it('downloads the card (made lazily if absent) with its hash as ETag', async () => {
    await db.query(`delete from sealed_artifacts where record_id = $1 and kind = 'share_card'`, [sealed.id]);
    const card = await raw(t, `/api/v1/agreements/${sealed.id}/card.png`, sealed.party);
    expect(card.status).toBe(200);
    expect(card.headers.get('etag')).toBe(`"${sha(card.bytes)}"`);
  });

  it('a card ticket is a URL on PUBLIC_BASE_URL, redeemable exactly once even by 50 parallel requests', async () => {
    const ticket = await t.request('POST', `/api/v1/agreements/${sealed.id}/card-ticket`, { token: sealed.party });
    expect(ticket.status).toBe(200);
    const url = new URL(ticket.body.url);
    expect(`${url.protocol}//${url.host}`).toBe(t.config.publicBaseUrl);
    const token = url.pathname.split('/').pop()!;
    expect(token.length).toBeGreaterThanOrEqual(20);
    expect(token).not.toContain(sealed.reference);
    expect(new Date(ticket.body.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(300_000);
    const path = `/api/v1/artifacts/share-card/${token}`;
    const results = await Promise.all(Array.from({ length: 50 }, () => raw(t, path)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(49);
    expect(ok[0]!.headers.get('cache-control')).toBe('no-store');
    expect(ok[0]!.headers.get('referrer-policy')).toBe('no-referrer');
    expect(ok[0]!.headers.get('content-type')).toBe('image/png');
    expect((await raw(t, path)).status).toBe(404);
    expect(t.logs()).not.toContain(token);
    const stored = await db.query('select token_hash from card_tickets');
    expect(JSON.stringify(stored.rows)).not.toContain(token);
  });

  it('refuses an expired ticket and a malformed one, and housekeeping deletes spent tickets', async () => {
    const ticket = await t.request('POST', `/api/v1/agreements/${sealed.id}/card-ticket`, { token: sealed.initiator });
    const token = new URL(ticket.body.url).pathname.split('/').pop()!;
    await db.query(`update card_tickets set expires_at = now() - interval '1 second' where redeemed_at is null`);
    expect((await raw(t, `/api/v1/artifacts/share-card/${token}`)).status).toBe(404);
    expect((await raw(t, `/api/v1/artifacts/share-card/short`)).status).toBe(422);
    const stranger = await t.signIn('other@example.com');
    expect((await t.request('POST', `/api/v1/agreements/${sealed.id}/card-ticket`, { token: stranger })).status).toBe(404);
    // A record that is not sealed has no card, so no ticket either.
    const draft = await t.request('POST', '/api/v1/agreements', { token: sealed.initiator, body: agreementBody() });
    const refused = await t.request('POST', `/api/v1/agreements/${draft.body.id}/card-ticket`, { token: sealed.initiator });
    expect(refused.status).toBe(404);
    expect(refused.body.error_code).toBe('not_found');
    const swept = await t.app.services.housekeeping.sweep();
    expect(swept.cardTickets).toBeGreaterThanOrEqual(2);
    expect((await db.query('select count(*)::int as n from card_tickets')).rows[0].n).toBe(0);
  });

  it('serves the audit trail to participants over REST', async () => {
    const trail = await t.request('GET', `/api/v1/agreements/${sealed.reference}/audit-trail`, { token: sealed.party });
    expect(trail.status).toBe(200);
    expect(trail.body).toMatchObject({ record_id: sealed.id, agr_reference: sealed.reference, chain_valid: true });
    expect(trail.body.entries.at(-1)).toMatchObject({ move: 'complete_signatures', actor_role: 'system', to_status: 'sealed' });
    const stranger = await t.signIn('third@example.com');
    expect((await t.request('GET', `/api/v1/agreements/${sealed.id}/audit-trail`, { token: stranger })).status).toBe(404);
  });
});
