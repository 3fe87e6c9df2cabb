// Scalar checks its configuration with zod, whose object schemas probe whether eval works (`new Function('')`)
// unless zod is jitless. The page allows no eval, and Chromium reports even that caught probe as a CSP
// violation. zod reads its settings from this global (and keeps one already there): set before Scalar's
// modules are evaluated, which is why Scalar is imported dynamically below, after this line.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

const root = document.getElementById('api-reference');
if (!root) throw new Error('no #api-reference element');

void Promise.all([import('@scalar/api-reference'), import('@scalar/api-reference/style.css')]).then(([{ createApiReference }]) => {
  // The document the service serves, so the page always shows the running contract, with a console to try each
  // operation against this origin with the reader's own key or token, and curl samples. Nothing leaves the origin:
  // no proxy (calls go straight from the browser), no fonts from Scalar's CDN (the system fonts instead), no
  // telemetry, no agent; the key typed in stays in the page (persistAuth off: nothing in localStorage).
  createApiReference(root, {
    url: '/api/openapi.json',
    // The contract's server is `/` (this deployment); named as the page's origin, calls and curl samples get
    // whole URLs (Scalar would otherwise join `/` and the path into `//api/...`).
    servers: [{ url: window.location.origin, description: 'This deployment' }],
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    persistAuth: false,
    showDeveloperTools: 'never',
    hideClientButton: true,
    hideDarkModeToggle: true,
    documentDownloadType: 'json',
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  });
});
