import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

/**
 * The session is a short-lived bearer token. It lives in memory and in sessionStorage (this tab
 * only, gone when the tab closes) so that a reload keeps the person signed in; it never goes to
 * localStorage or a cookie. The strict Content-Security-Policy (no inline or foreign scripts) is
 * what keeps other code from reading it.
 */
const STORAGE_KEY = 'record-signing.session';

export type Session = { token: string; expiresAt: number; email: string };

type SessionContext = {
  session: Session | null;
  signIn: (session: Session) => void;
  signOut: () => void;
};

const Context = createContext<SessionContext | null>(null);

function restore(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    if (typeof parsed.token !== 'string' || typeof parsed.expiresAt !== 'number' || typeof parsed.email !== 'string') return null;
    return parsed.expiresAt > Date.now() ? (parsed as Session) : null;
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(restore);
  const signIn = useCallback((next: Session) => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    setSession(next);
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY);
    setSession(null);
  }, []);
  const value = useMemo(() => ({ session, signIn, signOut }), [session, signIn, signOut]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export function useSession(): SessionContext {
  const value = useContext(Context);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
