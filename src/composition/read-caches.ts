import type { MikroORM } from '@mikro-orm/postgresql';
import type { PubSub } from 'type-graphql';
import type { Config } from '../config.js';
import type { RecordPage } from '../domain/records/record-service.js';
import type { RecordView } from '../domain/records/record-view.js';
import { AnswerCache } from '../domain/shared/answer-cache.js';
import type { PublicRecordView, VerificationView } from '../domain/verification/verification-service.js';
import type { RestReply } from '../facade-rest/operation.js';
import type { KeptAnswer } from '../facade-rest/kept-public-answers.js';
import type { KeptGraphqlAnswer } from '../graph/transport/graphql-http.js';
import { watchRecordChanges } from '../graph/invalidation.js';

export type ReadCaches = {
  /** An identity's listing pages (GraphQL myRecords, REST /identity/agreements). */
  listings: AnswerCache<RecordPage> | null;
  /** A reader's record views. */
  recordViews: AnswerCache<RecordView> | null;
  /** The REST listing's answers as sent, per credential and query: kept and dropped with the pages. */
  listingAnswers: AnswerCache<RestReply> | null;
  /** The REST record read's answers as sent, per credential and URL: kept and dropped with the record views. */
  recordAnswers: AnswerCache<RestReply> | null;
  /** GraphQL record reads' answers as sent, per credential and request: kept and dropped with the record views. */
  graphqlRecordAnswers: AnswerCache<KeptGraphqlAnswer> | null;
  /** Sealed records' public answers (public record, public verification without a supplied artifact). */
  publicAnswers: AnswerCache<PublicRecordView | VerificationView> | null;
  /** The REST public record's answers as sent, per URL: kept with the public answers, dropped with them, answered before express. */
  publicAnswerBytes: AnswerCache<KeptAnswer> | null;
  /** This instance committed domain events (the journal calls it). */
  eventsCommitted: () => void;
  stop: () => Promise<void>;
};

/**
 * Every in-memory read cache of an instance, in one place: what is kept, for how long, and every
 * signal that drops it.
 * - Record views, listing pages, and the bytes of the REST listing, the REST record read and GraphQL record reads: each committed transaction of this
 *   instance (a caller reads what it just wrote), every RECORDS_CHANGED or activity notification from
 *   any instance (a trigger notifies every committed write to the tables views are made from, by any
 *   path), and a LISTEN connection that comes back (what was notified meanwhile is unknown).
 * - Sealed records' public answers, and the REST public record's bytes: this instance's committed
 *   events, and the same notifications.
 * Each is off at `0` seconds. Reused principals are the credential chain's (dropped by the credential
 * epoch and its notification), not a read cache. Each is here because it earns its memory: what it
 * earns is measured in bench/README.md.
 */
/** The bytes each cache of answers kept as sent holds at most. */
const KEPT_BYTES = 8 * 2 ** 20;

export function readCaches(settings: Config['caches'], orm: MikroORM, pubSub: PubSub): ReadCaches {
  const seconds = (value: number) => value * 1000;
  const listings = settings.listingSeconds > 0
    ? new AnswerCache<RecordPage>({ ttlMs: seconds(settings.listingSeconds), maxEntries: 1_000, maxSize: 5_000, sizeOf: (page) => page.records.length })
    : null;
  const recordViews = settings.recordSeconds > 0 ? new AnswerCache<RecordView>({ ttlMs: seconds(settings.recordSeconds), maxEntries: 10_000 }) : null;
  // Answers kept as sent are bounded by their bytes too (a listing's page is some 40 KiB): at most
  // KEPT_BYTES each, whatever callers ask (with the views and pages, well within the process's heap).
  const bytes = { maxSize: KEPT_BYTES, sizeOf: (answer: { file?: Buffer; body?: unknown }) => (Buffer.isBuffer(answer.file) ? answer.file.length : Buffer.isBuffer(answer.body) ? answer.body.length : 1024) };
  const listingAnswers = listings ? new AnswerCache<RestReply>({ ttlMs: seconds(settings.listingSeconds), maxEntries: 1_000, ...bytes }) : null;
  const recordAnswers = recordViews ? new AnswerCache<RestReply>({ ttlMs: seconds(settings.recordSeconds), maxEntries: 10_000, ...bytes }) : null;
  const graphqlRecordAnswers = recordViews ? new AnswerCache<KeptGraphqlAnswer>({ ttlMs: seconds(settings.recordSeconds), maxEntries: 10_000, ...bytes }) : null;
  const publicAnswers = settings.publicAnswerSeconds > 0
    ? new AnswerCache<PublicRecordView | VerificationView>({ ttlMs: seconds(settings.publicAnswerSeconds), maxEntries: 10_000 })
    : null;
  const publicAnswerBytes = publicAnswers ? new AnswerCache<KeptAnswer>({ ttlMs: seconds(settings.publicAnswerSeconds), maxEntries: 10_000, ...bytes }) : null;
  const dropPublicAnswers = () => {
    publicAnswers?.invalidate();
    publicAnswerBytes?.invalidate();
  };
  const dropRecordViews = () => {
    listings?.invalidate();
    listingAnswers?.invalidate();
    recordViews?.invalidate();
    recordAnswers?.invalidate();
    graphqlRecordAnswers?.invalidate();
  };
  if (listings || recordViews) orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: dropRecordViews });
  const stopWatching = publicAnswers || listings || recordViews
    ? watchRecordChanges(pubSub, () => {
        dropPublicAnswers();
        dropRecordViews();
      })
    : async () => undefined;
  return { listings, recordViews, listingAnswers, recordAnswers, graphqlRecordAnswers, publicAnswers, publicAnswerBytes, eventsCommitted: dropPublicAnswers, stop: stopWatching };
}
