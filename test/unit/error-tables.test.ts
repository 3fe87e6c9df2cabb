import { DOMAIN_ERROR_CODES, DomainError } from '../../src/domain/shared/errors.js';
import { restError } from '../../src/facade-rest/errors.js';
import { requestGraphError } from '../../src/graph/errors.js';
import { mcpCodeOf } from '../../src/facade-mcp/errors.js';

describe('Error tables: one per transport, keyed by every domain code', () => {
  it.each([...DOMAIN_ERROR_CODES])('REST answers %s with its own status and code, never a masked 500', (code) => {
    const error = restError(code, 'message');
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.status).not.toBe(500);
    expect(error.body.error_code).toBe(code);
  });

  it.each([...DOMAIN_ERROR_CODES])('GraphQL carries %s as extensions.code with a request status', (code) => {
    const error = requestGraphError(new DomainError(code, 'message'));
    expect(error.extensions.code).toBe(code);
    expect((error.extensions.http as { status: number }).status).toBeGreaterThanOrEqual(400);
  });

  it.each([...DOMAIN_ERROR_CODES])('MCP answers %s with an error_code of its own table', (code) => {
    expect(mcpCodeOf(code)).toMatch(/^[a-z_]+$/);
  });

  it('MCP speaks the spec\'s words for authentication and stale state', () => {
    expect(mcpCodeOf('unauthenticated')).toBe('auth_required');
    expect(mcpCodeOf('stale_version')).toBe('conflict');
    expect(mcpCodeOf('invalid_transition')).toBe('conflict');
    expect(mcpCodeOf('missing_scope')).toBe('missing_scope');
    expect(mcpCodeOf('rate_limited')).toBe('rate_limited');
  });

  it('masks an internal error in REST', () => {
    expect(restError('internal_error', 'secret detail').body).toEqual({ detail: 'Internal server error', error_code: 'internal_error' });
  });
});
