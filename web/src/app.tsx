import { useEffect, useMemo } from 'react';
import { Provider } from 'urql';
import { useSession } from './auth';
import { createGraphClient, endSessionOnServer } from './client';
import { Link, matchRoute, navigate, usePath, type Route } from './router';
import { SignInPage } from './pages/sign-in';
import { DashboardPage } from './pages/dashboard';
import { CreatePage } from './pages/create';
import { RecordPage } from './pages/record';
import { SignPage } from './pages/sign';
import { VerifyPage } from './pages/verify';
import { SecretInputPage } from './pages/secret-input';
import { KeysPage } from './pages/keys';
import { TeamsPage } from './pages/teams';
import { TeamPage } from './pages/team';
import { TeamInvitationPage } from './pages/team-invitation';
import { TemplatesPage } from './pages/templates';
import { TemplateEditPage } from './pages/template-edit';
import { UseTemplatePage } from './pages/template-use';
import { BulkSendPage } from './pages/template-bulk';
import { ExportsPage } from './pages/exports';
import { WorkspaceSwitcher } from './workspace-switcher';
import { PageTitle } from './components';

/**
 * Pages that need a session; the others (sign-in, public verification) work without one. An invitation's
 * page shows what it offers first and asks for sign-in itself.
 */
const PRIVATE: ReadonlySet<Route['page']> = new Set(['home', 'new', 'record', 'sign', 'keys', 'teams', 'team', 'templates', 'template', 'template-use', 'template-bulk', 'exports']);

export function App() {
  const { session, signOut } = useSession();
  const token = session?.token ?? null;
  const graph = useMemo(() => createGraphClient(token, signOut), [token, signOut]);
  useEffect(() => graph.dispose, [graph]);
  const path = usePath();
  const route = matchRoute(path);
  const needsSession = PRIVATE.has(route.page) && !session;

  useEffect(() => {
    if (needsSession) navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
  }, [needsSession]);

  return (
    <Provider value={graph.client}>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="site-header">
        <div className="header-inner">
          <Link href={session ? '/' : '/verify'} className="brand">
            <svg aria-hidden="true" viewBox="0 0 32 32" width="28" height="28"><rect width="32" height="32" rx="7" /><path d="M9 17l5 5 9-11" /></svg>
            <span>Record Signing</span>
          </Link>
          <nav aria-label="Main">
            <ul>
              {session && <li><Link href="/" aria-current={route.page === 'home' ? 'page' : undefined}>Records</Link></li>}
              {session && <li><Link href="/records/new" aria-current={route.page === 'new' ? 'page' : undefined}>New record</Link></li>}
              {session && <li><Link href="/templates" aria-current={route.page.startsWith('template') ? 'page' : undefined}>Templates</Link></li>}
              {session && <li><Link href="/exports" aria-current={route.page === 'exports' ? 'page' : undefined}>Exports</Link></li>}
              <li><Link href="/verify" aria-current={route.page === 'verify' ? 'page' : undefined}>Verify</Link></li>
              {session && <li><Link href="/keys" aria-current={route.page === 'keys' ? 'page' : undefined}>API keys</Link></li>}
              {session && <li><Link href="/teams" aria-current={route.page === 'teams' ? 'page' : undefined}>Teams</Link></li>}
              {session && <li><WorkspaceSwitcher /></li>}
              {session ? (
                <li>
                  <button type="button" className="link-button" onClick={() => void endSessionOnServer(graph.client, false).finally(() => { signOut(); navigate('/sign-in'); })}>
                    Sign out<span className="visually-hidden"> {session.email}</span>
                  </button>
                </li>
              ) : (
                route.page !== 'sign-in' && <li><Link href="/sign-in">Sign in</Link></li>
              )}
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" className="page">{needsSession ? null : <Page route={route} />}</main>
      <footer className="site-footer">
        <p>
          Signing proves intent for one version of a record; sign-in only proves access. This service is not a legal service.{' '}
          <a href="/api/docs">API documentation</a>
        </p>
      </footer>
    </Provider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'home':
      return <DashboardPage />;
    case 'sign-in':
      return <SignInPage />;
    case 'new':
      return <CreatePage />;
    case 'record':
      return <RecordPage id={route.id} key={route.id} />;
    case 'sign':
      return <SignPage id={route.id} key={route.id} />;
    case 'verify':
      return <VerifyPage reference={route.reference} key={route.reference ?? ''} />;
    case 'keys':
      return <KeysPage />;
    case 'secret-input':
      return <SecretInputPage />;
    case 'teams':
      return <TeamsPage />;
    case 'team':
      return <TeamPage id={route.id} key={route.id} />;
    case 'team-invitation':
      return <TeamInvitationPage token={route.token} key={route.token} />;
    case 'templates':
      return <TemplatesPage />;
    case 'template':
      return <TemplateEditPage id={route.id} key={route.id ?? 'new'} />;
    case 'template-use':
      return <UseTemplatePage id={route.id} key={route.id} />;
    case 'template-bulk':
      return <BulkSendPage id={route.id} key={route.id} />;
    case 'exports':
      return <ExportsPage />;
    case 'not-found':
      return (
        <section>
          <PageTitle title="Not found">Page not found</PageTitle>
          <p>There is nothing at this address. <Link href="/">Go to your records</Link> or <Link href="/verify">verify a record</Link>.</p>
        </section>
      );
  }
}
