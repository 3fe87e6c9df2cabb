import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** A tiny history router: the few routes of this UI do not need a routing library. */
const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((notify) => notify());
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

export function useQueryParams(): URLSearchParams {
  usePath();
  return new URLSearchParams(location.search);
}

export type Route =
  | { page: 'home' }
  | { page: 'sign-in' }
  | { page: 'new' }
  | { page: 'record'; id: string }
  | { page: 'sign'; id: string }
  | { page: 'verify'; reference: string | null }
  | { page: 'keys' }
  | { page: 'teams' }
  | { page: 'team'; id: string }
  | { page: 'team-invitation'; token: string }
  | { page: 'secret-input' }
  | { page: 'templates' }
  | { page: 'template'; id: string | null }
  | { page: 'template-use'; id: string }
  | { page: 'template-bulk'; id: string }
  | { page: 'exports' }
  | { page: 'not-found' };

/** The client-side routes; the server answers index.html for each of them. */
export function matchRoute(path: string): Route {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second, third] = parts;
  if (parts.length === 0) return { page: 'home' };
  if (first === 'sign-in' && parts.length === 1) return { page: 'sign-in' };
  if (first === 'keys' && parts.length === 1) return { page: 'keys' };
  if (first === 'teams' && parts.length === 1) return { page: 'teams' };
  if (first === 'teams' && second === 'invitations' && third && parts.length === 3) return { page: 'team-invitation', token: third };
  if (first === 'teams' && second && parts.length === 2) return { page: 'team', id: second };
  if (first === 'templates' && parts.length === 1) return { page: 'templates' };
  if (first === 'templates' && second && parts.length === 2) return { page: 'template', id: second === 'new' ? null : second };
  if (first === 'templates' && second && third === 'use' && parts.length === 3) return { page: 'template-use', id: second };
  if (first === 'templates' && second && third === 'bulk' && parts.length === 3) return { page: 'template-bulk', id: second };
  if (first === 'exports' && parts.length === 1) return { page: 'exports' };
  if (first === 'secret-input' && parts.length === 1) return { page: 'secret-input' };
  if (first === 'verify' && parts.length <= 2) return { page: 'verify', reference: second ?? null };
  if (first === 'records' && second === 'new' && parts.length === 2) return { page: 'new' };
  if (first === 'records' && second && parts.length === 2) return { page: 'record', id: second };
  if (first === 'records' && second && third === 'sign' && parts.length === 3) return { page: 'sign', id: second };
  return { page: 'not-found' };
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
