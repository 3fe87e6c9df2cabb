import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction, CopyButton, Field } from '../components';
import {
  CreateTeamWebhookDocument,
  CreateWebhookDocument,
  DeleteWebhookDocument,
  RotateWebhookSecretDocument,
  TeamWebhooksDocument,
  TestWebhookDocument,
  UpdateWebhookDocument,
  WebhooksDocument,
  type WebhookEndpointRowFragment,
} from '../graphql/generated';
import { describeError } from '../lib/errors';
import { useReload } from '../lib/reload';
import { formatDate } from '../lib/format';
import { WebhookDeliveries } from './webhook-deliveries';
import { RECORD_EVENT_TYPES } from '../../../src/domain/webhooks/events.js';

/** What each record event means, in words; the order and the list are the service's own (RECORD_EVENT_TYPES). */
const MEANING: Record<(typeof RECORD_EVENT_TYPES)[number], string> = {
  'record.created': 'a record, amendment or cancellation is created',
  'record.submitted': 'a draft goes out for signatures',
  'participant.signed': 'a participant signs a version',
  'participant.declined': 'a participant declines',
  'counter.proposed': 'a counter-proposal is made',
  'counter.resolved': 'a counter-proposal is resolved or withdrawn',
  'record.sealed': 'every signature is in',
  'record.artifacts_ready': 'the sealed PDF and share card exist',
  'record.anchored': 'the seal is confirmed on the blockchain',
  'record.rescinded': 'a record is rescinded',
  'record.expired': 'a record lapses unsigned',
  'record.cancelled': 'a draft is cancelled',
  'record.superseded': 'an amendment or cancellation is sealed',
};
/** The record events an endpoint can subscribe to, in the order of a record's life (`webhook.test` is sent on request only). */
const EVENTS = RECORD_EVENT_TYPES.map((type) => ({ type: type, text: MEANING[type] }));

const DESCRIPTION_MAX = 200;

/** Why an endpoint receives nothing (`disabledReason`). */
const DISABLED_REASONS: Record<string, string> = {
  owner: 'Paused by you',
  gone: 'Disabled after it answered 410 Gone',
  failing: 'Disabled after its deliveries kept failing',
};

type ShownSecret = { secret: string; url: string; previousUntil: string | null };

/** The later of two reads of an endpoint (by `updatedAt`, which every change moves on). */
function newer(listed: WebhookEndpointRowFragment, other: WebhookEndpointRowFragment | null): WebhookEndpointRowFragment {
  return other && other.id === listed.id && Date.parse(other.updatedAt) > Date.parse(listed.updatedAt) ? other : listed;
}

function endpointName(endpoint: WebhookEndpointRowFragment): string {
  return endpoint.description ?? endpoint.url;
}

/** The endpoints of the signed-in identity, or with a team id the team's (its admins manage them with the same operations). */
function useEndpoints(teamId: string | undefined) {
  const [mine, refetchMine] = useQuery({ query: WebhooksDocument, pause: teamId !== undefined });
  const [team, refetchTeam] = useQuery({ query: TeamWebhooksDocument, variables: { teamId: teamId ?? '' }, pause: teamId === undefined });
  const reloadMine = useReload(mine, refetchMine);
  const reloadTeam = useReload(team, refetchTeam);
  return teamId === undefined
    ? { listed: mine.data?.webhooks, error: mine.error, reload: reloadMine }
    : { listed: team.data?.teamWebhooks, error: team.error, reload: reloadTeam };
}

/**
 * Webhook endpoints of the signed-in identity beside its API keys, or of a team on its page: the signing
 * secret is shown once (at creation and at each rotation); an endpoint's recent deliveries open below the list.
 */
