/**
 * The container's health check (the Containerfile's HEALTHCHECK, compose.yaml): exits 0 when this
 * instance's `/health/ready` answers 200 within 2.5 s, else 1. The image has node, not curl.
 *
 *   node dist/src/healthcheck.js
 */
const port = process.env.PORT || '3000';
const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2500) }).catch(() => null);
process.exit(response?.ok ? 0 : 1);
