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

/**
 * A 422's issues by field path ('fields.0.name', 'values.client'), for a form that shows each next to
 * its field; `rest` says the ones no shown field claims (and any other error) for the form's alert.
 */
export function fieldIssues(error: CombinedError | null | undefined, shown: (path: string) => boolean): { at: (path: string) => string | null; rest: string | null } {
  const extensions = error?.graphQLErrors[0]?.extensions as { issues?: Issue[] } | undefined;
  const issues = (extensions?.issues ?? []).map((issue) => ({ path: (issue.path ?? []).join('.'), message: issue.message ?? '' }));
  if (!issues.length) return { at: () => null, rest: describeError(error) };
  const at = (path: string) => issues.filter((issue) => issue.path === path).map((issue) => issue.message).join(' ') || null;
  const rest = issues.filter((issue) => !shown(issue.path)).map((issue) => issue.message).join(' ');
  return { at, rest: rest || null };
}
