/** Types for local-postgres.mjs (plain JavaScript, so that it runs before any build). */
export class LocalPostgresError extends Error {}
/** DATABASE_URL if set, else the URL of the project-local cluster (created and started when needed). */
export function ensureDatabaseUrl(): Promise<string>;
/** The URL of the project-local cluster, starting (and creating) it when needed. */
export function startLocalPostgres(): Promise<string>;
/** Like startLocalPostgres; started tells whether this call started the server. */
export function ensureLocalPostgres(): Promise<{ url: string; started: boolean }>;
/** Stops the project-local cluster if it runs; resolves to whether it was running. */
export function stopLocalPostgres(): Promise<boolean>;
/** State of the project-local cluster, without starting it. */
export function localPostgresStatus(): { running: boolean; port: number | null; dataDir: string };
/** A throwaway cluster of its own on a free loopback port, for tests that restart, stop or freeze the server. */
export function startScratchPostgres(): Promise<{
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP to every server process: connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  remove(): Promise<void>;
}>;
