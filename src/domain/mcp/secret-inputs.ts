import type { MikroORM } from '@mikro-orm/postgresql';
import type { CeremonyService } from '../ceremonies/ceremony-service.js';
import type { ExecutionView } from '../ceremonies/execution-view.js';
import { requireAccess } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import { McpSecretInput } from './entities.js';

/** The methods whose input is a secret the human gives: entered on the service's page when the client takes URL-mode elicitation. */
export const SECRET_INPUT_METHODS = ['email_otp', 'webauthn_passkey'] as const;

export const isSecretInputMethod = (type: string): boolean => (SECRET_INPUT_METHODS as readonly string[]).includes(type);

/** The link an MCP client shows the human (URL-mode elicitation). */
export type SecretInputLink = { elicitationId: string; url: string; expiresAt: Date };

/** What the page shows: what the human is about to sign, and the method's step. */
export type SecretInputRequestView = {
  elicitationId: string;
  agrReference: string;
  title: string | null;
  recordVersion: number;
  methodType: string;
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
  principal: Principal;
  record_id: string;
  record_version: number;
  method_type: string;
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
    private readonly orm: MikroORM,
    private readonly ceremonies: CeremonyService,
    private readonly clock: Clock,
    private readonly settings: SecretInputSettings,
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
    if (!sessionKey) throw DomainError.invalid(['session'], 'A secret-input link is opened by an MCP session whose client declared URL-mode elicitation', 'mcp_session_required');
    const em = this.orm.em.fork();
    const [session] = await em.execute<{ secret_input: string }[]>(
      `select secret_input from mcp_sessions where id = ? and closed_at is null and expires_at > ?`,
      [sessionKey, this.clock.now()],
    );
    if (!session) throw new DomainError('not_found', 'The MCP session has ended');
    if (session.secret_input !== 'url') {
      throw DomainError.invalid(['capabilities', 'elicitation', 'url'], 'This MCP client did not declare the `elicitation` capability with `url` mode at initialize', 'url_elicitation_unsupported');
    }
    const execution = await this.ceremonies.get(caller, idOrReference);
    const method = execution.methods.find((candidate) => candidate.methodType === methodType);
    if (method?.status === 'satisfied') return { link: null, execution };
    if (method?.status !== 'pending') throw new DomainError('conflict', `Start the ${methodType} method first (start_signature_method)`);
    const token = randomToken(32);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.settings.ttlSeconds * 1000);
    const row = em.create(McpSecretInput, {
      tokenHash: sha256Hex(token),
      session: sessionKey,
      principal: { ...caller },
      recordId: execution.recordId,
      recordVersion: execution.recordVersion,
      methodType,
      expiresAt,
      createdAt: now,
    });
    await em.flush();
    // The token rides in the fragment: browsers never send it, so no access log or Referer holds it.
    return { link: { elicitationId: row.id, url: `${this.settings.publicBaseUrl}/secret-input#${token}`, expiresAt }, execution };
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
    const given = row.method_type === 'email_otp' ? { code: input.code ?? null } : { credential: input.credential ?? null };
    if (Object.values(given)[0] === null) {
      throw DomainError.invalid([row.method_type === 'email_otp' ? 'code' : 'credential'], row.method_type === 'email_otp' ? 'Enter the six-digit code' : 'Use your passkey', 'required');
    }
    const execution = await this.ceremonies.submitMethod(row.principal, row.record_id, row.method_type, given);
    // A passkey's first use registers it, then asks for it again: the link stays for that next step.
    if (execution.methods.find((method) => method.methodType === row.method_type)?.status !== 'satisfied') return this.view(row, false);
    const spent = await this.orm.em.fork().execute<{ id: string }[]>(`update mcp_secret_inputs set completed_at = ? where id = ? and completed_at is null returning id`, [this.clock.now(), row.id]);
    if (spent.length === 0) throw new DomainError('conflict', 'This link was used already');
    return this.view(row, true);
  }

  /** The link's row when it may still be used by this browser, else the reason it may not. */
  private async usable(token: string, browserKey: string): Promise<Row> {
    if (!TOKEN.test(token)) throw DomainError.invalid(['ticket'], 'A link\'s ticket is 20 to 128 URL-safe characters', 'invalid_ticket');
    if (!BROWSER_KEY.test(browserKey)) throw DomainError.invalid(['browserKey'], 'A browser key is 16 to 128 URL-safe characters', 'invalid_browser_key');
    const em = this.orm.em.fork();
    const now = this.clock.now();
    const [row] = await em.execute<Row[]>(
      `select i.id, i.session_id, i.principal, i.record_id, i.record_version, i.method_type, i.browser_hash, i.expires_at, i.completed_at,
              (s.closed_at is null and s.expires_at > ?) as session_live
         from mcp_secret_inputs i join mcp_sessions s on s.id = i.session_id where i.token_hash = ?`,
      [now, sha256Hex(token)],
    );
    if (!row) throw new DomainError('not_found', 'This link is not valid');
    if (row.completed_at) return this.claimedBy(row, browserKey);
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw new DomainError('conflict', 'This link has expired: ask the assistant to start again');
    if (!row.session_live) throw new DomainError('conflict', 'The assistant\'s session that asked for this has ended');
    if (!(await this.credentialLive(row.principal))) throw new DomainError('conflict', 'The credential the assistant used was revoked or has expired');
    if (row.browser_hash === null) {
      await em.execute(`update mcp_secret_inputs set browser_hash = ? where id = ? and browser_hash is null`, [sha256Hex(browserKey), row.id]);
      const [bound] = await em.execute<{ browser_hash: string }[]>(`select browser_hash from mcp_secret_inputs where id = ?`, [row.id]);
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
    const em = this.orm.em.fork();
    const now = this.clock.now();
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

  private async view(row: Row, completed: boolean): Promise<SecretInputRequestView> {
    const [record] = await this.orm.em.fork().execute<{ reference: string; title: string | null; current_version: number }[]>(
      `select reference, title, current_version from records where id = ?`,
      [row.record_id],
    );
    if (!record) throw new DomainError('not_found', 'This link is not valid');
    if (!completed && record.current_version !== row.record_version) {
      throw new DomainError('conflict', `The record changed to version ${record.current_version}: ask the assistant to start again`);
    }
    let step: { prompt: string | null; challenge: string | null } = { prompt: null, challenge: null };
    if (!completed) {
      const execution = await this.ceremonies.get(row.principal, row.record_id);
      const method = execution.methods.find((candidate) => candidate.methodType === row.method_type);
      if (method?.status !== 'pending') throw new DomainError('conflict', `The ${row.method_type} method is ${method?.status ?? 'not started'}: ask the assistant to start again`);
      step = { prompt: method.step?.prompt ?? null, challenge: method.step?.challenge ?? null };
    }
    return {
      elicitationId: row.id,
      agrReference: record.reference,
      title: record.title,
      recordVersion: row.record_version,
      methodType: row.method_type,
      ...step,
      expiresAt: new Date(row.expires_at),
      completed,
    };
  }
}
