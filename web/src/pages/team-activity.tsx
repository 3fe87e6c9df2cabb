import { useEffect, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { Alert } from '../components';
import { TeamActivityDocument, type TeamMemberRowFragment } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';

const PAGE_SIZE = 20;

type Details = Record<string, string | null | undefined>;

/** An entry in words; an action this page does not know yet is shown by its name. */
function describe(action: string, details: Details): string {
  const role = details.role ?? details.to ?? '';
  switch (action) {
    case 'team_created': return `Created the team “${details.name ?? ''}”`;
    case 'team_renamed': return `Renamed the team to “${details.name ?? ''}”`;
    case 'member_invited': return `Invited ${details.email ?? 'someone'} as ${role}`;
    case 'invitation_revoked': return 'Revoked an invitation';
    case 'invitation_declined': return 'Declined an invitation';
    case 'member_joined': return `Joined as ${role}`;
    case 'member_role_changed': return `Changed a member’s role from ${details.from ?? '?'} to ${details.to ?? '?'}`;
    case 'member_removed': return `Removed a member (${role})`;
    case 'member_left': return 'Left the team';
    case 'api_key_created': return `Created the API key ${details.key_prefix ?? ''}…`;
    case 'api_key_revoked': return 'Revoked an API key';
    case 'webhook_created': return `Added the webhook ${details.url ?? ''}`;
    case 'webhook_changed': return `Changed the webhook ${details.url ?? ''}`;
    case 'webhook_deleted': return `Deleted the webhook ${details.url ?? ''}`;
    default: return action.replace(/_/g, ' ');
  }
}

function parse(details: string): Details {
  try {
    return JSON.parse(details) as Details;
  } catch {
    return {};
  }
}

/**
 * The team's activity log, newest first on screen (the API pages it oldest first): who joined, left,
 * changed roles, keys and webhooks. Each entry is chained to the one before it (its hash is shown).
 */
export function TeamActivity({ teamId, members, changes }: { teamId: string; members: readonly TeamMemberRowFragment[]; changes: number }) {
  const [offset, setOffset] = useState<number | null>(null);
  // The total first (one entry), to open on the newest page.
  const [first, refetchTotal] = useQuery({ query: TeamActivityDocument, variables: { teamId, limit: 1, offset: 0 }, requestPolicy: 'network-only' });
  const total = first.data?.teamActivity.total ?? 0;
  // The newest page: the last PAGE_SIZE entries, unless the person paged back.
  const start = offset ?? Math.max(0, total - PAGE_SIZE);
  const variables = useMemo(() => ({ teamId, limit: PAGE_SIZE, offset: start }), [teamId, start]);
  const [result, refetch] = useQuery({ query: TeamActivityDocument, variables, pause: !first.data });

  useEffect(() => {
    if (changes === 0) return;
    refetchTotal({ requestPolicy: 'network-only' });
    refetch({ requestPolicy: 'network-only' });
  }, [changes, refetch, refetchTotal]);

  const who = (identityId: string | null) => members.find((member) => member.identityId === identityId)?.email ?? (identityId ? 'A former member' : 'The service');
  const entries = [...(result.data?.teamActivity.entries ?? [])].reverse();
  return (
    <section className="settings-section" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <p className="lead">Every change to who belongs to the team and to what acts for it, hash-chained like a record’s audit trail.</p>
      <Alert>{describeError(first.error ?? result.error)}</Alert>
      {entries.length === 0 ? (
        <p className="card empty">{result.fetching || first.fetching ? 'Loading…' : 'No activity yet.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="audit-table">
            <caption className="visually-hidden">Team activity, newest first</caption>
            <thead>
              <tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">Entry hash</th></tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.seq} data-action={entry.action}>
                  <td>{formatDate(entry.at)}</td>
                  <td className="audit-what">{describe(entry.action, parse(entry.details))}</td>
                  <td>{who(entry.actorIdentityId)}</td>
                  <td className="mono small" title={entry.entryHash}>{entry.entryHash.slice(0, 19)}…</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > PAGE_SIZE && (
        <nav className="pager" aria-label="Activity pages">
          <button type="button" className="button secondary" disabled={start + PAGE_SIZE >= total} onClick={() => setOffset(Math.min(total - PAGE_SIZE, start + PAGE_SIZE))}>Newer</button>
          <span className="muted">{start + 1}–{Math.min(start + PAGE_SIZE, total)} of {total}</span>
          <button type="button" className="button secondary" disabled={start === 0} onClick={() => setOffset(Math.max(0, start - PAGE_SIZE))}>Older</button>
        </nav>
      )}
    </section>
  );
}
