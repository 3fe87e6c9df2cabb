import type { DomainOperation } from '../../domain/identity/operation-access.js';

/**
 * Contract operations whose capability has not landed yet (none at present).
 * Each is bound as planned (naming the domain operation it will run, for its declared access): it
 * authenticates and validates like any route, then answers 501 `not_implemented`. Binding one for
 * real means moving its operationId from here to a capability's bindings.
 */
export const plannedRoutes = {} as const satisfies Record<string, DomainOperation>;
