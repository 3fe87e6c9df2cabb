import type { OpenApiDocument } from '../openapi/index.js';

/** Every operationId of the served contract. */
function contractOperationIds(document: OpenApiDocument): string[] {
  return Object.values(document.paths).flatMap((item) =>
    Object.values(item)
      .map((operation) => (operation as { operationId?: unknown }).operationId)
      .filter((id): id is string => typeof id === 'string'),
  );
}

/**
 * Binding mistakes, as sentences: an operationId of the contract that nothing binds (it would never
 * answer as specified), a binding whose operationId the contract lacks (a route nobody can reach),
 * or one bound twice. Start-up refuses to serve while this list is not empty.
 */
export function bindingProblems(document: OpenApiDocument, bindings: Record<'bound' | 'planned', readonly string[]>): string[] {
  const contract = new Set(contractOperationIds(document));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const id of [...bindings.bound, ...bindings.planned]) {
    if (seen.has(id)) problems.push(`${id} is bound twice`);
    seen.add(id);
    if (!contract.has(id)) problems.push(`${id} is bound but the contract has no such operation`);
  }
  for (const id of contract) if (!seen.has(id)) problems.push(`${id} has no binding (bind it, or list it in bindings/planned.ts)`);
  return problems;
}
