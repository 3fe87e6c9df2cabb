import { createHash } from 'node:crypto';
import { agreementBody, startTestApp, type HttpResult, type TestApp } from '../support/harness.js';

/** What the spec says `body_hash` is: sha256 of the UTF-8 bytes of the NFC, whitespace-collapsed, trimmed body. */
function expectedHash(body: string): string {
  const normalized = body.normalize('NFC').replace(/\s+/gu, ' ').trim();
  return `sha256:${createHash('sha256').update(normalized, 'utf8').digest('hex')}`;
}

const REFERENCE = /^AGR-[0-9A-Z]{4}-[0-9A-Z]{4}$/;
/** The spec's "Required in the response" list of the Record. */
const REQUIRED_RECORD_FIELDS = [
  'id', 'agr_reference', 'type', 'status', 'title', 'body', 'body_hash', 'summary', 'language', 'jurisdiction',
  'initiated_via', 'current_version', 'required_signature_method_count', 'parties', 'active_counter',
  'supersedes_agr_id', 'superseded_by_agr_id', 'blockchain', 'metadata', 'llm_analysis', 'created_at',
  'expires_at', 'sealed_at',
];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

type Party = { id: string; role: string; display_name: string | null; contact_point_value: string | null };

function locs(response: HttpResult): unknown[][] {
  return (response.body.detail as { loc: unknown[] }[]).map((item) => item.loc);
}

// One running service for the whole file; each describe signs in its own people.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

