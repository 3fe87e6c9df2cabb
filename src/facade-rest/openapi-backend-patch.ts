import type { Operation, OpenAPIRouter } from 'openapi-backend';

/**
 * openapi-backend's router rebuilds its list of operations (dereferencing and copying every path)
 * each time it looks one up, which it does on every request it parses. The contract is static, so
 * the list is built once and the router answers it from then on. The patch and its assumption (the
 * router looks operations up through `getOperations`) are checked by
 * test/integration/library-patches.test.ts: a version that no longer calls it fails there.
 */
export function freezeOperations(router: OpenAPIRouter): Operation[] {
  const compiled = router.getOperations();
  router.getOperations = () => compiled;
  return compiled;
}
