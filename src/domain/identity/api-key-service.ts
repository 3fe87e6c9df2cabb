import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { requireAccess, type TeamOperation } from './operation-access.js';
import { requireTeamRole } from '../teams/team-access.js';
import { appendTeamActivity } from '../teams/team-activity.js';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { optionalLine } from '../shared/unicode.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { ApiKey } from './entities.js';
import { isUuid } from '../shared/ids.js';
import { API_KEY_SCOPES, type Principal, type Scope } from './principal.js';
import { API_KEY_PREFIX } from './session-service.js';

/** Longest API key name (characters, after normalization). */
export const API_KEY_NAME_MAX = 100;

export type CreateApiKeyInput = {
  scopes: string[];
  name?: string | null;
  expiresAt?: Date | null;
};

/** Scoped machine credentials. Managed with a bearer session only; the full key is shown once. */
export class ApiKeyService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      /** Called once a key is revoked: every instance stops reusing its resolved principal. */
      credentialsChanged: () => Promise<void>;
    },
  ) {}

  /** The caller's keys, or with `teamId` the team's (its admins manage them). */
  async list(principal: Principal | null, teamId?: string): Promise<ApiKey[]> {
    const caller = requireAccess(principal, teamId === undefined ? 'identity.listApiKeys' : 'teams.listApiKeys');
    const em = this.deps.orm.em.fork();
    const owner = teamId === undefined ? caller.identityId : await this.team(em, caller, teamId, 'teams.listApiKeys');
    return em.find(
      ApiKey,
      // Every key not revoked, as the contract says: an expired one too, showing its expires_at.
      { identity: owner, revokedAt: null },
      { orderBy: { createdAt: 'desc' } },
    );
  }

  /** A key of the caller's, or with `teamId` of the team's: it acts for the team and outlives whoever made it. */
  async create(principal: Principal | null, input: CreateApiKeyInput, teamId?: string): Promise<{ apiKey: ApiKey; key: string }> {
    const caller = requireAccess(principal, teamId === undefined ? 'identity.createApiKey' : 'teams.createApiKey');
    const now = this.deps.clock.now();
    const issues = new IssueCollector();
    const scopes = input.scopes ?? [];
    if (scopes.length === 0) issues.add(['scopes'], 'Give at least one scope', 'too_short');
    scopes.forEach((scope, index) => {
      if (scope === 'offline_access') {
        issues.add(['scopes', index], "'offline_access' is for OAuth connectors only and cannot be given to an API key", 'scope_not_allowed');
      } else if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
        issues.add(['scopes', index], `Scope must be one of ${API_KEY_SCOPES.join(', ')}`, 'invalid_enum');
      }
    });
    if (new Set(scopes).size !== scopes.length) issues.add(['scopes'], 'Scopes must not repeat', 'not_unique');
    const name = optionalLine(issues, input.name, 'name', API_KEY_NAME_MAX);
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      issues.add(['expiresAt'], 'Must be in the future', 'in_past');
    }
    issues.throwIfAny();

    const key = API_KEY_PREFIX + randomToken(32);
    return this.deps.orm.em.fork().transactional(async (em) => {
      const owner = teamId === undefined ? caller.identityId : await this.team(em, caller, teamId, 'teams.createApiKey');
      const apiKey = em.create(ApiKey, {
        identity: owner,
        keyPrefix: key.slice(0, API_KEY_PREFIX.length + 6),
        keyHash: sha256Hex(key),
        name,
        scopes: scopes as Scope[],
        expiresAt: input.expiresAt ?? null,
        createdAt: now,
      });
      await em.flush();
      if (teamId !== undefined)
        await appendTeamActivity(
          em,
          owner,
          caller.identityId,
          'api_key_created',
          {
            api_key_id: apiKey.id,
            key_prefix: apiKey.keyPrefix,
            scopes: apiKey.scopes.join(' '),
          },
          now,
        );
      return { apiKey, key };
    });
  }

  async revoke(principal: Principal | null, keyId: string, teamId?: string): Promise<void> {
    const caller = requireAccess(principal, teamId === undefined ? 'identity.revokeApiKey' : 'teams.revokeApiKey');
    await this.deps.orm.em.fork().transactional(async (em) => {
      const owner = teamId === undefined ? caller.identityId : await this.team(em, caller, teamId, 'teams.revokeApiKey');
      const apiKey = isUuid(keyId)
        ? await em.findOne(ApiKey, {
            id: keyId,
            identity: owner,
            revokedAt: null,
          })
        : null;
      if (!apiKey) throw DomainError.notFound('API key');
      apiKey.revokedAt = this.deps.clock.now();
      await em.flush();
      if (teamId !== undefined) await appendTeamActivity(em, owner, caller.identityId, 'api_key_revoked', { api_key_id: apiKey.id }, apiKey.revokedAt);
    });
    await this.deps.credentialsChanged();
  }

  /** The team whose keys these are: its admins manage them. */
  private async team(em: EntityManager, caller: Principal, teamId: string, operation: TeamOperation): Promise<string> {
    await requireTeamRole(em, caller, teamId, operation);
    return teamId.toLowerCase();
  }
}
