import { startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

const LEASE = {
  name: 'Garden lease',
  title: 'Lease of {{plot}}',
  body: 'The tenant {{tenant_name}} leases the garden plot {{plot}} from the owner for {{months}} months, and keeps it tidy and watered throughout.',
  fields: [
    { name: 'tenant_name', label: 'Tenant name', max_length: 50 },
    { name: 'plot', label: 'Plot number', max_length: 10 },
    { name: 'months', label: 'Months' },
  ],
  parties: [{ label: 'Tenant' }, { label: 'Guarantor' }],
  defaults: { required_signature_method_count: 1, lapse_days: 14, signing_order: 'sequential' },
};

describe('Templates', () => {
  let t: TestApp;
  let owner: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.signIn('landlord@garden.example');
  });
  afterAll(async () => t?.stop());

  it('makes a record from a template with three placeholders and two party roles, which is signed by all and sealed', async () => {
    const created = await t.request('POST', '/api/v1/templates', { token: owner, body: LEASE });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Garden lease', record_type: 'agreement', version: 1, team_id: null, fields: [{ name: 'tenant_name', required: true }, { name: 'plot' }, { name: 'months' }] });
    const templateId = created.body.id as string;

    const made = await t.request('POST', `/api/v1/templates/${templateId}/records`, {
      token: owner,
      body: {
        values: { tenant_name: 'Tess Tenant', plot: 'B-12', months: '6' },
        parties: [
          { display_name: 'Tess Tenant', contact_point_value: 'tess@garden.example' },
          { display_name: 'Gus Guarantor', contact_point_value: 'gus@garden.example' },
        ],
      },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      title: 'Lease of B-12',
      body: 'The tenant Tess Tenant leases the garden plot B-12 from the owner for 6 months, and keeps it tidy and watered throughout.',
      template: { id: templateId, version: 1 },
      lapse_days: 14,
      signing_order: 'sequential',
      status: 'draft',
    });
    const id = made.body.id as string;

    expect((await signWithEmailOtp(t, owner, 'landlord@garden.example', id)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: owner })).status).toBe(200);
    for (const email of ['tess@garden.example', 'gus@garden.example']) {
      const signer = await t.signIn(email);
      expect((await signWithEmailOtp(t, signer, email, id)).status).toBe(200);
    }
    expect((await t.request('GET', `/api/v1/agreements/${id}`, { token: owner })).body.status).toBe('sealed');

    // A new version of the template never changes what was made from it.
    const changed = await t.request('PATCH', `/api/v1/templates/${templateId}`, { token: owner, body: { title: 'Garden lease of {{plot}}' } });
    expect(changed.body.version).toBe(2);
    expect((await t.request('GET', `/api/v1/agreements/${id}`, { token: owner })).body).toMatchObject({ title: 'Lease of B-12', template: { id: templateId, version: 1 } });
  });

  it('refuses unknown and missing values, the wrong number of parties, and a filled text the record rules refuse, naming the field', async () => {
    const templateId = (await t.request('POST', '/api/v1/templates', { token: owner, body: LEASE })).body.id as string;
    const parties = [
      { display_name: 'Tess', contact_point_value: 'tess@garden.example' },
      { display_name: 'Gus', contact_point_value: 'gus@garden.example' },
    ];
    const refused = await t.request('POST', `/api/v1/templates/${templateId}/records`, { token: owner, body: { values: { tenant_name: 'Tess', colour: 'green' }, parties } });
    expect(refused.status).toBe(422);
    const paths = refused.body.detail.map((issue: { loc: (string | number)[] }) => issue.loc.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['body.values.colour', 'body.values.plot', 'body.values.months']));

    const tooLong = await t.request('POST', `/api/v1/templates/${templateId}/records`, { token: owner, body: { values: { tenant_name: 'T'.repeat(51), plot: 'B', months: '6' }, parties } });
    expect(tooLong.status).toBe(422);
    expect(JSON.stringify(tooLong.body)).toContain('tenant_name');

    const oneParty = await t.request('POST', `/api/v1/templates/${templateId}/records`, { token: owner, body: { values: { tenant_name: 'T', plot: 'B', months: '6' }, parties: parties.slice(0, 1) } });
    expect(oneParty.status).toBe(422);
  });

  it('refuses a template whose placeholders and fields disagree', async () => {
    const undeclared = await t.request('POST', '/api/v1/templates', { token: owner, body: { ...LEASE, fields: LEASE.fields.slice(0, 2) } });
    expect(undeclared.status).toBe(422);
    expect(JSON.stringify(undeclared.body)).toContain('{{months}} is used but not declared');
    const malformed = await t.request('POST', '/api/v1/templates', { token: owner, body: { ...LEASE, body: `${LEASE.body} Signed on {{Date}}.` } });
    expect(malformed.status).toBe(422);
    expect(JSON.stringify(malformed.body)).toContain('{{Date}} is not a placeholder');
  });

  it("nobody uses, reads or changes another person's template", async () => {
    const templateId = (await t.request('POST', '/api/v1/templates', { token: owner, body: LEASE })).body.id as string;
    const stranger = await t.signIn('stranger@elsewhere.example');
    for (const [method, path, body] of [
      ['GET', `/api/v1/templates/${templateId}`],
      ['PATCH', `/api/v1/templates/${templateId}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/templates/${templateId}`],
      ['POST', `/api/v1/templates/${templateId}/records`, { values: {}, parties: [] }],
    ] as [string, string, unknown?][]) {
      expect([path, (await t.request(method, path, { token: stranger, body })).status]).toEqual([path, 404]);
    }
    expect((await t.request('GET', '/api/v1/templates', { token: stranger })).body.templates).toEqual([]);
  });
});
