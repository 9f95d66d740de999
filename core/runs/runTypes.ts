// Shapes of run discovery: roots, experiments, sessions, hosts.
import type { Evidence } from '../agentjet/status';
import type { LayoutVersion } from '../agentjet/layout';
import type { LaunchPhase } from '../agentjet/launchRecord';
import type { Liveness, ProcessProbe } from '../agentjet/liveness';
import type { RunStatus } from './types';
import type { RunProgress } from './health';
import type { Cause } from '../diagnose/types';

export interface ExperimentRoot {
  path: string;
  /** `saved_experiments` (AgentJet), `launcher_record` (ASTuner), a configured root, or a launch's `--exp-dir`. */
  source: 'saved_experiments' | 'launcher_record' | 'configured' | 'launch';
}

/** First level: what one readdir of the root and one of each experiment give. */
export interface ExperimentEntry {
  name: string;
  path: string;
  root: string;
  /** Session folder names (`YYYY_MM_DD_HH_MM`), oldest first. */
  sessions: string[];
  snapshot?: string;
  /** `--exp-dir` runs: the folder holding `yaml_backup.yaml` and `backup/` when it is not this one. */
  backupPath?: string;
  /** Start of the latest session (local time), else the folder's mtime. */
  timeMs: number;
  error?: string;
  /**
   * False when the folder's listing showed no `.agentjet-vscode` folder (no launch records to
   * read); undefined when not known.
   */
  hasLaunchRecords?: boolean;
}

export interface LockInfo {
  path: string;
  pid?: number;
  /** What the lock holds instead of a process id (quoted text, or what kind of file it is). */
  invalid?: string;
  mtimeMs: number;
  /** True/false when checked on this host; undefined for another host's folder. */
  alive?: boolean;
  liveness?: Liveness;
}

export interface HostInfo {
  /** Folder name: `<host>` or `<host>_<pid>`; for a host-less session (ASTuner Nov 2025, ASTune) `(session)`. */
  name: string;
  host: string;
  pid?: number;
  path: string;
  local: boolean;
  /** The session folder holds the logs directly (no host folder): ASTuner Nov 2025, ASTune. */
  hostless?: boolean;
  lock?: LockInfo;
  modules: string[];
  hasTrajectories: boolean;
  /** Exception records that are errors (a floor for very large exception logs). */
  exceptions: number;
  /** Harmless notes in exception.json.log (prompt token mismatch): never a failure. */
  notes: number;
  status: RunStatus;
  reason?: string;
  /** What decided the status, first; then supporting notes. */
  evidence: Evidence[];
  /** Newest mtime among the lock, rollout and regular logs. */
  lastWriteMs?: number;
  error?: string;
}

export interface SessionInfo {
  name: string;
  path: string;
  timeMs?: number;
  hosts: HostInfo[];
  status: RunStatus;
  error?: string;
}

export interface CheckpointInfo {
  step: number;
  path: string;
}

export interface ExperimentInfo {
  entry: ExperimentEntry;
  status: RunStatus;
  reason?: string;
  /** The deciding host's evidence (see HostInfo.evidence). */
  evidence: Evidence[];
  /** The generation whose layout the folder has, when the root tells. */
  layout?: LayoutVersion;
  sessions: SessionInfo[];
  hosts: string[];
  project?: string;
  latestStep?: number;
  latestReward?: number;
  /** The last step the snapshot's settings call for. */
  totalSteps?: number;
  checkpoints: CheckpointInfo[];
  checkpointDir?: string;
  /** The run's experiment-tracking folders that exist (SwanLab, TensorBoard; see core/runs/tracking.ts). */
  trackingLogs?: TrackingLog[];
  exceptionCount: number;
  noteCount: number;
  snapshotError?: string;
  /** A running run with a live local lock: what its files show of its progress (core/runs/health.ts judges it). */
  progress?: RunProgress;
  /** A running launch from the editor or `agentjet debug-task`: what its live record says it does. */
  launch?: { phase: LaunchPhase; sinceMs?: number };
  /** A failed or interrupted run: why, from its launcher output and logs (core/diagnose). */
  causes?: Cause[];
}

/** A SwanLab or TensorBoard log folder a run wrote (core/runs/tracking.ts). */
export interface TrackingLog {
  logger: 'swanlab' | 'tensorboard';
  path: string;
  /** True when the folder is shared by the runs of a project (SwanLab's log folder), not this run's own. */
  shared: boolean;
}

export interface DiscoverOptions {
  /** The environment the runs were launched with, for SWANLAB_LOG_DIR / TENSORBOARD_DIR (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** This machine's host name (tests pass a fixed one). */
  localHost?: string;
  /** Another host's run counts as running when something there was written this recently. */
  remoteFreshMs?: number;
  now?: () => number;
  /** Reads a process's start time (tests inject one); see core/agentjet/liveness.ts. */
  processProbe?: ProcessProbe;
  /** Existence only (no start time): answers are marked unverified. Prefer processProbe. */
  isAlive?: (pid: number) => boolean;
  concurrency?: number;
  /**
   * One listing of the run tree (the CLI): folder listings shared by many experiments (a
   * project's checkpoint folder) are read once for the whole listing. The extension, which
   * follows changes, leaves it unset.
   */
  listingMemo?: Map<string, Promise<Set<string> | undefined>>;
}
