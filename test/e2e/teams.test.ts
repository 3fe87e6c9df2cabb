import { Webhook } from 'standardwebhooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { ManualClock } from '../support/clock.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { webhookEventViolation } from '../support/contract.js';

/**
 * Teams through REST on two instances of one deployment: an admin invites a member and a viewer by
 * mail, the member's team agreement is signed by an outside party and sealed, the viewer reads it and
 * cannot change it, the team's key notarizes, the team's webhook hears the record, and a removed member
 * is refused at once on the other instance while the team keeps the record.
 */
describe('Teams', () => {
  let t: TestApp;
  let other: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let member: string;
  let viewer: string;
  let teamId: string;
  let memberId: string;
  // Follows real time; only the last case moves it (invitations lapse after 7 days).
  const clock = new ManualClock();

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    const settings = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '150ms,150ms' };
    t = await startTestApp(settings, { clock });
    other = await startTestApp(settings, { clock, sameDatabaseAs: t });
    [admin, member, viewer] = await Promise.all([t.signIn('ada@acme.example'), t.signIn('max@acme.example'), t.signIn('vic@acme.example')]);
  }, 90_000);
  afterAll(async () => {
    await other?.stop();
    await t?.stop();
    await receiver?.stop();
  });

  /** The invitation link's token, from the mail the address received. */
  const invitationToken = async (email: string): Promise<string> => {
    const mail = await t.smtp.waitFor(email, (m) => m.subject.startsWith('You are invited to join'));
    const link = /\/teams\/invitations\/(rss_tinv_[A-Za-z0-9_-]+)/.exec(mail.text);
    expect(link).not.toBeNull();
    expect(mail.text).toContain(`${t.config.publicBaseUrl}/teams/invitations/`);
    return link![1]!;
  };

  it('an admin creates a team, invites a member and a viewer by mail, and both accept', async () => {
    const created = await t.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Acme Ltd' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme Ltd', role: 'admin', member_count: 1 });
    teamId = created.body.id;

    for (const [email, role] of [['max@acme.example', 'member'], ['vic@acme.example', 'viewer']] as const) {
      const invited = await t.request('POST', `/api/v1/teams/${teamId}/invitations`, { token: admin, body: { email, role } });
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({ email, role, status: 'pending' });
      expect(JSON.stringify(invited.body)).not.toContain('rss_tinv_');
    }
    const memberToken = await invitationToken('max@acme.example');
    const viewerToken = await invitationToken('vic@acme.example');

    // The link shows its holder the team and the role, and only the invited address may accept it.
    const preview = await t.request('GET', `/api/v1/team-invitations/${memberToken}`);
    expect(preview.body).toMatchObject({ team_name: 'Acme Ltd', role: 'member', email: 'max@acme.example', status: 'pending' });
    expect((await t.request('POST', `/api/v1/team-invitations/${memberToken}/accept`, { token: viewer })).status).toBe(403);

    const joined = await t.request('POST', `/api/v1/team-invitations/${memberToken}/accept`, { token: member });
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ id: teamId, role: 'member' });
    // Single use.
    expect((await t.request('POST', `/api/v1/team-invitations/${memberToken}/accept`, { token: member })).status).toBe(409);
    expect((await other.request('POST', `/api/v1/team-invitations/${viewerToken}/accept`, { token: viewer })).status).toBe(200);

    const members = await t.request('GET', `/api/v1/teams/${teamId}/members`, { token: viewer });
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['ada@acme.example', 'admin'],
      ['max@acme.example', 'member'],
      ['vic@acme.example', 'viewer'],
    ]);
    memberId = members.body.members[1].id;
    expect((await t.request('GET', '/api/v1/teams', { token: member })).body.teams).toEqual([expect.objectContaining({ id: teamId, name: 'Acme Ltd', role: 'member', member_count: 3 })]);
    // Tokens never reach a log.
    expect(t.logs()).not.toMatch(/rss_tinv_[A-Za-z0-9_-]{8}/);
  });

  it('keeps one admin and lets only admins manage the team', async () => {
    const [adminRow] = (await t.request('GET', `/api/v1/teams/${teamId}/members`, { token: admin })).body.members;
    expect((await t.request('PATCH', `/api/v1/teams/${teamId}/members/${adminRow.id}`, { token: admin, body: { role: 'member' } })).status).toBe(409);
    expect((await t.request('DELETE', `/api/v1/teams/${teamId}/members/${adminRow.id}`, { token: admin })).status).toBe(409);
    expect((await t.request('POST', `/api/v1/teams/${teamId}/invitations`, { token: member, body: { email: 'x@acme.example', role: 'viewer' } })).status).toBe(403);
    expect((await t.request('PATCH', `/api/v1/teams/${teamId}`, { token: viewer, body: { name: 'Mine now' } })).status).toBe(403);
    expect((await t.request('POST', `/api/v1/teams/${teamId}/api-keys`, { token: member, body: { scopes: ['retrieve'] } })).status).toBe(403);
  });

  let teamWebhookSecret: string;
  let teamWebhookId: string;
  let recordId: string;

  it("seals a member's team agreement with an outside party; the viewer reads it and cannot change it; the team's webhook hears it", async () => {
    const hook = await t.request('POST', `/api/v1/teams/${teamId}/webhooks`, {
      token: admin,
      body: { url: `${receiver.url}/acme`, events: ['record.created', 'record.submitted', 'participant.signed', 'record.sealed'] },
    });
    expect(hook.status).toBe(201);
    teamWebhookSecret = hook.body.secret;
    teamWebhookId = hook.body.id;

    const created = await t.request('POST', '/api/v1/agreements', {
      token: member,
      body: agreementBody({ team_id: teamId, parties: [{ display_name: 'Olga Outside', contact_point_value: 'olga@outside.example' }] }),
    });
    expect(created.status).toBe(201);
    expect(created.body.team_id).toBe(teamId);
    recordId = created.body.id;
    // A viewer may not create for the team; a stranger is told the team does not exist.
    expect((await t.request('POST', '/api/v1/agreements', { token: viewer, body: agreementBody({ team_id: teamId }) })).status).toBe(403);
    const stranger = await t.signIn('sly@elsewhere.example');
    expect((await t.request('POST', '/api/v1/agreements', { token: stranger, body: agreementBody({ team_id: teamId }) })).status).toBe(404);

    expect((await signWithEmailOtp(t, member, 'max@acme.example', recordId)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${recordId}/submit`, { token: member })).status).toBe(200);
    const olga = await t.signIn('olga@outside.example');
    const sealed = await signWithEmailOtp(t, olga, 'olga@outside.example', recordId);
    expect(sealed.body.status).toBe('sealed');

    // The outside party reads it as a party, without learning the team.
    const seenByOlga = await t.request('GET', `/api/v1/agreements/${recordId}`, { token: olga });
    expect(seenByOlga.status).toBe(200);
    expect(seenByOlga.body.team_id).toBeNull();

    const seenByViewer = await other.request('GET', `/api/v1/agreements/${recordId}`, { token: viewer });
    expect(seenByViewer.status).toBe(200);
    expect(seenByViewer.body).toMatchObject({ team_id: teamId, status: 'sealed', available_actions: [] });
    expect((await other.request('GET', `/api/v1/agreements/${recordId}/audit-trail`, { token: viewer })).status).toBe(200);
    expect((await other.request('POST', `/api/v1/agreements/${recordId}/amend`, { token: viewer, body: { body: `${String(agreementBody().body)} Amended.` } })).status).toBe(403);
    const listed = await other.request('GET', `/api/v1/teams/${teamId}/agreements`, { token: viewer });
    expect(listed.body.agreements.map((r: { id: string }) => r.id)).toContain(recordId);
    // A team's record is the team's listing, not its initiator's personal one.
    expect((await t.request('GET', '/api/v1/identity/agreements', { token: member })).body.agreements.map((r: { id: string }) => r.id)).not.toContain(recordId);

    const received = await receiver.waitFor('/acme', 4);
    const verifier = new Webhook(teamWebhookSecret);
    const types = received.map((delivery) => (verifier.verify(delivery.body, delivery.headers) as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(['record.created', 'record.submitted', 'participant.signed', 'record.sealed']));
    for (const delivery of received) expect(webhookEventViolation(JSON.parse(delivery.body))).toBeNull();
  });

  it("a team key notarizes for the team, the member sees it, and the key survives its maker's departure", async () => {
    const key = await t.request('POST', `/api/v1/teams/${teamId}/api-keys`, { token: admin, body: { scopes: ['create', 'retrieve', 'verify'], name: 'acme-ci' } });
    expect(key.status).toBe(201);
    const hash = createHash('sha256').update('acme quarterly report').digest('hex');
    const notarized = await t.request('POST', '/api/v1/notarizations', {
      apiKey: key.body.key,
      body: { content_type: 'hash', content_hash: hash, label: 'Q3 report', signature_mode: 'auto_seal' },
    });
    expect(notarized.status).toBe(201);
    expect(notarized.body.record).toMatchObject({ team_id: teamId, status: 'sealed' });
    const notarizationId = notarized.body.record.id as string;
    const seen = await other.request('GET', `/api/v1/notarizations/${notarizationId}`, { token: member });
    expect(seen.status).toBe(200);
    expect(seen.body.team_id).toBe(teamId);
    // A team never signs: its key initiates nothing whose initiator must sign.
    const refused = await t.request('POST', '/api/v1/agreements', { apiKey: key.body.key, body: agreementBody() });
    expect(refused.status).toBe(422);
    // The key reads the team's records (its listing is its team's), not a member's personal ones.
    const keyList = await t.request('GET', '/api/v1/identity/agreements', { apiKey: key.body.key });
    expect(keyList.body.agreements.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([recordId, notarizationId]));
    const personal = await t.request('POST', '/api/v1/agreements', { token: member, body: agreementBody() });
    expect((await t.request('GET', `/api/v1/agreements/${personal.body.id}`, { apiKey: key.body.key })).status).toBe(404);
    // A member's personal key acts for the member only.
    const memberKey = await t.request('POST', '/api/v1/api-keys', { token: member, body: { scopes: ['retrieve'] } });
    expect((await t.request('GET', `/api/v1/agreements/${recordId}`, { apiKey: memberKey.body.key })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/teams/${teamId}/agreements`, { apiKey: memberKey.body.key })).status).toBe(404);
  });

  it('a removed member is refused at once on the other instance; the team keeps the record; the log is chained', async () => {
    expect((await other.request('GET', `/api/v1/agreements/${recordId}`, { token: member })).status).toBe(200);
    const removed = await t.request('DELETE', `/api/v1/teams/${teamId}/members/${memberId}`, { token: admin });
    expect(removed.status).toBe(204);
    expect((await other.request('GET', `/api/v1/agreements/${recordId}`, { token: member })).status).toBe(404);
    expect((await other.request('GET', `/api/v1/teams/${teamId}/agreements`, { token: member })).status).toBe(404);
    expect((await other.request('GET', `/api/v1/teams/${teamId}`, { token: member })).status).toBe(404);
    expect((await other.request('GET', `/api/v1/agreements/${recordId}`, { token: admin })).body.status).toBe('sealed');

    const activity = await t.request('GET', `/api/v1/teams/${teamId}/activity`, { token: viewer });
    expect(activity.status).toBe(200);
    const actions = activity.body.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['team_created', 'member_invited', 'member_invited', 'member_joined', 'member_joined', 'webhook_created', 'api_key_created', 'member_removed']);
    activity.body.entries.forEach((entry: { prev_hash: string | null; entry_hash: string }, index: number) => {
      expect(entry.prev_hash).toBe(index === 0 ? null : activity.body.entries[index - 1].entry_hash);
    });
  });

  it("lets an admin read, change and delete the team's webhook through /webhooks/{id}; a member of another role cannot, nor a removed member", async () => {
    const [, viewerRow] = (await t.request('GET', `/api/v1/teams/${teamId}/members`, { token: admin })).body.members;
    expect((await t.request('PATCH', `/api/v1/teams/${teamId}/members/${viewerRow.id}`, { token: admin, body: { role: 'member' } })).status).toBe(200);
    const path = `/api/v1/webhooks/${teamWebhookId}`;
    // Not the admin's personal endpoint, yet theirs to manage; the team's other roles are told it does not exist.
    expect((await t.request('GET', '/api/v1/webhooks', { token: admin })).body.webhooks).toEqual([]);
    for (const token of [viewer, member]) {
      expect((await t.request('GET', path, { token })).status).toBe(404);
      expect((await t.request('PATCH', path, { token, body: { enabled: false } })).status).toBe(404);
      expect((await t.request('DELETE', path, { token })).status).toBe(404);
    }
    const read = await other.request('GET', path, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: teamWebhookId, url: `${receiver.url}/acme`, enabled: true });
    const changed = await t.request('PATCH', path, { token: admin, body: { events: ['record.sealed'], description: 'Acme sealed records' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['record.sealed'], description: 'Acme sealed records' });
    expect((await other.request('DELETE', path, { token: admin })).status).toBe(204);
    expect((await t.request('GET', path, { token: admin })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/teams/${teamId}/webhooks`, { token: admin })).body.webhooks).toEqual([]);
    const actions = (await t.request('GET', `/api/v1/teams/${teamId}/activity`, { token: admin })).body.entries.map((e: { action: string }) => e.action);
    expect(actions.slice(-2)).toEqual(['webhook_changed', 'webhook_deleted']);
  });

  it("tells nobody outside a team that it exists: another team's ids answer 404 everywhere", async () => {
    const outsider = await t.signIn('owner@rival.example');
    const rival = await t.request('POST', '/api/v1/teams', { token: outsider, body: { name: 'Rival Inc' } });
    const rivalId = rival.body.id as string;
    const [rivalAdmin] = (await t.request('GET', `/api/v1/teams/${rivalId}/members`, { token: outsider })).body.members;
    const missing = '00000000-0000-4000-8000-000000000000';
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v1/teams/${rivalId}`],
      ['PATCH', `/api/v1/teams/${rivalId}`, { name: 'Taken' }],
      ['DELETE', `/api/v1/teams/${rivalId}`],
      ['GET', `/api/v1/teams/${rivalId}/members`],
      ['PATCH', `/api/v1/teams/${rivalId}/members/${rivalAdmin.id}`, { role: 'viewer' }],
      ['DELETE', `/api/v1/teams/${rivalId}/members/${rivalAdmin.id}`],
      ['GET', `/api/v1/teams/${rivalId}/invitations`],
      ['POST', `/api/v1/teams/${rivalId}/invitations`, { email: 'spy@acme.example', role: 'admin' }],
      ['DELETE', `/api/v1/teams/${rivalId}/invitations/${missing}`],
      ['GET', `/api/v1/teams/${rivalId}/activity`],
      ['GET', `/api/v1/teams/${rivalId}/agreements`],
      ['GET', `/api/v1/teams/${rivalId}/api-keys`],
      ['POST', `/api/v1/teams/${rivalId}/api-keys`, { scopes: ['retrieve'] }],
      ['DELETE', `/api/v1/teams/${rivalId}/api-keys/${missing}`],
      ['GET', `/api/v1/teams/${rivalId}/webhooks`],
      ['POST', `/api/v1/teams/${rivalId}/webhooks`, { url: `${receiver.url}/spy`, events: ['record.sealed'] }],
      ['POST', '/api/v1/agreements', agreementBody({ team_id: rivalId })],
    ];
    for (const [method, path, body] of routes) {
      const answer = await t.request(method, path, { token: admin, body });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(JSON.stringify(answer.body)).not.toContain('Rival');
    }
    // The team's own answers are there, for comparison.
    expect((await t.request('GET', `/api/v1/teams/${rivalId}`, { token: outsider })).status).toBe(200);

    // A team that owns no record can be deleted: its keys stop working at once, on every instance, and its webhooks go with it.
    const rivalKey = (await t.request('POST', `/api/v1/teams/${rivalId}/api-keys`, { token: outsider, body: { scopes: ['create', 'retrieve'] } })).body.key as string;
    const rivalHook = (await t.request('POST', `/api/v1/teams/${rivalId}/webhooks`, { token: outsider, body: { url: `${receiver.url}/rival`, events: ['record.created'] } })).body.id as string;
    expect((await t.request('POST', `/api/v1/teams/${rivalId}/invitations`, { token: outsider, body: { email: 'hire@rival.example', role: 'member' } })).status).toBe(201);
    expect((await other.request('GET', '/api/v1/teams', { apiKey: rivalKey })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/teams/${rivalId}`, { token: outsider })).status).toBe(204);
    expect((await other.request('GET', '/api/v1/teams', { apiKey: rivalKey })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/notarizations', { apiKey: rivalKey, body: { content_type: 'hash', content_hash: createHash('sha256').update('rival').digest('hex'), label: 'x' } })).status).toBe(401);
    expect((await t.request('GET', `/api/v1/teams/${rivalId}`, { token: outsider })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/webhooks/${rivalHook}`, { token: outsider })).status).toBe(404);
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      expect((await db.query('select id from webhook_endpoints where id = $1 or identity_id = $2', [rivalHook, rivalId])).rows).toEqual([]);
      expect((await db.query('select revoked_at from api_keys where identity_id = $1', [rivalId])).rows).toEqual([{ revoked_at: expect.any(Date) }]);
      expect((await db.query('select id from team_invitations where team_id = $1', [rivalId])).rows).toEqual([]);
    } finally {
      await db.end();
    }
  });

  /** Every invitation link mailed to `email` so far, oldest first. */
  const invitationTokens = (email: string): string[] =>
    t.smtp.messages.filter((m) => m.to.includes(email) && m.subject.startsWith('You are invited to join')).map((m) => /(rss_tinv_[A-Za-z0-9_-]+)/.exec(m.text)![1]!);

  it('replaces a pending invitation with a new one to the same address, and lets an invitation link lapse after 7 days', async () => {
    const invite = () => t.request('POST', `/api/v1/teams/${teamId}/invitations`, { token: admin, body: { email: 'late@acme.example', role: 'viewer' } });
    const first = await invite();
    await t.smtp.waitFor('late@acme.example', (m) => m.subject.startsWith('You are invited to join'));
    const second = await invite();
    expect(second.status).toBe(201);
    await t.smtp.waitFor('late@acme.example', () => invitationTokens('late@acme.example').length === 2);
    const [oldToken, newToken] = invitationTokens('late@acme.example') as [string, string];
    expect(second.body.expires_at).toBe(new Date(Date.parse(second.body.created_at) + 7 * 86_400_000).toISOString());
    const pending = (await t.request('GET', `/api/v1/teams/${teamId}/invitations`, { token: admin })).body.invitations.filter((i: { email: string }) => i.email === 'late@acme.example');
    expect(pending).toEqual([expect.objectContaining({ id: second.body.id, status: 'pending' })]);
    expect(first.body.id).not.toBe(second.body.id);

    // The replaced link answers as no longer usable; the new one works.
    expect((await t.request('GET', `/api/v1/team-invitations/${oldToken}`)).body).toMatchObject({ status: 'revoked' });
    const late = await t.signIn('late@acme.example');
    expect((await t.request('POST', `/api/v1/team-invitations/${oldToken}/accept`, { token: late })).status).toBe(409);
    expect((await t.request('GET', `/api/v1/team-invitations/${newToken}`)).body).toMatchObject({ status: 'pending' });

    // A minute before 7 days it is still pending; a minute after, expired and refused on either instance.
    clock.advance(7 * 86_400_000 - 60_000);
    expect((await other.request('GET', `/api/v1/team-invitations/${newToken}`)).body).toMatchObject({ status: 'pending' });
    clock.advance(2 * 60_000);
    expect((await other.request('GET', `/api/v1/team-invitations/${newToken}`)).body).toMatchObject({ status: 'expired' });
    const lateAgain = await t.signIn('late@acme.example');
    const refused = await other.request('POST', `/api/v1/team-invitations/${newToken}/accept`, { token: lateAgain });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('expired');
    const adminAgain = await t.signIn('ada@acme.example');
    expect((await t.request('GET', `/api/v1/teams/${teamId}/members`, { token: adminAgain })).body.members.map((m: { email: string }) => m.email)).not.toContain('late@acme.example');
  });
});
