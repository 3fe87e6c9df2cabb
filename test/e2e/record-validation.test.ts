import { agreementBody, startTestApp, type HttpResult, type TestApp } from '../support/harness.js';

type RecordType = 'agreement' | 'declaration' | 'witnessed_agreement' | 'notarization';
type Loc = (string | number)[];

/**
 * One limit of the spec's Limits table, tried on create and (where patchable) on PATCH of a draft of
 * `type`. `loc` is where the 422 must point; without it the request must succeed.
 */
type LimitCase = {
  name: string;
  type?: RecordType;
  fields: Record<string, unknown>;
  loc?: Loc;
  /** false for fields PATCH does not take or rules only create has (required fields). */
  patch?: boolean;
  /** Also try it on POST /declarations (fields that request has). */
  declaration?: boolean;
};

const INITIATOR = 'limits@example.com';

/** A body of exactly `n` normalized characters and two words. */
const bodyOfLength = (n: number) => `${'a'.repeat(n - 6)} ${'b'.repeat(5)}`;
/** A body of exactly `n` normalized words, the words separated by `separator`. */
const bodyOfWords = (n: number, separator = ' ') => Array.from({ length: n }, () => 'ab').join(separator);
const party = (i: number, overrides: Record<string, unknown> = {}) => ({
  display_name: `Party ${i}`,
  contact_point_value: `party${i}@example.com`,
  ...overrides,
});
const witness = (i: number, overrides: Record<string, unknown> = {}) => ({
  display_name: `Witness ${i}`,
  contact_point_value: `witness${i}@example.com`,
  ...overrides,
});
const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

