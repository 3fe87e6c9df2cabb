import express, { type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { CONNECTOR_GRANT_TTL_SECONDS, CONNECTOR_SCOPES, type ConnectorGrants, type ConnectorScope } from '../domain/identity/connector-grants.js';
import { randomToken } from '../domain/shared/crypto.js';
import { DomainError } from '../domain/shared/errors.js';
import { API_KEY_SCOPES } from '../domain/vocabulary.js';
import { renderConsentPage, renderErrorPage, type ConsentStep, type ConsentView } from './pages.js';
import { CONSENT_PATH } from './paths.js';
import { BODY_LIMITS, boundedBody } from '../graph/transport/body-limits.js';
import type { Instruments } from '../domain/shared/instruments.js';
import { MEMBERSHIPS_MAX } from '../domain/teams/team-service.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

/** oidc-provider, loaded and configured at the first authorization (see router.ts). */
type Deps = { provider: () => Promise<Provider>; grants: ConnectorGrants; resource: string; logger: Logger; instruments: Instruments };

type Loaded = { view: ConsentView & { scopes: readonly ConnectorScope[] }; clientId: string; redirectTarget: string };

/** A page load that cannot go on: shown as the error page with this status. */
class ConsentFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The consent page of the connector flow (the spec's Authentication 7): what is asked, by whom,
 * for how long; then an email address and the code mailed to it. Submitting the code is the
 * consent; Deny answers the client `access_denied`. The page belongs to one authorization request
 * (oidc-provider's interaction, bound to this browser by its cookie) and never to a session.
 */
export function consentRouter({ provider, grants, resource, logger, instruments }: Deps): express.Router {
  const router = express.Router();
  const form = boundedBody((options) => express.urlencoded({ ...options, extended: false, parameterLimit: 10 }), BODY_LIMITS.consentForm, (res) => {
    res.setHeader('Content-Security-Policy', pageCsp(null));
    res.setHeader('Cache-Control', CACHE_CONTROL.secret);
    res.status(413).type('html').send(renderErrorPage('Connection request not usable', 'The form sent was too large.'));
  });

  // The teams step sends one field per team chosen (a person belongs to at most MEMBERSHIPS_MAX).
  const teamForm = boundedBody((options) => express.urlencoded({ ...options, extended: false, parameterLimit: MEMBERSHIPS_MAX + 5 }), BODY_LIMITS.consentForm, (res) => {
    res.setHeader('Content-Security-Policy', pageCsp(null));
    res.setHeader('Cache-Control', CACHE_CONTROL.secret);
    res.status(413).type('html').send(renderErrorPage('Connection request not usable', 'The form sent was too large.'));
  });

  const load = async (req: Request, res: Response): Promise<Loaded> => {
    const oidc = await provider();
    let details;
    try {
      details = await oidc.interactionDetails(req, res);
    } catch {
      throw new ConsentFailure(400, 'This connection request has expired or was opened in another browser. Start connecting again from your assistant.');
    }
    if (details.uid !== req.params.uid) throw new ConsentFailure(400, 'This page does not belong to the connection request in progress.');
    if (details.result) throw new ConsentFailure(409, 'This connection request has already been answered.');
    const params = details.params as Record<string, unknown>;
    const clientId = String(params.client_id);
    const client = await oidc.Client.find(clientId);
    if (!client) throw new ConsentFailure(400, 'The application asking for access is not registered.');
    const redirectUri = URL.parse(String(params.redirect_uri));
    if (!redirectUri) throw new ConsentFailure(400, 'The application gave no valid redirect address.');
    const web = redirectUri.protocol === 'https:' || redirectUri.protocol === 'http:';
    const requested = new Set(typeof params.scope === 'string' ? params.scope.split(' ') : []);
    return {
      clientId,
      redirectTarget: web ? redirectUri.origin : redirectUri.protocol,
      view: {
        uid: details.uid,
        clientId,
        clientName: typeof client.clientName === 'string' && client.clientName.trim() ? client.clientName.trim().slice(0, 100) : null,
        // A Client ID Metadata Document: its host published the name and links below.
        metadataDocument: (client as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument
          ? { host: new URL(clientId).host, clientUriHost: typeof client.clientUri === 'string' ? (URL.parse(client.clientUri)?.host ?? null) : null }
          : null,
        redirectOrigin: web ? redirectUri.origin : `${redirectUri.protocol}${redirectUri.host ? `//${redirectUri.host}` : ''}`,
        scopes: CONNECTOR_SCOPES.filter((scope) => requested.has(scope)),
        until: new Date(Date.now() + CONNECTOR_GRANT_TTL_SECONDS * 1000),
      },
    };
  };

  const send = (res: Response, status: number, loaded: Loaded, step: ConsentStep) => {
    // The answer to a submitted form redirects to the client: its origin may receive the form's redirect.
    res.setHeader('Content-Security-Policy', pageCsp(loaded.redirectTarget));
    res.setHeader('Cache-Control', CACHE_CONTROL.secret);
    res.status(status).type('html').send(renderConsentPage(loaded.view, step));
  };

  const handle =
    (work: (req: Request, res: Response, loaded: Loaded) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await work(req, res, await load(req, res));
      } catch (error) {
        if (error instanceof ConsentFailure) {
          res.setHeader('Content-Security-Policy', pageCsp(null));
          res.setHeader('Cache-Control', CACHE_CONTROL.secret);
          res.status(error.status).type('html').send(renderErrorPage('Connection request not usable', error.message));
          return;
        }
        logger.error({ err: error }, 'consent page failed');
        res.setHeader('Content-Security-Policy', pageCsp(null));
        res.status(500).type('html').send(renderErrorPage('Something went wrong', 'Nothing was shared. Try again from your assistant.'));
      }
    };

  router.get(`${CONSENT_PATH}/:uid`, handle(async (_req, res, loaded) => send(res, 200, loaded, { step: 'email' })));

  router.post(
    `${CONSENT_PATH}/:uid/email`,
    form,
    handle(async (req, res, loaded) => {
      const email = field(req, 'email').trim();
      try {
        const issued = await grants.requestConsentCode(email, req.ip ?? null);
        send(res, 200, loaded, { step: 'code', email, verificationEventId: issued.verificationEventId });
      } catch (error) {
        const refusal = userFacing(error, res);
        if (!refusal) throw error;
        send(res, refusal.status, loaded, { step: 'email', email, error: refusal.message });
      }
    }),
  );

  router.post(
    `${CONSENT_PATH}/:uid/confirm`,
    form,
    handle(async (req, res, loaded) => {
      const email = field(req, 'email');
      const verificationEventId = field(req, 'verification_event_id');
      const grantId = randomToken(24);
      let given;
      try {
        given = await grants.consent(
          verificationEventId,
          field(req, 'code').trim(),
          { clientId: loaded.clientId, clientName: loaded.view.clientName, redirectOrigin: loaded.view.redirectOrigin, scopes: loaded.view.scopes },
          grantId,
          req.ip ?? null,
        );
      } catch (error) {
        const refusal = userFacing(error, res);
        if (!refusal) throw error;
        send(res, refusal.status, loaded, { step: 'code', email, verificationEventId, error: refusal.message });
        return;
      }
      // The grant takes the id the connector was recorded under (oidc-provider keeps a given jti).
      const { Grant } = await provider();
      const grant = new Grant({ jti: grantId, accountId: given.identityId, clientId: loaded.clientId } as ConstructorParameters<Provider['Grant']>[0]);
      const recordScopes = given.scopes.filter((scope: ConnectorScope) => (API_KEY_SCOPES as readonly string[]).includes(scope));
      if (recordScopes.length > 0) grant.addResourceScope(resource, recordScopes.join(' '));
      if (given.scopes.includes('offline_access')) grant.addOIDCScope('offline_access');
      try {
        await grant.save();
      } catch (error) {
        await grants.revokeGrant(grantId);
        throw error;
      }
      // A person in teams chooses which of them the connector may act for (none unless chosen).
      const teams = await grants.teamChoices(given.identityId);
      if (teams.length > 0) {
        send(res, 200, loaded, { step: 'teams', grantId, teams });
        return;
      }
      await finish(req, res, loaded, given.identityId, grantId);
    }),
  );

  router.post(
    `${CONSENT_PATH}/:uid/teams`,
    teamForm,
    handle(async (req, res, loaded) => {
      const grantId = field(req, 'grant_id');
      const chosen = ([] as unknown[]).concat((req.body as Record<string, unknown> | undefined)?.team ?? []).filter((id): id is string => typeof id === 'string');
      let identityId: string;
      try {
        ({ identityId } = await grants.chooseTeams(grantId, loaded.clientId, chosen));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        throw new ConsentFailure(409, error.message);
      }
      await finish(req, res, loaded, identityId, grantId);
    }),
  );

  /** The connection is given: back to the client with its authorization code. */
  const finish = async (req: Request, res: Response, loaded: Loaded, identityId: string, grantId: string): Promise<void> => {
    res.setHeader('Content-Security-Policy', pageCsp(loaded.redirectTarget));
    await (await provider()).interactionFinished(req, res, { login: { accountId: identityId, remember: false }, consent: { grantId } }, { mergeWithLastSubmission: false });
    instruments.oauth('consent_given');
  };

  router.post(
    `${CONSENT_PATH}/:uid/deny`,
    form,
    handle(async (req, res, loaded) => {
      res.setHeader('Content-Security-Policy', pageCsp(loaded.redirectTarget));
      await (await provider()).interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined to connect this application' }, { mergeWithLastSubmission: false });
      instruments.oauth('consent_denied');
    }),
  );

  return router;
}

function field(req: Request, name: string): string {
  const body = req.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value : '';
}

/** A refusal the person can act on (a wrong code, too many requests), or null for anything unexpected. */
function userFacing(error: unknown, res: Response): { status: number; message: string } | null {
  if (!(error instanceof DomainError)) return null;
  if (error.code === 'validation_error') return { status: 422, message: error.message };
  if (error.code === 'rate_limited') {
    if (error.details.retryAfterSeconds) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
    return { status: 429, message: error.message };
  }
  return null;
}

/** The page's policy: nothing but its stylesheet, never framed; forms go to this origin and may end at the client. */
function pageCsp(redirectTarget: string | null): string {
  const target = redirectTarget && /^[a-z][a-z0-9+.-]*:(\/\/[^\s;,'"]+)?$/i.test(redirectTarget) ? ` ${redirectTarget}` : '';
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action 'self'${target}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}
