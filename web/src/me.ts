import { useQuery } from 'urql';
import { MeDocument, type SignerStateFragment } from './graphql/generated';

/** The signed-in person's verified contact points: they say which participant of a record is "me". */
export function useMe(): { identityId: string | null; emails: Set<string>; contactPointIds: Set<string>; loading: boolean } {
  const [result] = useQuery({ query: MeDocument, requestPolicy: 'cache-first' });
  const points = result.data?.contactPoints ?? [];
  return {
    identityId: result.data?.authenticationStatus.identityId ?? null,
    emails: new Set(points.map((point) => point.value.toLowerCase())),
    contactPointIds: new Set(points.map((point) => point.id)),
    loading: result.fetching && !result.data,
  };
}

export function findMe<T extends SignerStateFragment>(parties: readonly T[], emails: Set<string>): T | null {
  return parties.find((party) => party.contactPointValue !== null && emails.has(party.contactPointValue.toLowerCase())) ?? null;
}