const CASES: LimitCase[] = [
  // Body: 10..7000 normalized characters, 2..350 normalized words.
  { name: 'a body of exactly 10 characters', fields: { body: bodyOfLength(10) }, declaration: true },
  { name: 'a body of 9 characters', fields: { body: bodyOfLength(9) }, loc: ['body', 'body'], declaration: true },
  { name: 'a body of 10 raw characters that normalize to 9', fields: { body: ` ${bodyOfLength(9)}` }, loc: ['body', 'body'] },
  { name: 'a body long only because of whitespace', fields: { body: `ab${' '.repeat(20)}cd` }, loc: ['body', 'body'], declaration: true },
  { name: 'a whitespace-padded body of 10 normalized characters', fields: { body: `  aaaa \n\n\t bbbbb  ` } },
  { name: 'a body of exactly 7000 characters', fields: { body: bodyOfLength(7000) }, declaration: true },
  { name: 'a body of 7001 characters', fields: { body: bodyOfLength(7001) }, loc: ['body', 'body'], declaration: true },
  { name: 'a body of exactly 350 words', fields: { body: bodyOfWords(350) }, declaration: true },
  { name: 'a body of 350 words separated by whitespace runs', fields: { body: bodyOfWords(350, ' \n\t ') } },
  { name: 'a body of 351 words', fields: { body: bodyOfWords(351) }, loc: ['body', 'body'], declaration: true },
  { name: 'a body of one long word', fields: { body: 'Supercalifragilistic' }, loc: ['body', 'body'], declaration: true },
  { name: 'a null body', fields: { body: null }, loc: ['body', 'body'] },
  { name: 'a missing body', fields: { body: undefined }, loc: ['body', 'body'], patch: false },

  // Title 200, summary 500.
  { name: 'a title of 200 characters', fields: { title: 't'.repeat(200) }, declaration: true },
  { name: 'a title of 201 characters', fields: { title: 't'.repeat(201) }, loc: ['body', 'title'], declaration: true },
  { name: 'a null title', fields: { title: null } },
  { name: 'a summary of 500 characters', fields: { summary: 's'.repeat(500) }, declaration: true },
  { name: 'a summary of 501 characters', fields: { summary: 's'.repeat(501) }, loc: ['body', 'summary'], declaration: true },

  // 14 non-initiator parties, 5 witnesses.
  { name: '14 parties', fields: { parties: many(14, (i) => party(i)) } },
  { name: '15 parties', fields: { parties: many(15, (i) => party(i)) }, loc: ['body', 'parties'] },
  { name: '5 witnesses', type: 'witnessed_agreement', fields: { witnesses: many(5, (i) => witness(i)) }, declaration: true },
  {
    name: '6 witnesses',
    type: 'witnessed_agreement',
    fields: { witnesses: many(6, (i) => witness(i)) },
    loc: ['body', 'witnesses'],
    declaration: true,
  },

  // display_name 1..50.
  { name: 'a display name of 1 character', fields: { parties: [party(0, { display_name: 'B' })] } },
  { name: 'a display name of 50 characters', fields: { parties: [party(0, { display_name: 'B'.repeat(50) })] } },
  { name: 'an empty display name', fields: { parties: [party(0, { display_name: '' })] }, loc: ['body', 'parties', 0, 'display_name'] },
  { name: 'a blank display name', fields: { parties: [party(0, { display_name: '   ' })] }, loc: ['body', 'parties', 0, 'display_name'] },
  {
    name: 'a display name of 51 characters',
    fields: { parties: [party(0), party(1, { display_name: 'B'.repeat(51) })] },
    loc: ['body', 'parties', 1, 'display_name'],
  },
  {
    name: "a witness's display name of 51 characters",
    type: 'witnessed_agreement',
    fields: { witnesses: [witness(0, { display_name: 'W'.repeat(51) })] },
    loc: ['body', 'witnesses', 0, 'display_name'],
    declaration: true,
  },
  { name: 'a missing display name', fields: { parties: [{ contact_point_value: 'x@example.com' }] }, loc: ['body', 'parties', 0, 'display_name'] },

  // Contact points: valid, distinct, not the initiator's.
  {
    name: 'an invalid email',
    fields: { parties: [party(0, { contact_point_value: 'not-an-email' })] },
    loc: ['body', 'parties', 0, 'contact_point_value'],
  },
  { name: 'duplicate party emails', fields: { parties: [party(0), party(1, { contact_point_value: 'party0@example.com' })] }, loc: ['body', 'parties'] },
  {
    name: 'party emails that differ only in case',
    fields: { parties: [party(0), party(1, { contact_point_value: 'Party0@Example.COM' })] },
    loc: ['body', 'parties'],
  },
  { name: "the initiator's own email as a party", fields: { parties: [party(0, { contact_point_value: INITIATOR })] }, loc: ['body', 'parties'] },
  {
    name: "the initiator's own email in another case as a party",
    fields: { parties: [party(0, { contact_point_value: 'Limits@Example.com' })] },
    loc: ['body', 'parties'],
  },
  {
    name: "the initiator's own email as a witness",
    type: 'witnessed_agreement',
    fields: { witnesses: [witness(0, { contact_point_value: INITIATOR })] },
    loc: ['body', 'witnesses'],
  },
  {
    name: 'a witness who is also a party',
    type: 'witnessed_agreement',
    fields: { parties: [party(0)], witnesses: [witness(0, { contact_point_value: 'party0@example.com' })] },
    loc: ['body', 'witnesses'],
  },

  // Roles by type.
  { name: 'a declaration with parties', type: 'declaration', fields: { parties: [party(0)] }, loc: ['body', 'parties'] },
  { name: 'an agreement with witnesses', type: 'agreement', fields: { witnesses: [witness(0)] }, loc: ['body', 'witnesses'] },
  { name: 'a notarization with witnesses', type: 'notarization', fields: { witnesses: [witness(0)] }, loc: ['body', 'witnesses'] },
  { name: 'an unknown type', fields: { type: 'contract' }, loc: ['body', 'type'], patch: false },

  // lapse_days 1..30.
  { name: 'lapse_days 1', fields: { lapse_days: 1 }, declaration: true },
  { name: 'lapse_days 30', fields: { lapse_days: 30 }, declaration: true },
  { name: 'lapse_days null', fields: { lapse_days: null } },
  { name: 'lapse_days 0', fields: { lapse_days: 0 }, loc: ['body', 'lapse_days'], declaration: true },
  { name: 'lapse_days 31', fields: { lapse_days: 31 }, loc: ['body', 'lapse_days'], declaration: true },
  { name: 'lapse_days 1.5', fields: { lapse_days: 1.5 }, loc: ['body', 'lapse_days'] },

  // required_signature_method_count 1, 2 or 3.
  ...[1, 2, 3].map((count) => ({ name: `required_signature_method_count ${count}`, fields: { required_signature_method_count: count }, declaration: true })),
  ...[0, 4].map((count) => ({
    name: `required_signature_method_count ${count}`,
    fields: { required_signature_method_count: count },
    loc: ['body', 'required_signature_method_count'],
    declaration: true,
  })),

  // The two on-chain flags are required booleans.
  { name: 'a missing on_chain_full_text', fields: { on_chain_full_text: undefined }, loc: ['body', 'on_chain_full_text'], patch: false, declaration: true },
  {
    name: 'a missing on_chain_include_verified_parties',
    fields: { on_chain_include_verified_parties: undefined },
    loc: ['body', 'on_chain_include_verified_parties'],
    patch: false,
    declaration: true,
  },
  { name: 'a null on_chain_full_text', fields: { on_chain_full_text: null }, loc: ['body', 'on_chain_full_text'] },
];

/** The request body for creating a record of the case's type through POST /agreements. */
function createBody({ type = 'agreement', fields }: LimitCase): Record<string, unknown> {
  const noParties = type === 'declaration' || type === 'notarization';
  const witnesses = type === 'witnessed_agreement' ? { witnesses: [witness(9)] } : {};
  return agreementBody({ type, ...(noParties ? { parties: [] } : {}), ...witnesses, ...fields });
}

function declarationBody({ fields }: LimitCase): Record<string, unknown> {
  const { title, body, on_chain_full_text, on_chain_include_verified_parties } = agreementBody();
  return { title, body, on_chain_full_text, on_chain_include_verified_parties, ...fields };
}

