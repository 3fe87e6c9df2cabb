import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { canonicalBytes } from '../shared/canonical-json.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { McpConfirmation } from './entities.js';

const CONFIRMATION_TOKEN_PREFIX = 'rss_cfm_';

/** Everything a confirmation is bound to. */
export type ConfirmationBinding = {
  /** The caller's kind and credential id, e.g. `api_key:<uuid>`. */
  principal: string;
  /** The execute tool. */
  action: string;
  scope: string;
  record: string;
  target: string;
  arguments: unknown;
  recordVersion: number;
};

/** Why a token was not accepted: nothing changed. */
export type ConfirmationRefusal = 'stale' | 'expired' | 'version_changed';

/**
 * Confirmation tokens of guarded actions: short-lived, single use, bound to principal, scope,
 * record, target, arguments and record version. Spending one is one conditional update, so two
 * concurrent executions cannot both use it.
 */
export class McpConfirmations {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      ttlSeconds: number;
    },
  ) {}

  async issue(binding: ConfirmationBinding): Promise<{ token: string; expiresAt: Date }> {
    const token = CONFIRMATION_TOKEN_PREFIX + randomToken(32);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + this.deps.ttlSeconds * 1000);
    const em = this.deps.orm.em.fork();
    em.create(McpConfirmation, { tokenHash: sha256Hex(token), ...columns(binding), expiresAt });
    await em.flush();
    return { token, expiresAt };
  }

  /** Spends the token when every binding matches; otherwise says why not and spends nothing. */
  async redeem(token: string, binding: ConfirmationBinding): Promise<ConfirmationRefusal | null> {
    const now = this.deps.clock.now();
    const hash = sha256Hex(token);
    const wanted = columns(binding);
    const em = this.deps.orm.em.fork();
    const spent = await em.execute<{ id: string }[]>(
      `update mcp_confirmations set consumed_at = ?
       where token_hash = ? and consumed_at is null and expires_at > ? and principal = ? and action = ? and scope = ?
         and record = ? and target = ? and arguments_hash = ? and record_version = ?
       returning id`,
      [now, hash, now, wanted.principal, wanted.action, wanted.scope, wanted.record, wanted.target, wanted.argumentsHash, wanted.recordVersion],
    );
    if (spent.length > 0) return null;
    const found = await em.findOne(McpConfirmation, { tokenHash: hash });
    if (!found || found.consumedAt) return 'stale';
    const sameOtherwise =
      found.principal === wanted.principal &&
      found.action === wanted.action &&
      found.scope === wanted.scope &&
      found.record === wanted.record &&
      found.target === wanted.target &&
      found.argumentsHash === wanted.argumentsHash;
    if (!sameOtherwise) return 'stale';
    if (found.expiresAt.getTime() <= now.getTime()) return 'expired';
    return found.recordVersion === wanted.recordVersion ? 'stale' : 'version_changed';
  }
}

function columns(binding: ConfirmationBinding) {
  return {
    principal: binding.principal,
    action: binding.action,
    scope: binding.scope,
    record: binding.record,
    target: binding.target,
    argumentsHash: sha256Hex(canonicalBytes(binding.arguments ?? null)),
    recordVersion: binding.recordVersion,
  };
}
