import type { MikroORM } from '@mikro-orm/postgresql';
import type { CeremonyService } from '../ceremonies/ceremony-service.js';
import type { ExecutionView } from '../ceremonies/execution-view.js';
import { maskEmail } from '../ceremonies/methods/email-otp.js';
import { requireAccess } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import { McpSecretInput } from './entities.js';
import type { McpGrants, OpenedGrant } from './grants.js';

/** The signature methods whose input is a secret the human gives: entered on the service's page when the client takes URL-mode elicitation (so is a sign-in code). */
const SECRET_INPUT_METHODS = ['email_otp', 'webauthn_passkey'] as const;

export const isSecretInputMethod = (type: string): boolean => (SECRET_INPUT_METHODS as readonly string[]).includes(type);

/** The link an MCP client shows the human (URL-mode elicitation). */
export type SecretInputLink = { elicitationId: string; url: string; expiresAt: Date };

/** What the page shows: what the human is about to sign and the method's step, or whose sign-in it is. */
export type SecretInputRequestView = {
  elicitationId: string;
  purpose: 'signature' | 'sign_in';
  agrReference: string | null;
  title: string | null;
  recordVersion: number | null;
  methodType: string | null;
  /** sign_in: the address the code was mailed to, masked. */
  destination: string | null;
  prompt: string | null;
  /** webauthn_passkey: the options for the authenticator (JSON). */
  challenge: string | null;
  expiresAt: Date;
  completed: boolean;
};

export type SecretInputSettings = { publicBaseUrl: string; ttlSeconds: number };

type Row = {
  id: string;
  session_id: string;
  purpose: 'signature' | 'sign_in';
  principal: Principal | null;
  record_id: string | null;
  record_version: number | null;
  method_type: string | null;
  verification_event_id: string | null;
  browser_hash: string | null;
  expires_at: Date;
  completed_at: Date | null;
  session_live: boolean;
};

const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
const BROWSER_KEY = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Secret inputs in the human's hands (MCP URL-mode elicitation): a tool call of a session whose client
 * declared `elicitation.url` gets a link instead of asking the assistant for the code or the passkey
 * response; the human opens it in their browser, sees the record's reference, title and version, and
 * enters the code or uses the passkey there. The page acts as the caller the tool call ran as, for that
 * record version and method only, once, within `ttlSeconds` (at most 10 minutes), while the session
 * lasts and the caller's credential is not revoked; the first browser that opens the link keeps it.
 */
