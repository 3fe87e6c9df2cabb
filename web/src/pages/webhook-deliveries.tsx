import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert } from '../components';
import { RedeliverWebhookDeliveryDocument, WebhookDeliveriesDocument, type WebhookDeliveryRowFragment, type WebhookEndpointRowFragment } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { useReload } from '../lib/reload';
import { formatDate } from '../lib/format';

const PAGE_SIZE = 10;
/** While a delivery is pending the list reads again around its next attempt, within these bounds. */
const LOOK_AGAIN_MIN_MS = 1000;
const LOOK_AGAIN_MAX_MS = 30_000;
/** How often the list considers reading again, and for how long after a request of the owner it reads each time. */
const TICK_MS = 1000;
const WATCH_AFTER_REQUEST_MS = 10_000;

const STATUS_LABELS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** How long until the list should read again, or null when nothing listed can change by itself. */
function lookAgainIn(deliveries: readonly WebhookDeliveryRowFragment[], now: number): number | null {
  const due = deliveries.filter((delivery) => delivery.status === 'pending').map((delivery) => (delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now : 0));
  if (due.length === 0) return null;
  return Math.min(LOOK_AGAIN_MAX_MS, Math.max(LOOK_AGAIN_MIN_MS, Math.min(...due) + 500));
}

/**
 * An endpoint's deliveries, newest first: what became of each event, kept current while one is
 * pending; a delivered or failed one can be sent again (same event id, a new series of attempts).
 */
export function WebhookDeliveries({ endpoint, queued, onEndpointRead, onEndpointChanged }: {
  endpoint: WebhookEndpointRowFragment;
  /** Bumped when an event was queued for the endpoint: read again now. */
  queued: number;
  /** The endpoint as read with the deliveries (it may be newer than the listed one). */
  onEndpointRead: (endpoint: WebhookEndpointRowFragment) => void;
  /** The endpoint read with the deliveries is not the one listed (a delivery disabled it). */
  onEndpointChanged: () => void;
}) {
  const headingId = useId();
  const [offset, setOffset] = useState(0);
  const [notice, setNotice] = useState('');
  const variables = useMemo(() => ({ id: endpoint.id, limit: PAGE_SIZE, offset }), [endpoint.id, offset]);
  const [result, refetch] = useQuery({ query: WebhookDeliveriesDocument, variables });
  const [redelivered, redeliver] = useMutation(RedeliverWebhookDeliveryDocument);
  // The list reads again on a steady tick, not from a one-shot timer (a timer armed on a read that
  // never came would never fire again). After the owner asks for something (a test event, a
  // redelivery, a refresh) it reads every second for a while; while a delivery is pending it reads
  // around the delivery's next attempt.
  const readAgain = useReload(result, refetch);
  const watchUntil = useRef(0);
  const nextRead = useRef<number | null>(null);
  const readNow = useCallback(() => {
    nextRead.current = null;
    readAgain();
  }, [readAgain]);
  const reload = useCallback(() => {
    watchUntil.current = Date.now() + WATCH_AFTER_REQUEST_MS;
    readNow();
  }, [readNow]);
  useEffect(() => {
    const tick = setInterval(() => {
      const now = Date.now();
      if (now < watchUntil.current || (nextRead.current !== null && now >= nextRead.current)) readNow();
    }, TICK_MS);
    return () => clearInterval(tick);
  }, [readNow]);

  useEffect(() => {
    if (queued) reload();
  }, [queued, reload]);

  const page = result.data?.webhookDeliveries;
  const deliveries = page?.deliveries;
  const current = result.data?.webhook ?? endpoint;
  const read = result.data?.webhook;
  useEffect(() => {
    if (read) onEndpointRead(read);
  }, [read, onEndpointRead]);
  useEffect(() => {
    if (current.enabled !== endpoint.enabled) onEndpointChanged();
  }, [current.enabled, endpoint.enabled, onEndpointChanged]);

  useEffect(() => {
    if (!deliveries || result.fetching) return;
    const delay = lookAgainIn(deliveries, Date.now());
    nextRead.current = delay === null ? null : Date.now() + delay;
  }, [deliveries, result.fetching]);

  const sendAgain = async (delivery: WebhookDeliveryRowFragment) => {
    const sent = await redeliver({ id: endpoint.id, deliveryId: delivery.id });
    if (sent.error) return;
    setNotice(`${delivery.type} ${delivery.eventId} is queued for redelivery.`);
    reload();
  };

  const total = page?.total ?? 0;
  return (
    <section className="card deliveries" aria-labelledby={headingId}>
      <div className="section-head">
        <h3 id={headingId}>Recent deliveries</h3>
        <button type="button" className="button secondary small" disabled={result.fetching} onClick={reload}>Refresh</button>
      </div>
      <p className="small muted">To <span className="mono">{endpoint.url}</span>, newest first. A redelivery carries the same <code>webhook-id</code> as the first attempt{current.enabled ? '' : '; enable the endpoint to redeliver'}.</p>
      <Alert>{describeError(result.error ?? redelivered.error)}</Alert>
      <p className="visually-hidden" aria-live="polite">{notice}</p>
      {page && total === 0 ? (
        <p className="empty">No deliveries yet. Send a test event to try the endpoint.</p>
      ) : (
        <ul className="delivery-list" aria-label={`Deliveries to ${endpoint.url}`} aria-busy={result.fetching}>
          {(deliveries ?? []).map((delivery) => (
            <li key={delivery.id} data-delivery={delivery.eventId} data-status={delivery.status}>
              <div className="delivery-head">
                <span><strong className="mono">{delivery.type}</strong> <span className={`badge ${delivery.status}`}>{STATUS_LABELS[delivery.status] ?? delivery.status}</span></span>
                {delivery.status !== 'pending' && (
                  <button type="button" className="button secondary small" disabled={!current.enabled || redelivered.fetching} onClick={() => void sendAgain(delivery)}>
                    Redeliver<span className="visually-hidden"> {delivery.type} {delivery.eventId}</span>
                  </button>
                )}
              </div>
              <span className="mono small muted">{delivery.eventId}</span>
              <dl className="delivery-facts">
                <div><dt>Attempts</dt><dd>{delivery.attempts}</dd></div>
                <div><dt>Last status code</dt><dd>{delivery.lastStatusCode ?? '—'}</dd></div>
                <div><dt>Last error</dt><dd>{delivery.lastError ?? '—'}</dd></div>
                <div><dt>Created</dt><dd>{formatDate(delivery.createdAt)}</dd></div>
                <div><dt>Last attempt</dt><dd>{formatDate(delivery.lastAttemptAt)}</dd></div>
                {delivery.deliveredAt && <div><dt>Delivered</dt><dd>{formatDate(delivery.deliveredAt)}</dd></div>}
                {delivery.failedAt && <div><dt>Failed</dt><dd>{formatDate(delivery.failedAt)}</dd></div>}
                {delivery.nextAttemptAt && <div><dt>Next attempt</dt><dd>{formatDate(delivery.nextAttemptAt)}</dd></div>}
              </dl>
            </li>
          ))}
        </ul>
      )}
      {total > PAGE_SIZE && (
        <nav className="pager" aria-label="Delivery pages">
          <button type="button" className="button secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>Newer</button>
          <span className="muted">{offset + 1}–{Math.min(offset + PAGE_SIZE, total)} of {total}</span>
          <button type="button" className="button secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>Older</button>
        </nav>
      )}
    </section>
  );
}
