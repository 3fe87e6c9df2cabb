import type { CombinedError } from 'urql';

type Issue = { path?: (string | number)[]; message?: string };

/** A message a person can act on, from the API's error model (extensions.code, issues, retryAfterSeconds). */
export function describeError(error: CombinedError | Error | null | undefined): string | null {
  if (!error) return null;
  if (!('graphQLErrors' in error)) return error.message;
  const first = error.graphQLErrors[0];
  if (!first) return error.networkError ? 'The service could not be reached. Check your connection and try again.' : error.message;
  const extensions = first.extensions as { code?: string; issues?: Issue[]; retryAfterSeconds?: number };
  if (extensions.code === 'rate_limited' && extensions.retryAfterSeconds) {
    return `${first.message} Try again in ${Math.ceil(extensions.retryAfterSeconds / 60)} min.`;
  }
  if (extensions.issues?.length) {
    return extensions.issues.map((issue) => issue.message ?? issue.path?.join('.')).filter(Boolean).join(' ');
  }
  return first.message;
}

export function errorCode(error: CombinedError | null | undefined): string | null {
  const code = error?.graphQLErrors[0]?.extensions.code;
  return typeof code === 'string' ? code : null;
}
