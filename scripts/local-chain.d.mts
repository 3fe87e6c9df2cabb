/** Types for local-chain.mjs (plain JavaScript, so that it runs before any build). */
export class LocalChainError extends Error {}
/** The fixed chain id of the embedded development chain. */
export const LOCAL_CHAIN_ID: number;
/** Files of a chain kept in `base` (default LOCAL_CHAIN_DIR or .local/chain). */
export function chainLayout(base?: string): { base: string; state: string; pidFile: string; logFile: string; registryFile: string };
/** CHAIN_RPC_URL if set, else the URL of the project-local chain (started when needed). */
export function ensureChainRpcUrl(): Promise<string>;
/** Starts (or reuses) the chain kept in `dir` (default .local/chain), on `port` if given. */
export function ensureLocalChain(options?: { dir?: string; port?: number }): Promise<{ url: string; started: boolean; pid: number | null }>;
/** Stops the chain kept in `dir` (it writes its state first); resolves to whether it was running. */
export function stopLocalChain(options?: { dir?: string }): Promise<boolean>;
/** State of the chain kept in `dir`, without starting it. */
export function localChainStatus(options?: { dir?: string }): { running: boolean; url: string | null; dir: string };
/** One JSON-RPC call with a 2 s timeout. */
export function rpc(url: string, method: string, params?: unknown[]): Promise<unknown>;
