// Ray debugging: the records the log watcher and the state-API client produce. Pure data.

/** Why a worker waits: a breakpoint (`breakpoint()`, AgentJet's `bp("TAG")`) or an uncaught exception. */
/** `attached`: a worker with an editor-breakpoints listener that a session is attached to (not paused). */
export type PauseKind = 'breakpoint' | 'post-mortem' | 'unknown' | 'attached';

/** One Ray worker waiting in Ray's debugpy-based debugger for a client to attach. */
export interface PausedWorker {
  /** Stable key: `<source>:<worker id or log file>:<host>:<port>`. */
  id: string;
  /** Where it was found. */
  source: 'log' | 'state-api' | 'output';
  /** Task name (`:task_name:` in the worker log, `name` in the state API) or actor class. */
  name: string | undefined;
  /** `task` or `actor` when known. */
  role: 'task' | 'actor' | undefined;
  /** Node id (state API) or host address (log). */
  node: string | undefined;
  pid: number | undefined;
  workerId: string | undefined;
  /** The debugpy listener: `host:port`. */
  host: string;
  port: number;
  kind: PauseKind;
  /** AgentJet `bp()` tag, when known (from the paused source line or a single armed tag). */
  tag: string | undefined;
  /** Epoch ms the pause was first seen (or the log file's modification time on a first scan). */
  since: number;
  /** Session folder (log source) or dashboard URL (state API). */
  origin: string;
}

/** The Ray cluster a run uses, as shown on its row in the Runs tree. */
export interface RayClusterInfo {
  /** Session folder on this machine, when known. */
  sessionDir: string | undefined;
  /** Dashboard URL, when known. */
  dashboard: string | undefined;
  /** GCS address (`host:port`) from RAY_ADDRESS or the launcher output, when known. */
  address: string | undefined;
  nodesAlive: number | undefined;
  paused: number;
  /** Why a figure is missing (dashboard not reachable ...). */
  note: string | undefined;
}

export function listenerAddress(w: Pick<PausedWorker, 'host' | 'port'>): string {
  return w.host.includes(':') ? `[${w.host}]:${w.port}` : `${w.host}:${w.port}`;
}

/** "3 s", "2 min", "1 h 5 min". */
export function waitedFor(since: number, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - since) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Where a worker's files are on this machine (cluster node, container): debugpy's `pathMappings`. */
export interface PathMapping {
  localRoot: string;
  remoteRoot: string;
}

/** The well-formed entries of a `pathMappings` setting or attribute (anything else is dropped). */
export function validPathMappings(v: unknown): PathMapping[] {
  if (!Array.isArray(v)) return [];
  return v.filter((m): m is PathMapping => !!m && typeof m.localRoot === 'string' && typeof m.remoteRoot === 'string');
}
