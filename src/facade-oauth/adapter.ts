import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { ConnectorGrants } from '../domain/identity/connector-grants.js';
import type { OAuthPayloadStore } from '../domain/identity/oauth-storage.js';

/** Codes and tokens that work once: a second use is the sign of a stolen one. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken']);

/**
 * oidc-provider's storage port over PostgreSQL (`OAuthPayloadStore`), one instance per model.
 * Two decisions live here rather than in the library: a grant that is destroyed ends its
 * connector (`ConnectorGrants.revokeGrant`), and of two requests racing with one code or refresh
 * token, the one that finds it already consumed is handled as reuse: the whole grant is revoked
 * and the request refused, so at most one of them ever receives tokens that keep working.
 */
export function postgresAdapter(storage: OAuthPayloadStore, grants: ConnectorGrants): new (model: string) => Adapter {
  return class PostgresAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const grantId = this.model === 'Grant' ? id : payload.grantId;
      await storage.upsert(this.model, id, { ...payload, grantId }, expiresIn);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return (await storage.find(this.model, id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await storage.findByUid(this.model, uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return (await storage.findByUserCode(this.model, userCode));
    }

    async consume(id: string): Promise<void> {
      const outcome = await storage.consume(this.model, id);
      if (outcome.consumed || !SINGLE_USE.has(this.model)) return;
      if (outcome.grantId) await grants.revokeGrant(outcome.grantId);
      throw new errors.InvalidGrant(this.model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed');
    }

    async destroy(id: string): Promise<void> {
      if (this.model === 'Grant') await grants.revokeGrant(id);
      else await storage.destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await storage.revokeByGrantId(this.model, grantId);
    }
  };
}
