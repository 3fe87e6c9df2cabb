import { useState } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { useSession } from '../auth';
import { endSessionOnServer } from '../client';
import { Alert, ConfirmAction, PageTitle } from '../components';
import { AcceptTeamInvitationDocument, DeclineTeamInvitationDocument, TeamInvitationPreviewDocument } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useMe } from '../me';
import { Link, navigate } from '../router';
import { TEAM_ROLE_HINTS, TEAM_ROLE_LABELS } from '../teams';

/** Why a link no longer offers anything, by the invitation's status. */
const SETTLED: Record<string, string> = {
  accepted: 'This invitation was accepted already: it works once.',
  declined: 'This invitation was declined.',
  revoked: 'The team withdrew this invitation.',
  expired: 'This invitation has expired. Ask the team’s admin for a new one.',
};

/**
 * The mailed link (/teams/invitations/<token>): what it offers is readable without signing in; only the
 * invited address, signed in, may accept or decline it. Sign-in comes back here.
 */
export function TeamInvitationPage({ token }: { token: string }) {
  const { session, signOut } = useSession();
  const [preview] = useQuery({ query: TeamInvitationPreviewDocument, variables: { token } });
  const me = useMe();
  const [accepted, accept] = useMutation(AcceptTeamInvitationDocument);
  const [declinedState, decline] = useMutation(DeclineTeamInvitationDocument);
  const [declined, setDeclined] = useState(false);
  const client = useClient();
  const invitation = preview.data?.teamInvitation;
  const here = `/teams/invitations/${encodeURIComponent(token)}`;
  const signInHere = `/sign-in?next=${encodeURIComponent(here)}`;

  if (!invitation) {
    return (
      <section className="narrow">
        <PageTitle title="Team invitation">{preview.fetching ? 'Loading invitation…' : 'Invitation not found'}</PageTitle>
        <Alert>{describeError(preview.error)}</Alert>
        {!preview.fetching && <p>Check that the address is the whole link from the mail.</p>}
      </section>
    );
  }

  const forMe = !session || me.loading || me.emails.has(invitation.email.toLowerCase());
  const join = async () => {
    const result = await accept({ token });
    if (result.data) navigate(`/teams/${result.data.acceptTeamInvitation.id}`);
  };

  return (
    <section className="narrow">
      <PageTitle title={`Invitation to ${invitation.teamName}`}>Join {invitation.teamName}</PageTitle>
      <div className="card">
        <dl className="facts" aria-label="Invitation">
          <dt>Team</dt><dd>{invitation.teamName}</dd>
          <dt>Role</dt><dd>{TEAM_ROLE_LABELS[invitation.role]}: {TEAM_ROLE_HINTS[invitation.role]}</dd>
          <dt>Invited address</dt><dd>{invitation.email}</dd>
          <dt>Expires</dt><dd>{formatDate(invitation.expiresAt)}</dd>
        </dl>
      </div>
      {declined ? (
        <Alert kind="info">You declined the invitation. <Link href="/">Go to your records</Link>.</Alert>
      ) : invitation.status !== 'pending' ? (
        <Alert kind="info">{SETTLED[invitation.status] ?? `This invitation is ${invitation.status}.`}</Alert>
      ) : !session ? (
        <div className="card">
          <p>Sign in with <strong>{invitation.email}</strong> to accept or decline. You come back here after signing in.</p>
          <Link className="button primary" href={signInHere}>Sign in to answer</Link>
        </div>
      ) : !forMe ? (
        <div className="card">
          <Alert>You are signed in as {session.email}; this invitation is for {invitation.email}. Only that address may accept it.</Alert>
          <button type="button" className="button secondary"
            onClick={() => void endSessionOnServer(client, false).finally(() => { signOut(); navigate(signInHere); })}>Sign in with another address</button>
        </div>
      ) : (
        <div className="card">
          <p>Joining lets you see the team’s records{invitation.role === 'viewer' ? '' : ' and create records that belong to it'}. You can leave the team at any time.</p>
          <Alert>{describeError(accepted.error)}</Alert>
          <div className="actions">
            <button type="button" className="button primary" disabled={accepted.fetching} onClick={() => void join()}>
              {accepted.fetching ? 'Joining…' : `Accept and join ${invitation.teamName}`}
            </button>
            <ConfirmAction label="Decline" title="Decline this invitation?" confirmLabel="Decline invitation" error={describeError(declinedState.error)}
              description={<p>The link stops working; {invitation.teamName} can invite you again.</p>}
              onConfirm={async () => {
                const result = await decline({ token });
                if (result.error) return false;
                setDeclined(true);
              }} />
          </div>
        </div>
      )}
    </section>
  );
}
