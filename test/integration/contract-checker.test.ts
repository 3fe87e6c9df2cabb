import { contractViolation } from '../support/contract.js';

describe('The contract checker used by every e2e request', () => {
  it('reports a response body that breaks its operation schema, and an undeclared status', async () => {
    const url = 'http://127.0.0.1:1/api/v1/agreements/AGR-0000-0000';
    expect(await contractViolation('GET', url, 200, { id: 'not-a-record' })).toMatch(/does not match getAgreement/);
    expect(await contractViolation('GET', url, 418, { detail: 'teapot', error_code: 'teapot' })).toMatch(/status 418 is not declared/);
    expect(await contractViolation('GET', url, 404, { detail: 'Record not found', error_code: 'not_found' })).toBeNull();
  });
});
