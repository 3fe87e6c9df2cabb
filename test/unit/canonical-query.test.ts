import { canonicalQuery } from '../../src/facade-rest/kept-public-answers.js';

/** The listing's kept answers are keyed by the question, not by how its query string was written. */
describe('canonicalQuery', () => {
  it('is the same whatever the order of the parameters', () => {
    expect(canonicalQuery('/api/v1/identity/agreements?offset=20&limit=10&status=sealed')).toBe(
      canonicalQuery('/api/v1/identity/agreements?status=sealed&limit=10&offset=20'),
    );
  });

  it('is the same whatever the percent-encoding', () => {
    expect(canonicalQuery('/x?type=witnessed%5Fagreement&q=a%20b')).toBe(canonicalQuery('/x?q=a+b&type=witnessed_agreement'));
  });

  it('tells different questions apart, and keeps repeated parameters in their order', () => {
    expect(canonicalQuery('/x?limit=10')).not.toBe(canonicalQuery('/x?limit=20'));
    expect(canonicalQuery('/x?status=a&status=b')).not.toBe(canonicalQuery('/x?status=b&status=a'));
    expect(canonicalQuery('/x')).toBe('');
    expect(canonicalQuery('/x?')).toBe('');
  });
});
