import { startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { connectMcp, type McpClient } from '../support/mcp.js';

const BODY = 'Alice lends Bob her ladder for the summer and Bob returns it clean by the first of September.';

describe('MCP journey: from create_agreement to a sealed record by following next_action', () => {
  let t: TestApp;
  let alice: McpClient;

  beforeAll(async () => {
    t = await startTestApp();
    const token = await t.signIn('alice@example.com');
    const key = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] } });
    alice = await connectMcp(t.url, { bearer: key.body.key });
  });
  afterAll(async () => {
    await alice?.close();
    await t?.stop();
  });

  /** Follows a next_action, filling the placeholders a human would answer (the mailed signature code). */
  async function follow(next: { tool: string; arguments: Record<string, unknown> }, human: Record<string, unknown> = {}) {
    const result = await alice.call(next.tool, { ...next.arguments, ...human });
    if (result.isError) throw new Error(`${next.tool}: ${JSON.stringify(result.structured)}`);
    return result;
  }

  it('creates, signs, submits and (after the other party signs over REST) seals, with no other knowledge', async () => {
    const created = await alice.call('create_agreement', {
      title: 'Ladder loan',
      body: BODY,
      other_party_email: 'bob@example.com',
      other_party_name: 'Bob Example',
      on_chain_full_text: false,
      on_chain_include_verified_parties: false,
      required_signature_method_count: 1,
    });
    expect(created.isError).toBe(false);
    const reference = created.structured.agr_reference as string;
    expect(created.structured).toMatchObject({ status: 'draft', agreement_version: 1, initiator_signature: { status: 'not_started' } });
    expect(created.structured.agreement.initiated_via).toBe('mcp');
    expect(created.structured.human_step).toContain('exact text');

    let step = await follow(created.structured.next_action);
    expect(step.structured.next_action).toMatchObject({ tool: 'start_signature_method', arguments: { agr_reference: reference, method_type: 'email_otp' } });
    const before = t.smtp.messages.length;
    step = await follow(step.structured.next_action);
    expect(step.structured.next_action.tool).toBe('submit_signature_method_input');
    expect(step.structured.human_step).toBeTruthy();
    const mail = await t.smtp.waitFor('alice@example.com', (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
    step = await follow(step.structured.next_action, { code: /code is (\d{6})/.exec(mail.text)![1] });
    expect(step.structured).toMatchObject({ can_finalize: true, next_action: { tool: 'finalize_signature_execution' } });
    step = await follow(step.structured.next_action);
    expect(step.structured).toMatchObject({ status: 'draft', initiator_signature: { status: 'finalized' }, next_action: { tool: 'preview_draft_change', arguments: { action: 'submit' } } });

    const preview = await follow(step.structured.next_action);
    expect(preview.structured.what_changes.join(' ')).toContain('Bob Example');
    expect(preview.structured.next_action.arguments).toMatchObject({ confirmation_token: expect.stringMatching(/^rss_cfm_/), agreement_version: 1 });
    step = await follow(preview.structured.next_action);
    expect(step.structured).toMatchObject({ status: 'pending_confirmation', next_action: { tool: 'get_agreement' } });
    expect(step.structured.human_step).toContain('Bob Example');

    // The other party signs with their invitation over REST.
    const bob = await t.signIn('bob@example.com');
    const sealed = await signWithEmailOtp(t, bob, 'bob@example.com', reference);
    expect(sealed.body.status).toBe('sealed');

    const read = await follow(step.structured.next_action);
    expect(read.structured).toMatchObject({ status: 'sealed', next_action: { tool: 'get_agreement_card' } });

    // The card as a single-use URL (default), inline image, or base64 for old clients.
    const card = await follow(read.structured.next_action);
    expect(card.structured).toMatchObject({ representation: 'url', url: expect.stringContaining('/api/v1/artifacts/share-card/') });
    // The URL is on PUBLIC_BASE_URL; the test instance listens on a port chosen at start.
    const ticketUrl = t.url + new URL(card.structured.url).pathname;
    const redeemed = await fetch(ticketUrl);
    expect(redeemed.status).toBe(200);
    expect(redeemed.headers.get('content-type')).toBe('image/png');
    expect((await fetch(ticketUrl)).status).not.toBe(200);
    const inline = await alice.call('get_agreement_card', { agr_reference: reference, representation: 'inline' });
    expect(inline.result.content.map((block) => block.type)).toEqual(['text', 'image']);
    expect(inline.result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(JSON.stringify(inline.structured)).not.toContain((inline.result.content[1] as { data: string }).data.slice(0, 40));
    const base64 = await alice.call('get_agreement_card', { agr_reference: reference, representation: 'compatibility_base64' });
    expect(Buffer.from(base64.structured.content_base64, 'base64').subarray(1, 4).toString()).toBe('PNG');

    // Public verification: a certificate lookup without an artifact, a verdict with one.
    const anonymous = await connectMcp(t.url);
    const lookup = await anonymous.call('verify_agreement', { agr_reference: reference });
    expect(lookup.structured).toMatchObject({ record_found: true, record_match: null, verified: false, verdict: 'certificate', status: 'sealed' });
    expect(lookup.structured.identicon).toMatchObject({ kind: 'document' });
    expect(lookup.structured.identicon.svg_data_uri).toBeUndefined();
    const matched = await anonymous.call('verify_agreement', { agr_reference: reference, content_hash: read.structured.agreement.body_hash, visual_representation: 'inline' });
    expect(matched.structured).toMatchObject({ record_match: true, verified: true, verdict: 'verified', match_method: 'content_hash' });
    // The identicon as PNG (hosts must show PNG; many show no SVG), then the link to the public page.
    expect(matched.result.content.map((block) => block.type)).toEqual(['text', 'image', 'resource_link']);
    expect(matched.result.content[1]).toMatchObject({ mimeType: 'image/png' });
    const png = Buffer.from((matched.result.content[1] as { data: string }).data, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([320, 320]);
    expect(JSON.stringify(matched.structured)).not.toContain('svg');
    const verificationPage = new URL(`/verify/${reference}`, t.config.publicBaseUrl).href;
    expect(matched.result.content[2]).toMatchObject({ type: 'resource_link', uri: verificationPage, mimeType: 'text/html', name: `${reference}-verification` });
    // SVG stays where a client asked for data URIs.
    const compatible = await anonymous.call('verify_agreement', { agr_reference: reference, visual_representation: 'compatibility_data_uri' });
    expect(compatible.structured.identicon.svg_data_uri).toMatch(/^data:image\/svg\+xml;base64,/);
    // A participant's read of the sealed record links the same page.
    const links = (await alice.call('get_agreement', { agr_reference: reference })).result.content.filter((block) => block.type === 'resource_link');
    expect(links).toEqual([expect.objectContaining({ uri: verificationPage })]);
    const other = await anonymous.call('verify_agreement', { agr_reference: reference, content_hash: `sha256:${'0'.repeat(64)}` });
    expect(other.structured).toMatchObject({ verdict: 'no_match', verified: false });
    const compat = await anonymous.call('verify_agreement', { agr_reference: reference, visual_representation: 'compatibility_data_uri' });
    expect(compat.structured.identicon.svg_data_uri).toMatch(/^data:image\/svg\+xml;base64,/);
    await anonymous.close();

    // A participant's read inlines document and signature identicons; a listing only document ones.
    const full = await alice.call('get_agreement', { agr_reference: reference, visual_representation: 'inline' });
    expect(full.result.content.filter((block) => block.type === 'image').length).toBeGreaterThanOrEqual(2);
    const listed = await alice.call('list_agreements', { visual_representation: 'inline' });
    expect(listed.result.content.filter((block) => block.type === 'image')).toHaveLength(1);
  });
});
