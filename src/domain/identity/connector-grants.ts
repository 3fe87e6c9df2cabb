import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { API_KEY_SCOPES, CONNECTOR_CONSENT_PURPOSE, CONNECTOR_SCOPES, type ConnectorScope, type TeamRole } from '../vocabulary.js';
import { recordVerifiedContactPoint } from './contact-points.js';
import { Connector } from './connector-entities.js';
import type { OAuthPayloadStore } from './oauth-storage.js';
import type { IssuedOtp, OtpService } from './otp-service.js';
import type { Principal, Scope } from './principal.js';
import { requireAccess } from './operation-access.js';

export { CONNECTOR_SCOPES, type ConnectorScope };

/** The spec's fixed lifetimes of a hosted connector (Limits): one hour per access token, 90 days per grant. */
export const CONNECTOR_ACCESS_TOKEN_TTL_SECONDS = 3600;
export const CONNECTOR_GRANT_TTL_SECONDS = 90 * 86_400;
/** How long after a 403 insufficient_scope the connection's next refresh leads to consent instead (the SDK refreshes at once). */
const STEP_UP_WINDOW_SECONDS = 60;
const STEP_UP_MODEL = 'StepUp';

/** What the consent page asks permission for, as the client asked and the page showed it. */
export type ConsentRequest = {
  clientId: string;
  clientName: string | null;
  redirectOrigin: string;
  scopes: readonly ConnectorScope[];
};

/** How long after the code the person has to choose the connector's teams. */
const TEAM_CHOICE_SECONDS = 15 * 60;

export type GivenConsent = { identityId: string; grantId: string; scopes: ConnectorScope[]; expiresAt: Date };

/** An access token as the authorization server knows it, before the connector behind it is checked. */
export type ConnectorAccessToken = { grantId: string; clientId: string; scopes: readonly string[]; audience: readonly string[] };

/**
 * The rules of hosted assistant connectors (the spec's Authentication 7 and 8): consent is the
 * submission of a code of its own purpose; a connection lasts 90 days from consent and no refresh
 * extends it; disconnecting, or any sign of a stolen code or refresh token, ends it with every
 * token it issued. The OAuth protocol itself is the authorization server's (src/facade-oauth).
 */
