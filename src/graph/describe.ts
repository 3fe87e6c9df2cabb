import { accessOf, type DomainOperation } from '../domain/identity/operation-access.js';

/**
 * A GraphQL field description with the operation's access appended from the domain's declaration
 * (`(scope retrieve)`, `(bearer only)`), so the schema never states a scope of its own.
 */
export function described(text: string, operation: DomainOperation, note?: string): string {
  const access = accessOf(operation);
  if (access === 'public') return note ? `${text} (${note})` : text;
  if (access === 'session') return `${text} (bearer only${note ? `; ${note}` : ''})`;
  return `${text} (scope ${access}${note ? `; ${note}` : ''})`;
}