export class SecretInputs {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      ceremonies: CeremonyService;
      mcpGrants: McpGrants;
      clock: Clock;
      settings: SecretInputSettings;
    },
  ) {}

  /**
   * A link for the caller's pending method, or null with the execution when the method is already
   * satisfied (the page was used: the tool call answers the execution).
   */
  async open(principal: Principal | null, sessionKey: string | null | undefined, idOrReference: string, methodType: string): Promise<{ link: SecretInputLink | null; execution: ExecutionView }> {
    const caller = requireAccess(principal, 'ceremony.openSecretInput');
    if (!isSecretInputMethod(methodType)) {
      throw DomainError.invalid(['methodType'], `Only ${SECRET_INPUT_METHODS.join(' and ')} take a secret input on the service's page`, 'not_secret_input');
    }
    const session = await this.urlModeSession(sessionKey);
    const execution = await this.deps.ceremonies.get(caller, idOrReference);
    const method = execution.methods.find((candidate) => candidate.methodType === methodType);
    if (method?.status === 'satisfied') return { link: null, execution };
    if (method?.status !== 'pending') throw new DomainError('conflict', `Start the ${methodType} method first (start_signature_method)`);
    const link = await this.issue(session, this.deps.settings.ttlSeconds, { purpose: 'signature', principal: { ...caller }, recordId: execution.recordId, recordVersion: execution.recordVersion, methodType });
    return { link, execution };
  }

  /**
   * A link where the human enters the sign-in code of `verificationEventId` (request_authentication_otp),
   * which opens this session's retrieval grant; or, once they did, the grant (the tool call answers it).
   */
  async openSignIn(sessionKey: string | null | undefined, verificationEventId: string): Promise<{ link: SecretInputLink | null; grant: OpenedGrant | null }> {
    const session = await this.urlModeSession(sessionKey);
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const [event] = await em.execute<{ expires_at: Date }[]>(
      `select expires_at from verification_events where id = ? and purpose = 'authenticate' and consumed_at is null and expires_at > ?`,
      [verificationEventId, now],
    );
    const [done] = await em.execute<{ expires_at: Date }[]>(
      `select g.expires_at from mcp_secret_inputs i join mcp_grants g on g.session_id = i.session_id
        where i.session_id = ? and i.verification_event_id = ? and i.completed_at is not null and g.revoked_at is null and g.expires_at > ?
        order by g.created_at desc limit 1`,
      [session, verificationEventId, now],
    );
    if (done) {
      const expiresIn = Math.max(1, Math.floor((new Date(done.expires_at).getTime() - now.getTime()) / 1000));
      return { link: null, grant: { scopes: ['retrieve'], expiresIn, sessionBound: true, transportToken: null } };
    }
    if (!event) throw DomainError.invalid(['verificationEventId'], 'The sign-in code has expired or was used: request a new one (request_authentication_otp)', 'otp_invalid');
    // No longer than the code itself lives.
    const ttl = Math.min(this.deps.settings.ttlSeconds, Math.floor((new Date(event.expires_at).getTime() - now.getTime()) / 1000));
    return { link: await this.issue(session, ttl, { purpose: 'sign_in', verificationEventId }), grant: null };
  }

  /** The session (its internal id), when its client declared URL-mode elicitation. */
  private async urlModeSession(sessionKey: string | null | undefined): Promise<string> {
    if (!sessionKey) throw DomainError.invalid(['session'], 'A secret-input link is opened by an MCP session whose client declared URL-mode elicitation', 'mcp_session_required');
    const [session] = await this.deps.orm.em.fork().execute<{ secret_input: string }[]>(
      `select secret_input from mcp_sessions where id = ? and closed_at is null and expires_at > ?`,
      [sessionKey, this.deps.clock.now()],
    );
    if (!session) throw new DomainError('not_found', 'The MCP session has ended');
    if (session.secret_input !== 'url') {
      throw DomainError.invalid(['capabilities', 'elicitation', 'url'], 'This MCP client did not declare the `elicitation` capability with `url` mode at initialize', 'url_elicitation_unsupported');
    }
    return sessionKey;
  }

  private async issue(session: string, ttlSeconds: number, what: Pick<McpSecretInput, 'purpose'> & Partial<McpSecretInput>): Promise<SecretInputLink> {
    const em = this.deps.orm.em.fork();
    const token = randomToken(32);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const row = em.create(McpSecretInput, { ...what, tokenHash: sha256Hex(token), session, expiresAt, createdAt: now });
    await em.flush();
    // The token rides in the fragment: browsers never send it, so no access log or Referer holds it.
    return { elicitationId: row.id, url: `${this.deps.settings.publicBaseUrl}/secret-input#${token}`, expiresAt };
  }

  /** What the page shows; the first browser to ask keeps the link. */
  async describe(token: string, browserKey: string): Promise<SecretInputRequestView> {
    const row = await this.usable(token, browserKey);
    return this.view(row, row.completed_at !== null);
  }

  /**
   * The human's input, submitted as the caller the tool call ran as; the link is spent when the method
   * is satisfied (a wrong code leaves it, within the method's own attempt limit).
   */
  async complete(token: string, browserKey: string, input: { code?: string | null; credential?: Record<string, unknown> | null }): Promise<SecretInputRequestView> {
    const row = await this.usable(token, browserKey);
    if (row.completed_at) throw new DomainError('conflict', 'This link was used already');
    const byCode = row.purpose === 'sign_in' || row.method_type === 'email_otp';
    const given = byCode ? { code: input.code ?? null } : { credential: input.credential ?? null };
    if (Object.values(given)[0] === null) throw DomainError.invalid([byCode ? 'code' : 'credential'], byCode ? 'Enter the six-digit code' : 'Use your passkey', 'required');
    if (row.purpose === 'sign_in') {
      await this.deps.mcpGrants.open(row.session_id, { verificationEventId: row.verification_event_id!, code: given.code! });
    } else {
      // Checked here for its message, and again under the record's lock by the ceremony (a change in between).
      await this.recordAsIssued(row, true);
      const execution = await this.deps.ceremonies.submitMethod(row.principal, row.record_id!, row.method_type!, given, row.record_version!);
      // A passkey's first use registers it, then asks for it again: the link stays for that next step.
      if (execution.methods.find((method) => method.methodType === row.method_type)?.status !== 'satisfied') return this.view(row, false);
    }
    const spent = await this.deps.orm.em.fork().execute<{ id: string }[]>(`update mcp_secret_inputs set completed_at = ? where id = ? and completed_at is null returning id`, [this.deps.clock.now(), row.id]);
    if (spent.length === 0) throw new DomainError('conflict', 'This link was used already');
    return this.view(row, true);
  }

  /** The link's row when it may still be used by this browser, else the reason it may not. */
  private async usable(token: string, browserKey: string): Promise<Row> {
    if (!TOKEN.test(token)) throw DomainError.invalid(['ticket'], 'A link\'s ticket is 20 to 128 URL-safe characters', 'invalid_ticket');
    if (!BROWSER_KEY.test(browserKey)) throw DomainError.invalid(['browserKey'], 'A browser key is 16 to 128 URL-safe characters', 'invalid_browser_key');
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const [row] = await em.execute<Row[]>(
      `select i.id, i.session_id, i.purpose, i.principal, i.record_id, i.record_version, i.method_type, i.verification_event_id, i.browser_hash, i.expires_at, i.completed_at,
              (s.closed_at is null and s.expires_at > ?) as session_live
         from mcp_secret_inputs i join mcp_sessions s on s.id = i.session_id where i.token_hash = ?`,
      [now, sha256Hex(token)],
    );
    if (!row) throw new DomainError('not_found', 'This link is not valid');
    if (row.completed_at) return this.claimedBy(row, browserKey);
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw new DomainError('conflict', 'This link has expired: ask the assistant to start again');
    if (!row.session_live) throw new DomainError('conflict', 'The assistant\'s session that asked for this has ended');
    if (row.principal && !(await this.credentialLive(row.principal))) throw new DomainError('conflict', 'The credential the assistant used was revoked or has expired');
    if (row.browser_hash === null) {
      // The first browser to open the link keeps it: a second one racing it reads the first one's key back.
      const [bound] = await em.execute<{ browser_hash: string }[]>(`update mcp_secret_inputs set browser_hash = coalesce(browser_hash, ?) where id = ? returning browser_hash`, [
        sha256Hex(browserKey),
        row.id,
      ]);
      row.browser_hash = bound!.browser_hash;
    }
    return this.claimedBy(row, browserKey);
  }

  private claimedBy(row: Row, browserKey: string): Row {
    if (row.browser_hash !== sha256Hex(browserKey)) throw new DomainError('conflict', 'This link was opened in another browser: only that browser can use it');
    return row;
  }

  /** The caller's credential still stands (a revocation within the link's minutes is honoured). */
  private async credentialLive(principal: Principal): Promise<boolean> {
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const rows =
      principal.kind === 'api_key'
        ? await em.execute(`select 1 from api_keys where id = ? and revoked_at is null and (expires_at is null or expires_at > ?)`, [principal.apiKeyId, now])
        : principal.kind === 'oauth'
          ? await em.execute(`select 1 from connectors where grant_id = ? and revoked_at is null`, [principal.grantId])
          : principal.kind === 'session'
            ? await em.execute(`select 1 from access_tokens where id = ? and revoked_at is null and expires_at > ?`, [principal.tokenId, now])
            : await em.execute(`select 1 from mcp_grants where id = ? and revoked_at is null and expires_at > ?`, [principal.grantId, now]);
    return rows.length > 0;
  }

  /** The link's record; with `sameVersion`, refused once the record has moved to another version than the link's. */
  private async recordAsIssued(row: Row, sameVersion: boolean): Promise<{ reference: string; title: string | null }> {
    const [record] = await this.deps.orm.em.fork().execute<{ reference: string; title: string | null; current_version: number }[]>(
      `select reference, title, current_version from records where id = ?`,
      [row.record_id],
    );
    if (!record) throw new DomainError('not_found', 'This link is not valid');
    if (sameVersion && record.current_version !== row.record_version) {
      throw new DomainError('conflict', `The record changed to version ${record.current_version}: ask the assistant to start again`);
    }
    return record;
  }

  private async view(row: Row, completed: boolean): Promise<SecretInputRequestView> {
    const base = { elicitationId: row.id, purpose: row.purpose, expiresAt: new Date(row.expires_at), completed, prompt: null, challenge: null };
    if (row.purpose === 'sign_in') {
      const [event] = await this.deps.orm.em.fork().execute<{ destination: string }[]>(`select destination from verification_events where id = ?`, [row.verification_event_id]);
      return { ...base, agrReference: null, title: null, recordVersion: null, methodType: null, destination: event ? maskEmail(event.destination) : null };
    }
    const record = await this.recordAsIssued(row, !completed);
    let step: { prompt: string | null; challenge: string | null } = { prompt: null, challenge: null };
    if (!completed) {
      const execution = await this.deps.ceremonies.get(row.principal, row.record_id!);
      const method = execution.methods.find((candidate) => candidate.methodType === row.method_type);
      if (method?.status !== 'pending') throw new DomainError('conflict', `The ${row.method_type} method is ${method?.status ?? 'not started'}: ask the assistant to start again`);
      step = { prompt: method.step?.prompt ?? null, challenge: method.step?.challenge ?? null };
    }
    return { ...base, agrReference: record.reference, title: record.title, recordVersion: row.record_version, methodType: row.method_type, destination: null, ...step };
  }
}