export function WebhooksSection({ teamId, onChanged }: { teamId?: string; onChanged?: () => void } = {}) {
  const list = useEndpoints(teamId);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  // Bumped when a test event is queued, so that the open deliveries list reads again at once.
  const [queued, setQueued] = useState(0);
  const reload = () => {
    list.reload();
    onChanged?.();
  };

  // The endpoint as the deliveries list last read it: a delivery can disable it (410 Gone) after the
  // list was read, and a list read already under way answers the older state. The newer read wins.
  const [readWithDeliveries, setReadWithDeliveries] = useState<WebhookEndpointRowFragment | null>(null);
  const endpoints = (list.listed ?? []).map((endpoint) => newer(endpoint, readWithDeliveries));
  const open = endpoints.find((endpoint) => endpoint.id === selected) ?? null;
  const headingId = teamId === undefined ? 'webhooks-heading' : 'team-webhooks-heading';
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{teamId === undefined ? 'Webhooks' : 'Team webhooks'}</h2>
      <p className="lead">Endpoints receive {teamId === undefined ? 'your' : 'the team’s'} records’ events as they happen, signed with the endpoint’s secret (Standard Webhooks). Failed deliveries are retried for about three days.</p>
      {shown && (
        <div className="card" role="status">
          <h3>Signing secret for <span className="mono">{shown.url}</span></h3>
          <p>Copy it now: it is shown only once and cannot be recovered. Your receiver checks each delivery’s <code>webhook-signature</code> header with it.</p>
          {shown.previousUntil && <p>The previous secret keeps signing alongside it until {formatDate(shown.previousUntil)}.</p>}
          <div className="secret">
            <code data-secret="webhook-secret">{shown.secret}</code>
            <CopyButton text={shown.secret} label="Copy secret" />
          </div>
          <div className="actions"><button type="button" className="button secondary" onClick={() => setShown(null)}>I have stored it</button></div>
        </div>
      )}
      <div className="grid-2">
        <div>
          <h3>Endpoints</h3>
          <Alert>{describeError(list.error)}</Alert>
          {endpoints.length === 0 ? (
            <p className="card empty">No webhook endpoints.</p>
          ) : (
            <ul className="endpoint-list" aria-label="Webhook endpoints">
              {endpoints.map((endpoint) => (
                <EndpointItem key={endpoint.id} endpoint={endpoint} open={endpoint.id === selected}
                  onToggle={() => setSelected(endpoint.id === selected ? null : endpoint.id)}
                  onSecret={setShown}
                  onTested={() => { setSelected(endpoint.id); setQueued((n) => n + 1); }}
                  onChanged={reload}
                  onDeleted={() => { if (endpoint.id === selected) setSelected(null); reload(); }} />
              ))}
            </ul>
          )}
          {open && <WebhookDeliveries key={open.id} endpoint={open} queued={queued} onEndpointRead={setReadWithDeliveries} onEndpointChanged={list.reload} />}
        </div>
        <AddEndpointForm teamId={teamId} onCreated={(secret, endpoint) => {
          setShown({ secret, url: endpoint.url, previousUntil: null });
          setSelected(endpoint.id);
          reload();
        }} />
      </div>
    </section>
  );
}