describe('Records over REST', () => {
  let alice: string;
  let bob: string;
  let mallory: string;

  beforeAll(async () => {
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
    mallory = await t.signIn('mallory@example.com');
  });

  const create = (token: string, overrides: Record<string, unknown> = {}) =>
    t.request('POST', '/api/v1/agreements', { token, body: agreementBody(overrides) });

  /** Every required field of the spec's Record, with the values a fresh REST draft must have. */
  function expectFreshDraft(record: Record<string, any>, type: string, initiatorEmail: string) {
    for (const field of REQUIRED_RECORD_FIELDS) expect(record).toHaveProperty([field]);
    for (const field of ['title', 'summary', 'language', 'jurisdiction']) {
      expect(record[field] === null || typeof record[field] === 'string').toBe(true);
    }
    expect(record).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        agr_reference: expect.stringMatching(REFERENCE),
        type,
        status: 'draft',
        body: expect.any(String),
        body_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        initiated_via: 'rest_api',
        current_version: 1,
        required_signature_method_count: expect.any(Number),
        parties: expect.any(Array),
        active_counter: null,
        supersedes_agr_id: null,
        superseded_by_agr_id: null,
        blockchain: null,
        metadata: {},
        llm_analysis: null,
        created_at: expect.any(String),
        expires_at: null,
        sealed_at: null,
      }),
    );
    expect(Number.isNaN(Date.parse(record.created_at))).toBe(false);
    expect(record.body_hash).toBe(expectedHash(record.body));
    const initiator = (record.parties as Party[]).find((p) => p.role === 'initiator');
    expect(initiator).toMatchObject({ role: 'initiator', contact_point_value: initiatorEmail });
    expect(record.initiator_signature).toMatchObject({ status: 'not_started' });
    expect(JSON.stringify(record)).not.toContain('svg_data_uri');
  }

  describe('creating', () => {
    it('creates an agreement draft with the full Record shape', async () => {
      const response = await create(alice, { summary: 'Who waters when', jurisdiction: 'DE' });
      expect(response.status).toBe(201);
      const record = response.body;
      expectFreshDraft(record, 'agreement', 'alice@example.com');
      expect(record).toMatchObject({
        title: 'Garden sharing',
        summary: 'Who waters when',
        jurisdiction: 'DE',
        required_signature_method_count: 1,
        witness_summary: null,
        notarization: null,
      });
      expect(record.parties).toEqual([
        expect.objectContaining({ role: 'initiator', contact_point_type: 'email', contact_point_value: 'alice@example.com' }),
        expect.objectContaining({
          role: 'party',
          display_name: 'Bob',
          contact_point_type: 'email',
          contact_point_value: 'bob@example.com',
          invited_at: expect.any(String),
          confirmed_at: null,
          confirmed_version: null,
          declined_at: null,
          declined_reason: null,
        }),
      ]);
    });

    it('creates a witnessed agreement with its witness', async () => {
      const response = await create(alice, {
        type: 'witnessed_agreement',
        witnesses: [{ display_name: 'Wendy', contact_point_value: 'wendy@example.com' }],
        required_signature_method_count: 2,
      });
      expect(response.status).toBe(201);
      expectFreshDraft(response.body, 'witnessed_agreement', 'alice@example.com');
      expect(response.body.required_signature_method_count).toBe(2);
      expect(response.body.parties.map((p: Party) => [p.role, p.contact_point_value])).toEqual([
        ['initiator', 'alice@example.com'],
        ['party', 'bob@example.com'],
        ['witness', 'wendy@example.com'],
      ]);
      expect(response.body.witness_summary).toMatchObject({ active: 1 });
    });

    it('creates a declaration through /agreements without parties', async () => {
      const response = await create(alice, { type: 'declaration', parties: [] });
      expect(response.status).toBe(201);
      expectFreshDraft(response.body, 'declaration', 'alice@example.com');
      expect(response.body.parties.map((p: Party) => p.role)).toEqual(['initiator']);
    });

    it('creates a notarization through /agreements', async () => {
      const response = await create(alice, { type: 'notarization', parties: [] });
      expect(response.status).toBe(201);
      expectFreshDraft(response.body, 'notarization', 'alice@example.com');
      expect(response.body.notarization).toMatchObject({ content_hash: response.body.body_hash });
    });

    it('creates a declaration through /declarations, ignoring fields it does not have', async () => {
      const response = await t.request('POST', '/api/v1/declarations', {
        token: alice,
        body: {
          title: 'Ownership',
          body: 'I declare that the bicycle in the shed belongs to me.',
          on_chain_full_text: true,
          on_chain_include_verified_parties: false,
          parties: [{ display_name: 'Bob', contact_point_value: 'bob@example.com' }],
        },
      });
      expect(response.status).toBe(201);
      expectFreshDraft(response.body, 'declaration', 'alice@example.com');
      expect(response.body.title).toBe('Ownership');
      expect(response.body.parties.map((p: Party) => p.role)).toEqual(['initiator']);
    });

    it('hashes the normalized body, so whitespace-only differences hash the same', async () => {
      const tidy = 'We agree to share the garden equally.';
      const messy = '  We agree\tto share\n\nthe   garden equally.  ';
      const first = await create(alice, { body: tidy });
      const second = await create(alice, { body: messy });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(first.body.body_hash).toBe(expectedHash(tidy));
      expect(second.body.body_hash).toBe(first.body.body_hash);

      // NFC: a decomposed "é" hashes like the composed one.
      const composed = await create(alice, { body: 'Caf\u00e9 opens at nine every day.' });
      const decomposed = await create(alice, { body: 'Cafe\u0301 opens at nine every day.' });
      expect(decomposed.body.body_hash).toBe(composed.body.body_hash);
      expect(composed.body.body_hash).toBe(expectedHash('Caf\u00e9 opens at nine every day.'));
    });

    it('needs authentication', async () => {
      const response = await t.request('POST', '/api/v1/agreements', { body: agreementBody() });
      expect(response.status).toBe(401);
      expect(response.body.error_code).toBe('unauthenticated');
    });
  });

  describe('reading', () => {
    it('reads a record by id, by AGR reference and by lowercase reference', async () => {
      const created = await create(alice);
      const byId = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: alice });
      const byReference = await t.request('GET', `/api/v1/agreements/${created.body.agr_reference}`, { token: alice });
      const byLowercase = await t.request('GET', `/api/v1/agreements/${created.body.agr_reference.toLowerCase()}`, { token: alice });
      for (const response of [byId, byReference, byLowercase]) {
        expect(response.status).toBe(200);
        expect(response.body).toEqual(created.body);
      }
    });

    it('answers 404 for an unknown id and for garbage', async () => {
      const unknown = await t.request('GET', `/api/v1/agreements/${UNKNOWN_ID}`, { token: alice });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: expect.any(String), error_code: 'not_found' });
      const unknownReference = await t.request('GET', '/api/v1/agreements/AGR-0000-0000', { token: alice });
      expect(unknownReference.status).toBe(404);
      const garbage = await t.request('GET', '/api/v1/agreements/not-a-record', { token: alice });
      expect(garbage.status).toBe(404);
      expect(garbage.body.error_code).toBe('not_found');
    });

    it('hides a record outside the caller\'s identity graph as 404, not 403', async () => {
      const created = await create(alice);
      for (const key of [created.body.id, created.body.agr_reference]) {
        const response = await t.request('GET', `/api/v1/agreements/${key}`, { token: mallory });
        expect(response.status).toBe(404);
        expect(response.body.error_code).toBe('not_found');
      }
    });

    it('lets an invited party read the record, with only his own contact value', async () => {
      const created = await create(alice, {
        parties: [
          { display_name: 'Bob', contact_point_value: 'bob@example.com' },
          { display_name: 'Carol', contact_point_value: 'carol@example.com' },
        ],
      });
      const asBob = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: bob });
      expect(asBob.status).toBe(200);
      const values = Object.fromEntries((asBob.body.parties as Party[]).map((p) => [p.display_name ?? p.role, p.contact_point_value]));
      expect(asBob.body.parties.map((p: Party) => p.role)).toEqual(['initiator', 'party', 'party']);
      expect(values).toEqual({ initiator: null, Bob: 'bob@example.com', Carol: null });
      expect(JSON.stringify(asBob.body)).not.toContain('alice@example.com');
      expect(JSON.stringify(asBob.body)).not.toContain('carol@example.com');

      const asAlice = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: alice });
      expect(asAlice.body.parties.map((p: Party) => p.contact_point_value)).toEqual([
        'alice@example.com',
        'bob@example.com',
        'carol@example.com',
      ]);
    });
  });

  describe('editing a draft', () => {
    it('changes title, summary and parties without a new version', async () => {
      const created = await create(alice);
      const patched = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, {
        token: alice,
        body: {
          title: 'Garden and shed',
          summary: 'Now with the shed',
          parties: [{ display_name: 'Dave', contact_point_value: 'Dave@Example.com' }],
        },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        id: created.body.id,
        title: 'Garden and shed',
        summary: 'Now with the shed',
        current_version: 1,
        body_hash: created.body.body_hash,
      });
      expect(patched.body.parties.map((p: Party) => [p.role, p.display_name, p.contact_point_value])).toEqual([
        ['initiator', null, 'alice@example.com'],
        ['party', 'Dave', 'dave@example.com'],
      ]);
      const reread = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: alice });
      expect(reread.body).toEqual(patched.body);
      // Bob was replaced: the record left his identity graph.
      expect((await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: bob })).status).toBe(404);
    });

    it('starts a new version when the body changes, and not for a whitespace-only change', async () => {
      const created = await create(alice);
      const newBody = 'We agree to share the garden and the shed, and to water it daily.';
      const changed = await t.request('PATCH', `/api/v1/agreements/${created.body.agr_reference}`, { token: alice, body: { body: newBody } });
      expect(changed.status).toBe(200);
      expect(changed.body.current_version).toBe(2);
      expect(changed.body.body).toBe(newBody);
      expect(changed.body.body_hash).toBe(expectedHash(newBody));
      expect(changed.body.body_hash).not.toBe(created.body.body_hash);
      expect(changed.body.initiator_signature).toMatchObject({ status: 'not_started' });

      const same = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: alice, body: { body: `  ${newBody.replace(/ /g, '  ')} ` } });
      expect(same.status).toBe(200);
      expect(same.body.current_version).toBe(2);
      expect(same.body.body_hash).toBe(changed.body.body_hash);
    });

    it('lets only the initiator edit: a party gets 403, a stranger 404', async () => {
      const created = await create(alice);
      const asBob = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: bob, body: { title: 'Mine now' } });
      expect(asBob.status).toBe(403);
      expect(asBob.body.error_code).toBe('forbidden');
      const asMallory = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: mallory, body: { title: 'Mine now' } });
      expect(asMallory.status).toBe(404);
      const reread = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: alice });
      expect(reread.body.title).toBe('Garden sharing');
    });

    it('refuses a body that breaks the limits, naming the field', async () => {
      const created = await create(alice);
      const tooShort = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: alice, body: { body: 'short' } });
      expect(tooShort.status).toBe(422);
      expect(locs(tooShort)).toContainEqual(['body', 'body']);
      const oneWord = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: alice, body: { body: 'Supercalifragilistic' } });
      expect(oneWord.status).toBe(422);
      expect(locs(oneWord)).toContainEqual(['body', 'body']);
      const unchanged = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: alice });
      expect(unchanged.body).toEqual(created.body);
    });

    it('refuses an empty edit and an unknown record', async () => {
      const created = await create(alice);
      const empty = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: alice, body: {} });
      expect(empty.status).toBe(422);
      const unknown = await t.request('PATCH', `/api/v1/agreements/${UNKNOWN_ID}`, { token: alice, body: { title: 'x' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error_code).toBe('not_found');
    });
  });

  describe('listing the identity\'s records', () => {
    let pager: string;
    const created: { id: string; agr_reference: string; type: string }[] = [];

    beforeAll(async () => {
      pager = await t.signIn('pager@example.com');
      const types = ['agreement', 'declaration', 'agreement', 'notarization', 'agreement'];
      for (const [index, type] of types.entries()) {
        const response = await create(pager, {
          type,
          title: `Record ${index}`,
          parties: type === 'agreement' ? [{ display_name: 'Bob', contact_point_value: 'bob@example.com' }] : [],
        });
        expect(response.status).toBe(201);
        created.push(response.body);
      }
    });

    const list = (token: string, query = '') => t.request('GET', `/api/v1/identity/agreements${query}`, { token });

    it('pages newest first with limit and offset', async () => {
      const pages = [];
      for (const offset of [0, 2, 4]) {
        const page = await list(pager, `?limit=2&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(page.body).toMatchObject({ total: 5, limit: 2, offset });
        pages.push(page.body.agreements.map((r: { id: string }) => r.id));
      }
      expect(pages.map((ids) => ids.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual([...created].reverse().map((r) => r.id));

      const all = await list(pager);
      expect(all.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
      expectFullRecords(all.body.agreements);
      const beyond = await list(pager, '?offset=10');
      expect(beyond.body).toMatchObject({ agreements: [], total: 5, offset: 10 });
    });

    function expectFullRecords(records: Record<string, unknown>[]) {
      for (const record of records) {
        expect(record).toEqual(expect.objectContaining({ id: expect.any(String), body_hash: expect.any(String), parties: expect.any(Array) }));
        expect(JSON.stringify(record)).not.toContain('svg_data_uri');
      }
    }

    it('filters by status and type', async () => {
      const drafts = await list(pager, '?status=draft');
      expect(drafts.body.total).toBe(5);
      const sealed = await list(pager, '?status=sealed');
      expect(sealed.body).toMatchObject({ agreements: [], total: 0 });
      const agreements = await list(pager, '?type=agreement');
      expect(agreements.body.total).toBe(3);
      expect(agreements.body.agreements.map((r: { type: string }) => r.type)).toEqual(['agreement', 'agreement', 'agreement']);
      const both = await list(pager, '?type=notarization&status=draft');
      expect(both.body.agreements.map((r: { id: string }) => r.id)).toEqual([created[3]!.id]);
    });

    it.each([
      ['?limit=0', ['query', 'limit']],
      ['?limit=101', ['query', 'limit']],
      ['?limit=abc', ['query', 'limit']],
      ['?offset=-1', ['query', 'offset']],
      ['?offset=2147483648', ['query', 'offset']],
      [`?status=${'x'.repeat(65)}`, ['query', 'status']],
      ['?status=finished', ['query', 'status']],
      ['?status=DRAFT', ['query', 'status']],
      ['?type=contract', ['query', 'type']],
    ])('refuses %s with 422 naming the parameter', async (query, loc) => {
      const response = await list(pager, query);
      expect(response.status).toBe(422);
      expect(locs(response)).toContainEqual(loc);
    });

    it("GraphQL's string filters accept any string: one that is no status or type matches no record", async () => {
      const graph = await t.graphql('query { myRecords(status: "finished") { total } }', {}, { token: pager });
      expect(graph.body).toEqual({ data: { myRecords: { total: 0 } } });
    });

    it('accepts the limit bounds 1 and 100', async () => {
      expect((await list(pager, '?limit=1')).body.agreements).toHaveLength(1);
      expect((await list(pager, '?limit=100')).body).toMatchObject({ total: 5, limit: 100 });
    });

    it('includes the records where the caller is an invited party', async () => {
      const page = await list(bob, '?limit=100');
      expect(page.status).toBe(200);
      const ids = page.body.agreements.map((r: { id: string }) => r.id);
      for (const record of created.filter((r) => r.type === 'agreement')) expect(ids).toContain(record.id);
      for (const record of created.filter((r) => r.type !== 'agreement')) expect(ids).not.toContain(record.id);
      expect(page.body.total).toBe(ids.length);
      const stranger = await list(mallory, '?limit=100');
      expect(stranger.body.agreements.map((r: { id: string }) => r.id)).not.toContain(created[0]!.id);
    });
  });
});

describe('Records over GraphQL', () => {
  let alice: string;
  let bob: string;
  let mallory: string;

  const RECORD = 'id agrReference type status title body bodyHash currentVersion initiatedVia parties { role displayName contactPointValue }';

  beforeAll(async () => {
    alice = await t.signIn('gql-alice@example.com');
    bob = await t.signIn('gql-bob@example.com');
    mallory = await t.signIn('gql-mallory@example.com');
  });

  const createAgreement = (token: string, input: Record<string, unknown> = {}) =>
    t.graphql<{ createAgreement: Record<string, any> }>(
      `mutation($input: CreateAgreementInput!) { createAgreement(input: $input) { ${RECORD} } }`,
      {
        input: {
          title: 'Bike loan',
          body: 'I lend my bike to Bob for the whole summer, and he returns it clean.',
          onChainFullText: false,
          onChainIncludeVerifiedParties: false,
          parties: [{ displayName: 'Bob', contactPointValue: 'gql-bob@example.com' }],
          ...input,
        },
      },
      { token },
    );

  it('creates, reads, lists and updates a record', async () => {
    const created = await createAgreement(alice);
    expect(created.body.errors).toBeUndefined();
    const record = created.body.data!.createAgreement;
    expect(record).toMatchObject({
      agrReference: expect.stringMatching(REFERENCE),
      type: 'agreement',
      status: 'draft',
      currentVersion: 1,
      initiatedVia: 'graphql',
      bodyHash: expectedHash('I lend my bike to Bob for the whole summer, and he returns it clean.'),
    });

    for (const id of [record.id, record.agrReference, record.agrReference.toLowerCase()]) {
      const read = await t.graphql(`query($id: String!) { record(id: $id) { ${RECORD} } }`, { id }, { token: alice });
      expect(read.body).toEqual({ data: { record } });
    }

    const asBob = await t.graphql<{ record: Record<string, any> }>(
      `query($id: String!) { record(id: $id) { ${RECORD} } }`,
      { id: record.id },
      { token: bob },
    );
    expect(asBob.body.data!.record.parties).toEqual([
      { role: 'initiator', displayName: null, contactPointValue: null },
      { role: 'party', displayName: 'Bob', contactPointValue: 'gql-bob@example.com' },
    ]);

    const mine = await t.graphql('{ myRecords(limit: 10, offset: 0) { total limit offset records { agrReference } } }', {}, { token: alice });
    expect(mine.body.data).toEqual({ myRecords: { total: 1, limit: 10, offset: 0, records: [{ agrReference: record.agrReference }] } });
    const bobs = await t.graphql('{ myRecords { total records { agrReference } } }', {}, { token: bob });
    expect(bobs.body.data.myRecords.records).toContainEqual({ agrReference: record.agrReference });

    const newBody = 'I lend my bike to Bob for the whole summer; he returns it clean and oiled.';
    const updated = await t.graphql<{ updateAgreement: Record<string, any> }>(
      `mutation($id: String!, $input: UpdateAgreementInput!) { updateAgreement(id: $id, input: $input) { ${RECORD} } }`,
      { id: record.agrReference, input: { title: 'Bike loan (summer)', body: newBody } },
      { token: alice },
    );
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data!.updateAgreement).toMatchObject({
      id: record.id,
      title: 'Bike loan (summer)',
      currentVersion: 2,
      bodyHash: expectedHash(newBody),
    });
  });

  it('pages myRecords newest first', async () => {
    const pager = await t.signIn('gql-pager@example.com');
    const references: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await createAgreement(pager, { title: `Loan ${i}` });
      references.push(created.body.data!.createAgreement.agrReference);
    }
    const query = 'query($offset: Int) { myRecords(limit: 2, offset: $offset) { total records { agrReference } } }';
    const first = await t.graphql(query, { offset: 0 }, { token: pager });
    const second = await t.graphql(query, { offset: 2 }, { token: pager });
    expect(first.body.data.myRecords.total).toBe(3);
    expect([...first.body.data.myRecords.records, ...second.body.data.myRecords.records].map((r: { agrReference: string }) => r.agrReference)).toEqual(
      [...references].reverse(),
    );
  });

  it('carries error codes in extensions', async () => {
    const created = await createAgreement(alice);
    const id = created.body.data!.createAgreement.id as string;

    const missing = await t.graphql('query($id: String!) { record(id: $id) { id } }', { id: UNKNOWN_ID }, { token: alice });
    expect(missing.body.errors![0].extensions.code).toBe('not_found');
    const hidden = await t.graphql('query($id: String!) { record(id: $id) { id } }', { id }, { token: mallory });
    expect(hidden.body.errors![0].extensions.code).toBe('not_found');

    const invalid = await createAgreement(alice, {
      body: 'tiny',
      parties: [{ displayName: '', contactPointValue: 'not-an-email' }],
    });
    expect(invalid.body.data).toBeNull();
    expect(invalid.body.errors![0].extensions).toMatchObject({ code: 'validation_error' });
    const paths = (invalid.body.errors![0].extensions.issues as { path: unknown[] }[]).map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([['body'], ['parties', 0, 'displayName'], ['parties', 0, 'contactPointValue']]),
    );

    const badPage = await t.graphql('{ myRecords(limit: 0) { total } }', {}, { token: alice });
    expect(badPage.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [expect.objectContaining({ path: ['limit'] })] });

    const forbidden = await t.graphql(
      'mutation($id: String!) { updateAgreement(id: $id, input: { title: "Mine" }) { id } }',
      { id },
      { token: bob },
    );
    expect(forbidden.body.errors![0].extensions.code).toBe('forbidden');

    const anonymous = await t.graphql('query($id: String!) { record(id: $id) { id } }', { id });
    expect(anonymous.body.errors![0].extensions.code).toBe('unauthenticated');
    const anonymousCreate = await createAgreement('');
    expect(anonymousCreate.body.errors![0].extensions.code).toBe('unauthenticated');
  });
});
