import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { sha256Hex } from '../shared/crypto.js';

/** One stored object of the authorization server, as it handed it over. */
export type StoredPayload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string };

/**
 * Models whose payload keeps its id: a session is looked up by its uid and must find its own id
 * (its cookie value) again. Every other id (codes, tokens, grants, interactions) is kept only as a
 * hash, so a copy of the table holds no usable code or token.
 */
const KEEPS_ID = new Set(['Session']);

/**
 * The authorization server's storage on PostgreSQL (table `oauth_payloads`), shared by every
 * instance: several instances see the same clients, grants, codes and tokens. `consume` is one
 * atomic statement, so of two requests racing with one code or refresh token exactly one consumes it.
 */
export class OAuthPayloadStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
  ) {}

  async upsert(model: string, id: string, payload: StoredPayload, expiresInSeconds: number | undefined): Promise<void> {
    const now = this.clock.now();
    const stored: Record<string, unknown> = { ...payload };
    if (!KEEPS_ID.has(model)) delete stored.jti;
    const expiresAt = expiresInSeconds ? new Date(now.getTime() + expiresInSeconds * 1000) : null;
    const grantId = text(payload.grantId);
    // Nothing is stored under a connection that has ended: a token saved by the loser of a race
    // with a revocation (two parallel refreshes) never lands. The connection's row is share-locked:
    // a revocation under way is waited for and then seen, and one that starts later waits for this
    // row to commit, so the revocation's delete that follows it removes the row too.
    await this.orm.em.fork().execute(
      `with connection as (select revoked_at from connectors where grant_id = ? for share)
       insert into oauth_payloads (id, model, id_hash, payload, grant_id, uid, user_code, expires_at, created_at)
       select gen_random_uuid(), ?, ?, ?::jsonb, ?, ?, ?, ?, ?
       where ?::text is null or not exists (select 1 from connection where revoked_at is not null)
       on conflict (model, id_hash) do update set payload = excluded.payload, grant_id = excluded.grant_id,
         uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
      [grantId, model, sha256Hex(id), JSON.stringify(stored), grantId, text(payload.uid), text(payload.userCode), expiresAt, now, grantId],
    );
  }

  find(model: string, id: string): Promise<StoredPayload | undefined> {
    return this.one(model, 'id_hash = ?', sha256Hex(id), id);
  }

  findByUid(model: string, uid: string): Promise<StoredPayload | undefined> {
    return this.one(model, 'uid = ?', uid);
  }

  findByUserCode(model: string, userCode: string): Promise<StoredPayload | undefined> {
    return this.one(model, 'user_code = ?', userCode);
  }

  /**
   * Marks a code or token used. True when this call consumed it; false when it was already used (or
   * is gone): the caller lost a race against another use of the same code or token.
   */
  async consume(model: string, id: string): Promise<{ consumed: boolean; grantId: string | null }> {
    const em = this.orm.em.fork();
    const rows = await em.execute<{ grant_id: string | null }[]>(
      `update oauth_payloads set consumed_at = ? where model = ? and id_hash = ? and consumed_at is null returning grant_id`,
      [this.clock.now(), model, sha256Hex(id)],
    );
    const [row] = rows;
    if (row) return { consumed: true, grantId: row.grant_id };
    const existing = await em.execute<{ grant_id: string | null }[]>(`select grant_id from oauth_payloads where model = ? and id_hash = ?`, [model, sha256Hex(id)]);
    return { consumed: false, grantId: existing[0]?.grant_id ?? null };
  }

  /** Deletes an object that has not expired: true when this call did (of racing calls, one). */
  async take(model: string, id: string): Promise<boolean> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      `delete from oauth_payloads where model = ? and id_hash = ? and expires_at > ? returning id`,
      [model, sha256Hex(id), this.clock.now()],
    );
    return rows.length > 0;
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.orm.em.fork().execute(`delete from oauth_payloads where model = ? and id_hash = ?`, [model, sha256Hex(id)]);
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.orm.em.fork().execute(`delete from oauth_payloads where model = ? and grant_id = ?`, [model, grantId]);
  }

  /** Everything stored under a grant (codes, tokens, the grant itself), every model at once. */
  async destroyGrant(grantId: string): Promise<void> {
    await this.orm.em.fork().execute(`delete from oauth_payloads where grant_id = ?`, [grantId]);
  }

  /**
   * A key of the authorization server, made by `make` on first use. Instances racing on the first
   * start all end with the one that was stored first.
   */
  async serverKey<T>(name: string, make: () => T): Promise<T> {
    const em = this.orm.em.fork();
    await em.execute(`insert into oauth_server_keys (name, value, created_at) values (?, ?::jsonb, ?) on conflict (name) do nothing`, [
      name,
      JSON.stringify(make()),
      this.clock.now(),
    ]);
    const rows = await em.execute<{ value: T }[]>(`select value from oauth_server_keys where name = ?`, [name]);
    const [row] = rows;
    if (!row) throw new Error(`oauth server key ${name} was not stored`);
    return row.value;
  }

  /** Deletes objects expired over a day ago (housekeeping). */
  async purgeExpired(): Promise<number> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      `delete from oauth_payloads where expires_at < ? returning id`,
      [new Date(this.clock.now().getTime() - 86_400_000)],
    );
    return rows.length;
  }

  private async one(model: string, where: string, value: string, id?: string): Promise<StoredPayload | undefined> {
    const rows = await this.orm.em.fork().execute<{ payload: StoredPayload; consumed_at: Date | null }[]>(
      `select payload, consumed_at from oauth_payloads where model = ? and ${where}`,
      [model, value],
    );
    const row = rows[0];
    if (!row) return undefined;
    const payload: StoredPayload = { ...row.payload };
    if (id !== undefined && !KEEPS_ID.has(model)) payload.jti = id;
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
