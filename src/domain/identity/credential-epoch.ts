import type { MikroORM } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';

/**
 * Reads that begin after the call: callers that arrive while no read has been sent share the next
 * one, and a read already under way is never shared with a later caller (it may have begun before
 * that caller did). So at most one read is under way and one waits, however many callers there are.
 */
export class FreshReads<T> {
  private next: Promise<T> | null = null;
  private underWay: Promise<unknown> = Promise.resolve();

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.next) return this.next;
    const next = this.underWay.then(
      () => this.send(),
      () => this.send(),
    );
    this.next = next;
    return next;
  }

  private send(): Promise<T> {
    // From here on, a new caller waits for the read after this one.
    this.next = null;
    const read = this.read();
    this.underWay = read;
    return read;
  }
}

/**
 * The credential epoch (a PostgreSQL sequence shared by every instance): advanced after every
 * committed revocation or identity merge and before its answer leaves. A principal reused from a
 * cache is trusted only while the epoch read after its request began is the one it was resolved
 * under, so a request that starts after a revocation's answer is refused on every instance, however
 * late that instance hears the LISTEN/NOTIFY that clears its cache.
 */
export class CredentialEpoch {
  private readonly reads: FreshReads<string>;

  constructor(private readonly orm: MikroORM) {
    // A hot statement (every reused principal waits for one): prepared once per connection, on the pool.
    this.reads = new FreshReads(async () => {
      const [row] = await preparedQuery<{ epoch: string }>(this.orm.em.fork(), 'select last_value::text as epoch from credential_epoch', []);
      return row!.epoch;
    });
  }

  /** The epoch as of some moment after this call. */
  current(): Promise<string> {
    return this.reads.get();
  }

  /** Advances the epoch: after the change that revoked or merged committed, before its answer is sent. */
  async advance(): Promise<void> {
    await this.orm.em.getConnection().execute(`select nextval('credential_epoch')`);
  }
}
