/**
 * Something made at its first use and shared after: every caller gets the one promise. A failed
 * attempt is forgotten, so the next call tries again (a chain that was down, a library that failed
 * to load) instead of answering the same failure for the life of the process.
 */
export function madeOnFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= make().catch((error: unknown) => {
      pending = null;
      throw error;
    }));
}