function AddEndpointForm({ teamId, onCreated }: { teamId: string | undefined; onCreated: (secret: string, endpoint: WebhookEndpointRowFragment) => void }) {
  const [createdMine, createMine] = useMutation(CreateWebhookDocument);
  const [createdForTeam, createForTeam] = useMutation(CreateTeamWebhookDocument);
  const created = teamId === undefined ? createdMine : createdForTeam;
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<Set<string>>(new Set(EVENTS.map(({ type }) => type)));

  const toggle = (type: string, on: boolean) => {
    const next = new Set(events);
    if (on) next.add(type);
    else next.delete(type);
    setEvents(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const chosen = EVENTS.map(({ type }) => type).filter((type) => events.has(type));
    const input = { url: url.trim(), events: chosen, ...(description.trim() ? { description: description.trim() } : {}) };
    const made = teamId === undefined
      ? (await createMine({ input })).data?.createWebhook
      : (await createForTeam({ teamId, input })).data?.createTeamWebhook;
    if (made) {
      onCreated(made.secret, made.webhook);
      setUrl('');
      setDescription('');
    }
  };

  return (
    <form className="card" onSubmit={(event) => void submit(event)}>
      <h3>Add an endpoint</h3>
      <Field label="Endpoint URL" hint="https; the service POSTs each event here as JSON">
        {(props) => <input {...props} type="url" required placeholder="https://example.com/hooks/records" value={url} onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map(({ type, text }) => (
          <label className="check" key={type}>
            <input type="checkbox" checked={events.has(type)} onChange={(e) => toggle(type, e.target.checked)} />
            <span><strong className="mono">{type}</strong>: {text}</span>
          </label>
        ))}
        <p className="small muted">A test event can be sent to any endpoint, whatever it subscribes to.</p>
      </fieldset>
      <Field label="Description (optional)" hint="What receives it, e.g. “billing system”">
        {(props) => <input {...props} type="text" maxLength={DESCRIPTION_MAX} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Alert>{describeError(created.error)}</Alert>
      <button type="submit" className="button primary" disabled={created.fetching || events.size === 0 || !url.trim()}>Add endpoint</button>
    </form>
  );
}

function EndpointItem({ endpoint, open, onToggle, onSecret, onTested, onChanged, onDeleted }: {
  endpoint: WebhookEndpointRowFragment;
  open: boolean;
  onToggle: () => void;
  onSecret: (shown: ShownSecret) => void;
  onTested: () => void;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const [updated, update] = useMutation(UpdateWebhookDocument);
  const [rotated, rotate] = useMutation(RotateWebhookSecretDocument);
  const [deleted, remove] = useMutation(DeleteWebhookDocument);
  const [tested, test] = useMutation(TestWebhookDocument);
  const name = endpointName(endpoint);
  const state = endpoint.enabled ? 'enabled' : endpoint.disabledReason === 'owner' ? 'paused' : 'disabled';

  const setEnabled = async (enabled: boolean) => {
    const result = await update({ id: endpoint.id, input: { enabled } });
    if (!result.error) onChanged();
    return !result.error;
  };
  const sendTest = async () => {
    const result = await test({ id: endpoint.id });
    if (!result.error) onTested();
  };

  return (
    <li className="endpoint" data-webhook={endpoint.url}>
      <div className="endpoint-head">
        <span className="mono endpoint-url">{endpoint.url}</span>
        <span className={`badge ${state}`}>{state === 'enabled' ? 'Enabled' : state === 'paused' ? 'Paused' : 'Disabled'}</span>
      </div>
      {endpoint.description && <p className="endpoint-description">{endpoint.description}</p>}
      {!endpoint.enabled && (
        <p className="small endpoint-reason">{DISABLED_REASONS[endpoint.disabledReason ?? ''] ?? 'Disabled'} on {formatDate(endpoint.disabledAt)}: nothing is sent to it.</p>
      )}
      <p className="small"><span className="muted">Events: </span>{EVENTS.every(({ type }) => endpoint.events.includes(type)) ? 'all record events' : endpoint.events.join(', ')}</p>
      <p className="small muted">
        Added {formatDate(endpoint.createdAt)}
        {endpoint.previousSecretExpiresAt && <>; the previous secret signs too until {formatDate(endpoint.previousSecretExpiresAt)}</>}
      </p>
      <Alert>{describeError(tested.error ?? (endpoint.enabled ? null : updated.error))}</Alert>
      <div className="actions">
        <button type="button" className="button secondary" aria-expanded={open} onClick={onToggle}>
          {open ? 'Hide deliveries' : 'Show deliveries'}<span className="visually-hidden"> of {name}</span>
        </button>
        <button type="button" className="button secondary" disabled={!endpoint.enabled || tested.fetching} onClick={() => void sendTest()}>
          Send test event<span className="visually-hidden"> to {name}</span>
        </button>
        {endpoint.enabled ? (
          <ConfirmAction label="Pause" context={name} title="Pause this endpoint?" confirmLabel="Pause endpoint"
            description={<p>Nothing is sent to <span className="mono">{endpoint.url}</span> while it is paused, and its pending deliveries fail. You can redeliver them after enabling it again.</p>}
            error={describeError(updated.error)}
            onConfirm={() => setEnabled(false)} />
        ) : (
          <button type="button" className="button secondary" disabled={updated.fetching} onClick={() => void setEnabled(true)}>
            Enable<span className="visually-hidden"> {name}</span>
          </button>
        )}
        <ConfirmAction label="Rotate secret" context={`of ${name}`} title="Rotate the signing secret?" confirmLabel="Rotate secret"
          description={<p>A new secret is shown once. The current one keeps signing alongside it for 24 hours, time to give your receiver the new one.</p>}
          error={describeError(rotated.error)}
          onConfirm={async () => {
            const result = await rotate({ id: endpoint.id });
            if (result.data) {
              const { secret, webhook } = result.data.rotateWebhookSecret;
              onSecret({ secret, url: webhook.url, previousUntil: webhook.previousSecretExpiresAt });
              onChanged();
            }
            return !result.error;
          }} />
        <ConfirmAction label="Delete" context={name} danger title="Delete this endpoint?" confirmLabel="Delete endpoint"
          description={<p>Nothing more is sent to <span className="mono">{endpoint.url}</span>, not even a retry, and its delivery history is deleted. This cannot be undone.</p>}
          error={describeError(deleted.error)}
          onConfirm={async () => {
            const result = await remove({ id: endpoint.id });
            if (!result.error) onDeleted();
            return !result.error;
          }} />
      </div>
    </li>
  );
}
