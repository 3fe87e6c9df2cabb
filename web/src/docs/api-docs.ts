import { init } from 'redoc/bundles/redoc.standalone.js';

const root = document.getElementById('redoc');
if (!root) throw new Error('no #redoc element');
// The document the service serves, so the page always shows the running contract. No telemetry:
// Redoc would post to its vendor, which the page's CSP refuses anyway.
init('/api/openapi.json', { disableTelemetry: true, router: 'hash' }, root);
