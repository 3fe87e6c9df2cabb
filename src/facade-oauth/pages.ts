/**
 * The server-rendered pages of the connector flow: the consent page (two steps) and the error
 * page. Same look as the web UI (its colours, type and components, in a small stylesheet of their
 * own), no script, every value escaped. Everything a client registered (its name) is shown as the
 * client's own claim, never as something this service vouches for.
 */

import { SCOPE_DESCRIPTIONS } from '../domain/vocabulary.js';

export const CONSENT_STYLESHEET_PATH = '/oauth/consent.css';

const PERMISSIONS: Readonly<Record<string, string>> = SCOPE_DESCRIPTIONS;

export type ConsentView = {
  uid: string;
  clientName: string | null;
  clientId: string;
  /** When the client id is a Client ID Metadata Document: the host that published it, and its client_uri's host. */
  metadataDocument: { host: string; clientUriHost: string | null } | null;
  redirectOrigin: string;
  scopes: readonly string[];
  /** The date the connection would end (90 days from now). */
  until: Date;
};

export type ConsentStep =
  | { step: 'email'; email?: string; error?: string }
  | { step: 'code'; email: string; verificationEventId: string; error?: string }
  | { step: 'teams'; grantId: string; teams: readonly { id: string; name: string; role: string }[] };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Record Signing</title>
<link rel="stylesheet" href="${CONSENT_STYLESHEET_PATH}">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><div class="header-inner"><span class="brand"><svg aria-hidden="true" viewBox="0 0 32 32" width="28" height="28"><rect width="32" height="32" rx="7" /><path d="M9 17l5 5 9-11" /></svg><span>Record Signing</span></span></div></header>
<main id="main" class="page"><div class="narrow">
${main}
</div></main>
<footer class="site-footer"><p>Connecting an assistant proves access only: it can never sign a record for you.</p></footer>
</body>
</html>`;
}

function formatDate(date: Date): string {
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

function summary(view: ConsentView): string {
  const name = view.clientName ? escapeHtml(view.clientName) : 'An unnamed application';
  const items = view.scopes.flatMap((scope) => {
    const meaning = PERMISSIONS[scope];
    return meaning ? [`<li><strong>${scope}</strong>: ${escapeHtml(meaning)}</li>`] : [];
  });
  return `<h1>Connect ${name}?</h1>
<p class="lead">An assistant asks to act on your records.</p>
<section class="card" aria-labelledby="who">
<h2 id="who">Who is asking</h2>
<dl class="facts">
<dt>Application</dt><dd>${name} <span class="muted small">(the name it gave itself${view.metadataDocument ? `, published by <code>${escapeHtml(view.metadataDocument.host)}</code>` : ''})</span></dd>
${view.metadataDocument?.clientUriHost ? `<dt>Its website</dt><dd><code>${escapeHtml(view.metadataDocument.clientUriHost)}</code> <span class="muted small">(as the application says)</span></dd>\n` : ''}<dt>Sends you back to</dt><dd><code>${escapeHtml(view.redirectOrigin)}</code></dd>
<dt>Client id</dt><dd><code>${escapeHtml(view.clientId)}</code></dd>
</dl>
</section>
<section class="card" aria-labelledby="what">
<h2 id="what">What it may do</h2>
<ul class="permissions">${items.join('')}</ul>
<p>For <strong>90 days</strong>, until ${formatDate(view.until)}, unless you disconnect it earlier. It can never sign a record or finalize a signature for you.</p>
</section>`;
}

function alert(error: string | undefined, id: string): string {
  return error ? `<div class="alert alert-error" role="alert" id="${id}">${escapeHtml(error)}</div>` : '';
}

function denyForm(uid: string): string {
  return `<form method="post" action="/oauth/consent/${encodeURIComponent(uid)}/deny" class="deny-form"><button type="submit" class="button secondary">Deny</button></form>`;
}

/** The last step for a person in teams: which of them the connector may act for (none checked: personal only). */
function teamsStep(view: ConsentView, state: Extract<ConsentStep, { step: 'teams' }>): string {
  const uid = encodeURIComponent(view.uid);
  const who = view.clientName ? escapeHtml(view.clientName) : 'this application';
  const boxes = state.teams
    .map(
      (team, index) =>
        `<div class="check"><input type="checkbox" id="team-${index}" name="team" value="${escapeHtml(team.id)}"><label for="team-${index}">${escapeHtml(team.name)} <span class="muted small">(you are ${team.role === 'admin' ? 'an admin' : `a ${escapeHtml(team.role)}`})</span></label></div>`,
    )
    .join('\n');
  return `<section class="card" aria-labelledby="teams">
<h2 id="teams">Your teams</h2>
<p>Your code is confirmed. ${who} acts for you personally; tick the teams it may also act for, with your role in each. Leave them all unticked to keep it personal.</p>
<form method="post" action="/oauth/consent/${uid}/teams">
<input type="hidden" name="grant_id" value="${escapeHtml(state.grantId)}">
<fieldset><legend>Teams ${who} may act for</legend>
${boxes}
</fieldset>
<div class="actions"><button type="submit" class="button primary">Finish connecting</button></div>
</form>
</section>`;
}

export function renderConsentPage(view: ConsentView, state: ConsentStep): string {
  const uid = encodeURIComponent(view.uid);
  const step =
    state.step === 'teams'
      ? teamsStep(view, state)
      : state.step === 'email'
      ? `<section class="card" aria-labelledby="prove">
<h2 id="prove">Confirm with your email</h2>
<p>We email you a one-time code. Entering it here is your consent.</p>
${alert(state.error, 'email-error')}
<form method="post" action="/oauth/consent/${uid}/email" novalidate>
<div class="field"><label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(state.email ?? '')}"${state.error ? ' aria-invalid="true" aria-describedby="email-error"' : ''}></div>
<div class="actions"><button type="submit" class="button primary">Email me a code</button></div>
</form>
<div class="actions">${denyForm(view.uid)}</div>
</section>`
      : `<section class="card" aria-labelledby="prove">