/** Without the `type` (PATCH cannot change it) and without undefined fields. */
function patchBody({ fields }: LimitCase): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => key !== 'type'));
}

/** The 422 is an HTTPValidationError with an item whose loc starts with `loc` (which always names the field). */
function expectValidationError(response: HttpResult, loc: Loc): void {
  expect(response.status).toBe(422);
  expect(response.body).toEqual({
    detail: expect.arrayContaining([{ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) }]),
  });
  const locs = (response.body.detail as { loc: Loc }[]).map((item) => item.loc);
  const matching = locs.filter((actual) => loc.every((part, index) => actual[index] === part));
  if (matching.length === 0) throw new Error(`no detail item at ${JSON.stringify(loc)}; got ${JSON.stringify(locs)}`);
}

const rejected = CASES.filter((c) => c.loc);
const accepted = CASES.filter((c) => !c.loc);
const patchable = (cases: LimitCase[]) => cases.filter((c) => c.patch !== false);
const forDeclarations = (cases: LimitCase[]) => cases.filter((c) => c.declaration);

describe('Record limits', () => {
  let t: TestApp;
  let token: string;
  /** One draft per type, edited by the PATCH cases. */
  const drafts = {} as Record<RecordType, string>;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.signIn(INITIATOR);
    for (const type of ['agreement', 'declaration', 'witnessed_agreement', 'notarization'] as const) {
      const created = await t.request('POST', '/api/v1/agreements', { token, body: createBody({ name: type, type, fields: {} }) });
      expect(created.status).toBe(201);
      drafts[type] = created.body.id;
    }
  });
  afterAll(async () => {
    await t.stop();
  });

  const listTotal = async (): Promise<number> => {
    const list = await t.request('GET', '/api/v1/identity/agreements', { token });
    expect(list.status).toBe(200);
    return list.body.total;
  };

  describe('POST /agreements', () => {
    it.each(accepted.map((c) => [c.name, c]))('accepts %s', async (_name, c) => {
      const response = await t.request('POST', '/api/v1/agreements', { token, body: createBody(c) });
      expect(response.status).toBe(201);
      expect(response.body.type).toBe(c.type ?? 'agreement');
    });

    it.each(rejected.map((c) => [c.name, c]))('refuses %s', async (_name, c) => {
      const response = await t.request('POST', '/api/v1/agreements', { token, body: createBody(c) });
      expectValidationError(response, c.loc!);
    });

    it('leaves nothing behind when it refuses a record', async () => {
      const before = await listTotal();
      for (const c of rejected) {
        expect((await t.request('POST', '/api/v1/agreements', { token, body: createBody(c) })).status).toBe(422);
      }
      expect(await listTotal()).toBe(before);
    });
  });

  describe('POST /declarations', () => {
    it.each(forDeclarations(accepted).map((c) => [c.name, c]))('accepts %s', async (_name, c) => {
      const response = await t.request('POST', '/api/v1/declarations', { token, body: declarationBody(c) });
      expect(response.status).toBe(201);
      expect(response.body.type).toBe('declaration');
    });

    it.each(forDeclarations(rejected).map((c) => [c.name, c]))('refuses %s', async (_name, c) => {
      const response = await t.request('POST', '/api/v1/declarations', { token, body: declarationBody(c) });
      expectValidationError(response, c.loc!);
    });
  });

  describe('the 7000-character limit counts normalized characters', () => {
    // 7001 raw characters, 7000 after collapsing the double space.
    const padded = `${'a'.repeat(6994)}  ${'b'.repeat(5)}`;

    it('over GraphQL, a body padded with whitespace beyond 7000 raw characters is accepted', async () => {
      const response = await t.graphql(
        'mutation($input: CreateAgreementInput!) { createAgreement(input: $input) { bodyHash } }',
        { input: { body: padded, onChainFullText: false, onChainIncludeVerifiedParties: false } },
        { token },
      );
      expect(response.body.errors).toBeUndefined();
    });

    it('over REST, the same padded body is accepted', async () => {
      const response = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ body: padded }) });
      expect(response.status).toBe(201);
    });
  });

  describe('PATCH /agreements/{id} of a draft', () => {
    it.each(patchable(accepted).map((c) => [c.name, c]))('accepts %s', async (_name, c) => {
      const response = await t.request('PATCH', `/api/v1/agreements/${drafts[c.type ?? 'agreement']}`, { token, body: patchBody(c) });
      expect(response.status).toBe(200);
    });

    it.each(patchable(rejected).map((c) => [c.name, c]))('refuses %s and leaves the draft as it was', async (_name, c) => {
      const path = `/api/v1/agreements/${drafts[c.type ?? 'agreement']}`;
      const before = await t.request('GET', path, { token });
      const response = await t.request('PATCH', path, { token, body: patchBody(c) });
      expectValidationError(response, c.loc!);
      expect((await t.request('GET', path, { token })).body).toEqual(before.body);
    });
  });
});
