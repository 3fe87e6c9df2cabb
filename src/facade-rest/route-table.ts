/**
 * The contract's routes, compiled once: an exact-path map and, for templated paths, one regular
 * expression each, most specific first. Matches as openapi-backend's router does (trailing slashes
 * ignored; an exact path before templates; among templates the longest literal part wins; a path
 * that exists without the method is 405, with the methods it has), without rebuilding the operation
 * list per request. HEAD is answered wherever GET is (RFC 9110): it runs the GET, and the server sends
 * no body.
 */
export type RouteMatch<Op> = { operation: Op } | 'not_found' | { allowed: string[] };

type Route<Op> = { pattern: RegExp; specificity: number; methods: Map<string, Op> };

export class RouteTable<Op extends { path: string; method: string }> {
  private readonly exact = new Map<string, Map<string, Op>>();
  private readonly templates: Route<Op>[] = [];

  constructor(operations: readonly Op[]) {
    const byPath = new Map<string, Map<string, Op>>();
    for (const operation of operations) {
      const methods = byPath.get(operation.path) ?? new Map<string, Op>();
      methods.set(operation.method.toLowerCase(), operation);
      byPath.set(operation.path, methods);
    }
    for (const [path, methods] of byPath) {
      if (!path.includes('{')) this.exact.set(path, methods);
      this.templates.push({ pattern: templatePattern(path), specificity: path.replace(/\{.*?\}/g, '').length, methods });
    }
    // Stable: equally specific paths keep the contract's order.
    this.templates.sort((a, b) => b.specificity - a.specificity);
  }

  match(method: string, rawPath: string): RouteMatch<Op> {
    let path = rawPath.trim() || '/';
    if (!path.startsWith('/')) path = `/${path}`;
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const exact = this.exact.get(path)?.get(verb);
    if (exact) return { operation: exact };
    const allowed = new Set<string>();
    for (const route of this.templates) {
      if (!route.pattern.test(path)) continue;
      const operation = route.methods.get(verb);
      if (operation) return { operation };
      for (const other of route.methods.keys()) allowed.add(other.toUpperCase());
    }
    if (allowed.size === 0) return 'not_found';
    if (allowed.has('GET')) allowed.add('HEAD');
    return { allowed: [...allowed].sort() };
  }
}

function templatePattern(path: string): RegExp {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${path.replace(/\{[^}]+\}/g, '\0').split('\0').map(literal).join('[^/]+')}$`);
}
