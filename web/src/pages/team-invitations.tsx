import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction, Field } from '../components';
import { InviteTeamMemberDocument, RevokeTeamInvitationDocument, TeamInvitationsDocument, type TeamRole } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useReload } from '../lib/reload';
import { TEAM_ROLE_HINTS, TEAM_ROLE_LABELS } from '../teams';

const ROLES = Object.keys(TEAM_ROLE_LABELS) as TeamRole[];

/** An admin's view of the team's pending invitations, and the form that mails a new one. */
export function TeamInvitations({ teamId, onChanged }: { teamId: string; onChanged: () => void }) {
  const [list, refetch] = useQuery({ query: TeamInvitationsDocument, variables: { teamId } });
  const reload = useReload(list, refetch);
  const [invited, invite] = useMutation(InviteTeamMemberDocument);
  const [revoked, revoke] = useMutation(RevokeTeamInvitationDocument);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TeamRole>('member');
  const [notice, setNotice] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await invite({ teamId, input: { email: email.trim(), role } });
    if (!result.data) return;
    setNotice(`An invitation is on its way to ${result.data.inviteTeamMember.email}.`);
    setEmail('');
    reload();
    onChanged();
  };

  const pending = (list.data?.teamInvitations ?? []).filter((invitation) => invitation.status === 'pending');
  return (
    <section className="card" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Email address to invite" hint="They get a link that works once, for 7 days, signed in with this address.">
          {(props) => <input {...props} type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <Field label="Role" hint={`${TEAM_ROLE_LABELS[role]}: ${TEAM_ROLE_HINTS[role]}`}>
          {(props) => (
            <select {...props} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
              {ROLES.map((value) => <option key={value} value={value}>{TEAM_ROLE_LABELS[value]}</option>)}
            </select>
          )}
        </Field>
        <Alert>{describeError(invited.error)}</Alert>
        <Alert kind="success">{notice}</Alert>
        <button type="submit" className="button primary" disabled={invited.fetching || !email.includes('@')}>Send invitation</button>
      </form>
      <h3 className="section-gap">Pending</h3>
      <Alert>{describeError(list.error)}</Alert>
      {pending.length === 0 ? (
        <p className="small muted">No pending invitations.</p>
      ) : (
        <ul className="member-list" aria-label="Pending invitations">
          {pending.map((invitation) => (
            <li key={invitation.id} data-invitation={invitation.email}>
              <div className="party-head">
                <strong>{invitation.email}</strong>
                <span className="badge pending">{TEAM_ROLE_LABELS[invitation.role]}</span>
              </div>
              <div className="muted small">Sent {formatDate(invitation.createdAt)}; expires {formatDate(invitation.expiresAt)}</div>
              <div className="actions">
                <ConfirmAction label="Revoke" context={`the invitation of ${invitation.email}`} danger title="Revoke this invitation?" confirmLabel="Revoke invitation"
                  description={<p>The link mailed to {invitation.email} stops working at once.</p>}
                  error={describeError(revoked.error)}
                  onConfirm={async () => {
                    const result = await revoke({ teamId, invitationId: invitation.id });
                    if (result.error) return false;
                    reload();
                    onChanged();
                  }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