export class ConnectorGrants {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      otp: OtpService;
      oauthStorage: OAuthPayloadStore;
      clock: Clock;
    },
  ) {}

  /** Mails the consent code to `email`. */
  requestConsentCode(email: string, client: string | null): Promise<IssuedOtp> {
    return this.deps.otp.requestConnectorConsent(email, client);
  }

  /**
   * The explicit consent: a right code of the consent purpose opens a connection for the identity
   * holding the address. `grantId` is the authorization server's id for the grant it saves after.
   */
  async consent(verificationEventId: string, code: string, request: ConsentRequest, grantId: string, client: string | null): Promise<GivenConsent> {
    const scopes = CONNECTOR_SCOPES.filter((scope) => request.scopes.includes(scope));
    if (scopes.length === 0) throw DomainError.invalid(['scope'], 'The client asked for no permission this service grants', 'invalid_scope');
    return this.deps.otp.verify(
      verificationEventId,
      code,
      CONNECTOR_CONSENT_PURPOSE,
      async (tx, event) => {
        const now = this.deps.clock.now();
        const point = await recordVerifiedContactPoint(tx, 'email', event.destination, now);
        const expiresAt = new Date(now.getTime() + CONNECTOR_GRANT_TTL_SECONDS * 1000);
        tx.create(Connector, {
          grantId,
          identity: point.identity,
          clientId: request.clientId,
          clientName: request.clientName,
          redirectOrigin: request.redirectOrigin,
          scopes,
          expiresAt,
          createdAt: now,
        });
        await tx.flush();
        return { identityId: point.identity, grantId, scopes, expiresAt };
      },
      client,
    );
  }

  /**
   * The principal an access token stands for, or null when its connection is gone: revoked,
   * past its 90 days, or the token names another resource. The identity is the connection's (it
   * follows identity merges), the scopes the token's within the connection's.
   */
  async principalFor(token: ConnectorAccessToken, resource: string): Promise<Principal | null> {
    if (!token.audience.includes(resource)) return null;
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const connector = await em.findOne(Connector, { grantId: token.grantId, clientId: token.clientId, revokedAt: null, expiresAt: { $gt: now } });
    if (!connector) return null;
    // Touch last_used_at at most once a minute, like API keys.
    await em.execute(`update connectors set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)`, [
      now,
      connector.id,
      new Date(now.getTime() - 60_000),
    ]);
    const scopes = API_KEY_SCOPES.filter((scope): scope is Scope => token.scopes.includes(scope) && connector.scopes.includes(scope));
    return {
      kind: 'oauth',
      identityId: connector.identity,
      scopes,
      grantId: connector.grantId,
      clientId: connector.clientId,
      offlineAccess: connector.scopes.includes('offline_access'),
      teams: connector.teams,
    };
  }

  /** The teams a person may let a connector act for: theirs, with their role (never the team's own membership). */
  async teamChoices(identityId: string): Promise<{ id: string; name: string; role: TeamRole }[]> {
    return this.deps.orm.em
      .fork()
      .execute<{ id: string; name: string; role: TeamRole }[]>(
        'select t.id, t.name, m.role from team_members m join teams t on t.id = m.team_id where m.identity_id = ? and m.identity_id <> m.team_id order by t.name, t.id',
        [identityId],
      );
  }

  /**
   * The consent's last step, once: the teams (of the person's own) the connector may act for. The
   * connection must be the one just given for this client and not yet past this step.
   */
  async chooseTeams(grantId: string, clientId: string, teamIds: readonly string[]): Promise<{ identityId: string }> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const connector = await em.findOne(Connector, { grantId, clientId, revokedAt: null, teamsChosenAt: null, createdAt: { $gt: new Date(this.deps.clock.now().getTime() - TEAM_CHOICE_SECONDS * 1000) } });
      if (!connector) throw new DomainError('conflict', 'This connection was already given, or took too long: start connecting again from your assistant');
      const own = new Set((await this.teamChoices(connector.identity)).map((team) => team.id));
      connector.teams = [...new Set(teamIds)].filter((id) => own.has(id));
      connector.teamsChosenAt = this.deps.clock.now();
      return { identityId: connector.identity };
    });
  }

  /**
   * The resource answered this connection 403 insufficient_scope: its next refresh, within
   * STEP_UP_WINDOW_SECONDS, is refused with consent_required (takeStepUp), so that a client which
   * refreshes before re-authorizing (the MCP SDK does) goes on to the consent page. Remembered with
   * the authorization server's objects of the grant, and ends with it.
   */
  async askedForMoreScope(grantId: string): Promise<void> {
    await this.deps.oauthStorage.upsert(STEP_UP_MODEL, grantId, { grantId }, STEP_UP_WINDOW_SECONDS);
  }

  /** True once after askedForMoreScope, within its window (of two racing refreshes, for one). */
  takeStepUp(grantId: string): Promise<boolean> {
    return this.deps.oauthStorage.take(STEP_UP_MODEL, grantId);
  }

  /** Whether the connection of this grant still stands (not revoked, within its 90 days). */
  async isActive(grantId: string): Promise<boolean> {
    const count = await this.deps.orm.em.fork().count(Connector, { grantId, revokedAt: null, expiresAt: { $gt: this.deps.clock.now() } });
    return count > 0;
  }

  /** The caller's live connections, newest first. */
  async list(principal: Principal | null): Promise<Connector[]> {
    const caller = requireAccess(principal, 'identity.listConnectors');
    return this.deps.orm.em.fork().find(
      Connector,
      { identity: caller.identityId, revokedAt: null, expiresAt: { $gt: this.deps.clock.now() } },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    );
  }

  /** Disconnects one of the caller's connectors: its tokens stop working at once. */
  async disconnect(principal: Principal | null, connectorId: string): Promise<void> {
    const caller = requireAccess(principal, 'identity.disconnectConnector');
    const em = this.deps.orm.em.fork();
    const connector = isUuid(connectorId) ? await em.findOne(Connector, { id: connectorId, identity: caller.identityId, revokedAt: null }) : null;
    if (!connector) throw DomainError.notFound('Connector');
    await this.revokeGrant(connector.grantId);
  }

  /**
   * Ends a connection and deletes everything issued under it (codes, access and refresh tokens,
   * the grant). Used by disconnect, token revocation and reuse detection alike; safe to repeat.
   */
  async revokeGrant(grantId: string): Promise<void> {
    await this.deps.orm.em.fork().execute(`update connectors set revoked_at = ? where grant_id = ? and revoked_at is null`, [this.deps.clock.now(), grantId]);
    await this.deps.oauthStorage.destroyGrant(grantId);
  }
}