<h2 id="prove">Enter the code</h2>
<p role="status">We sent a six-digit code to <strong>${escapeHtml(state.email)}</strong>. Submitting it allows ${view.clientName ? escapeHtml(view.clientName) : 'this application'} the access above.</p>
${alert(state.error, 'code-error')}
<form method="post" action="/oauth/consent/${uid}/confirm" novalidate>
<input type="hidden" name="verification_event_id" value="${escapeHtml(state.verificationEventId)}">
<input type="hidden" name="email" value="${escapeHtml(state.email)}">
<div class="field"><label for="code">Six-digit code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required${state.error ? ' aria-invalid="true" aria-describedby="code-error"' : ''}></div>
<div class="actions"><button type="submit" class="button primary">Allow access</button></div>
</form>
<div class="actions">${denyForm(view.uid)}<a href="/oauth/consent/${uid}">Use another email address</a></div>
</section>`;
  return layout(`Connect ${view.clientName ?? 'an application'}`, summary(view) + step);
}

export function renderErrorPage(error: string, description?: string): string {
  return layout(
    'Connection refused',
    `<h1>This connection cannot go ahead</h1>
<div class="alert alert-error" role="alert"><p><strong>${escapeHtml(error)}</strong></p>${description ? `<p>${escapeHtml(description)}</p>` : ''}</div>
<p>Nothing was shared. Go back to your assistant and start connecting again.</p>`,
  );
}

/** The web UI's look, reduced to what these pages use (web/src/styles.css is the source). */
export const CONSENT_STYLESHEET = `:root{--accent:#1f5f8b;--accent-dark:#164766;--accent-soft:#e8f1f7;--ink:#1d2630;--muted:#55606c;--line:#d5dbe1;--surface:#fff;--background:#f6f7f9;--bad:#a4262c;--bad-soft:#fbeaea;--radius:8px;--focus:0 0 0 3px #fff,0 0 0 5px var(--accent);font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;font-size:16px;line-height:1.55;color:var(--ink);background:var(--background);-webkit-text-size-adjust:100%}
*,*::before,*::after{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;flex-direction:column}
h1,h2{line-height:1.25;margin:0 0 .6em;font-weight:650;letter-spacing:-.01em}
h1{font-size:1.75rem}h2{font-size:1.25rem}
p{margin:0 0 1em}
a{color:var(--accent);text-underline-offset:2px}
code{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
:focus-visible{outline:none;box-shadow:var(--focus);border-radius:4px}
.skip-link{position:absolute;left:1rem;top:-3rem;background:var(--surface);padding:.5rem 1rem;border-radius:var(--radius);z-index:10}
.skip-link:focus{top:.5rem}
.site-header{background:var(--surface);border-bottom:1px solid var(--line)}
.header-inner{max-width:72rem;margin:0 auto;padding:.75rem 1.25rem;display:flex;align-items:center}
.brand{display:inline-flex;align-items:center;gap:.6rem;font-weight:700;color:var(--ink);font-size:1.1rem}
.brand svg rect{fill:var(--accent)}
.brand svg path{fill:none;stroke:#fff;stroke-width:3;stroke-linecap:round;stroke-linejoin:round}
.site-footer{margin-top:auto;border-top:1px solid var(--line);color:var(--muted);font-size:.85rem}
.site-footer p{max-width:72rem;margin:0 auto;padding:1rem 1.25rem}
.page{width:100%;max-width:72rem;margin:0 auto;padding:2rem 1.25rem 3rem;flex:1}
.narrow{max-width:34rem;margin:0 auto}
.lead{color:var(--muted);font-size:1.05rem}
.muted{color:var(--muted)}.small{font-size:.875rem}
.card{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin-bottom:1.25rem}
.card>:last-child{margin-bottom:0}
dl.facts{display:grid;grid-template-columns:minmax(6rem,max-content) minmax(0,1fr);gap:.35rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.permissions{padding-left:1.2rem;margin:0 0 1em}.permissions li{margin-bottom:.35rem}
.field{margin-bottom:1rem}
.field label{display:block;font-weight:600;margin-bottom:.3rem}
input[type=text],input[type=email]{width:100%;font:inherit;color:var(--ink);background:var(--surface);border:1px solid #9aa5b1;border-radius:6px;padding:.55rem .7rem;min-height:2.75rem}
input:focus-visible{border-color:var(--accent)}
fieldset{border:0;padding:0;margin:0 0 1rem}legend{font-weight:600;margin-bottom:.4rem}.check{display:flex;gap:.6rem;align-items:center;min-height:2.75rem}.check input{width:1.25rem;height:1.25rem}
input[aria-invalid=true]{border-color:var(--bad)}
.button{display:inline-flex;align-items:center;justify-content:center;font:inherit;font-weight:600;border-radius:6px;padding:.55rem 1.1rem;min-height:2.75rem;cursor:pointer;border:1px solid transparent;line-height:1.2}
.button.primary{background:var(--accent);color:#fff}.button.primary:hover{background:var(--accent-dark)}
.button.secondary{background:var(--surface);color:var(--accent-dark);border-color:#9aa5b1}.button.secondary:hover{border-color:var(--accent)}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin-top:1rem}
.deny-form{margin:0}
.alert{border-radius:6px;padding:.75rem 1rem;margin:0 0 1rem;border-left:4px solid}
.alert>:last-child{margin-bottom:0}
.alert-error{background:var(--bad-soft);border-color:var(--bad);color:#6e1a1e}
`;
