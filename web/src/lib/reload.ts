import { useCallback, useEffect, useRef, useState } from 'react';
import type { OperationContext } from 'urql';

/**
 * A reload of a `useQuery` read that is never lost. urql drops a refetch asked for while the same
 * query is in flight: `fetching`, or `stale` while the client runs it again after a mutation named
 * one of its types. That read may have begun before the change the reload is for, so such a reload is
 * made again once the read in flight has answered.
 */
export function useReload(result: { fetching: boolean; stale: boolean }, refetch: (context?: Partial<OperationContext>) => void): () => void {
  const busy = result.fetching || result.stale;
  const inFlight = useRef(busy);
  inFlight.current = busy;
  const [owed, setOwed] = useState(false);
  const reload = useCallback(() => {
    if (inFlight.current) setOwed(true);
    else refetch({ requestPolicy: 'network-only' });
  }, [refetch]);
  useEffect(() => {
    if (busy || !owed) return;
    setOwed(false);
    refetch({ requestPolicy: 'network-only' });
  }, [busy, owed, refetch]);
  return reload;
}
