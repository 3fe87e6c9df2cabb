import { CredentialResolverChain, type CredentialResolver } from '../../src/domain/identity/credential-resolver.js';
import { requireSession, SESSION_SCOPES, type Principal } from '../../src/domain/identity/principal.js';
import { OPERATION_ACCESS, requireAccess, type ScopedOperation } from '../../src/domain/identity/operation-access.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const oauth: Principal = { kind: 'oauth', identityId: 'i1', scopes: ['retrieve'], grantId: 'g1', clientId: 'c1', offlineAccess: false };
const mcp: Principal = { kind: 'mcp_session', identityId: 'i1', scopes: ['retrieve'], mcpSessionId: 'm1', grantId: 'g1', sessionBound: true };
const session: Principal = { kind: 'session', identityId: 'i1', scopes: SESSION_SCOPES, tokenId: 't1', contactPointId: 'p1' };

/** A connector's resolver as the OAuth issue will add it: bearer tokens of its own prefix. */
const connectorResolver: CredentialResolver = {
  name: 'oauth',
  resolve: async (credential) => (credential.kind === 'bearer' && credential.token.startsWith('oauth_') ? oauth : null),
};
const refusing: CredentialResolver = { name: 'session', resolve: async () => null };

const codeOf = async (promise: Promise<unknown>) => promise.then(() => 'none', (error: unknown) => (error instanceof DomainError ? error.code : 'other'));

describe('Principals and the credential-resolver chain', () => {
  it('is anonymous only when nothing is presented', async () => {
    await expect(new CredentialResolverChain([connectorResolver]).authenticate({})).resolves.toBeNull();
  });

  it('asks each resolver in turn; the first that recognises the credential answers', async () => {
    await expect(new CredentialResolverChain([refusing, connectorResolver]).authenticate({ bearer: 'oauth_abc' })).resolves.toBe(oauth);
  });

  it('refuses a presented credential no resolver accepts, never treating it as anonymous', async () => {
    expect(await codeOf(new CredentialResolverChain([refusing, connectorResolver]).authenticate({ bearer: 'rss_at_x' }))).toBe('unauthenticated');
    expect(await codeOf(new CredentialResolverChain([refusing]).authenticate({ apiKey: 'rss_key_x' }))).toBe('unauthenticated');
  });

  it('checks every kind against its own scopes: no kind holds scopes it does not carry', () => {
    for (const principal of [oauth, mcp]) {
      expect(requireAccess(principal, 'records.get')).toBe(principal);
      expect(() => requireAccess(principal, 'records.createAgreement')).toThrow(expect.objectContaining({ code: 'missing_scope', details: { requiredScopes: ['create'] } }));
    }
    const scoped = (Object.keys(OPERATION_ACCESS) as (keyof typeof OPERATION_ACCESS)[]).filter((name) => !['public', 'session'].includes(OPERATION_ACCESS[name]));
    for (const operation of scoped) expect(requireAccess(session, operation as ScopedOperation)).toBe(session);
  });

  it('keeps session-only operations for sessions', () => {
    expect(requireSession(session)).toBe(session);
    for (const principal of [oauth, mcp]) expect(() => requireSession(principal)).toThrow(expect.objectContaining({ code: 'bearer_required' }));
  });
});
