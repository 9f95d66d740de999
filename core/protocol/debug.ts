// Custom DAP events the `agentjet` debug adapter sends to the extension
// (vscode.debug.onDidReceiveDebugSessionCustomEvent).

/** The launch created (or reused) this experiment folder. */
export const EVENT_EXPERIMENT = 'agentjet.experiment';
/** `folder`: the log experiment folder (`<cwd>/saved_experiments/<name>`); `yamlBackup`: where --exp-dir put the snapshot. */
export interface ExperimentEventBody {
  folder: string;
  yamlBackup?: string;
}

/** The run ended: its experiment, rollout token log and exit code, and whether to open the log. */
export const EVENT_FINISHED = 'agentjet.runFinished';
export interface FinishedEventBody {
  experimentFolder: string | null;
  rolloutLog: string | null;
  exitCode: number | null;
  openTokenLog: boolean;
  /** A launch that failed (not stopped by the user): why, from its output (core/diagnose), for Problems on `config`. */
  causes?: LaunchCause[];
  /** The config the launch ran (absolute path). */
  config?: string;
}

/** One cause of a failed launch, as the extension shows it in Problems (core/diagnose's Cause, cut down). */
export interface LaunchCause {
  code: string;
  message: string;
  fix: string;
  /** 1-based line of the evidence in the launcher output. */
  line: number;
  evidence: string[];
  /** Config edits the fix offers as quick fixes (`lower`/`raise` from the written value). */
  edits?: { key: string; value: number | boolean | string }[];
  /** An environment variable the fix asks for. */
  env?: { name: string; value: string };
}

/** The launch's record beside its run was (re)written: the Runs view reads that run again. */
export const EVENT_LAUNCH_RECORD = 'agentjet.launchRecord';
export interface LaunchRecordEventBody {
  /** The experiment folder holding the record (or that held it, when it moved). */
  folder: string;
}

/**
 * Sent by the extension to a launch's own session: whether one of its child sessions (the
 * launcher's sub-processes, which VS Code talks to straight) sits paused in the debugger.
 */
export const REQUEST_CHILDREN_PAUSED = 'agentjet.childrenPaused';
export interface ChildrenPausedArguments {
  paused: boolean;
}

/** Requests after which a paused debuggee runs again (no `continued` event needed). */
export const RESUMING_REQUESTS: readonly string[] = ['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto'];

/** Error ids of launches the adapter refuses. */
export const LAUNCH_ERRORS = { config: 4001, notAgentJet: 4002, python: 4003, preflight: 4004, start: 4005, args: 4006 } as const;

/**
 * Set on the child sessions the adapter asks the client to start (DAP `startDebugging`) for the
 * launcher's sub-processes; the extension connects them straight to debugpy's adapter
 * (`configuration.connect`).
 */
export const SUBPROCESS_FLAG = 'agentjetSubprocess';

export interface SubprocessAttach {
  connect: { host: string; port: number };
  subProcessId?: number;
}

/** The debugpy endpoint of a child session configuration, when it is one of ours. */
export function subprocessAttach(config: Record<string, unknown>): SubprocessAttach | undefined {
  if (config[SUBPROCESS_FLAG] !== true) return undefined;
  const c = config.connect as { host?: unknown; port?: unknown } | undefined;
  if (!c || typeof c.port !== 'number' || !Number.isInteger(c.port) || c.port <= 0 || c.port > 65535) return undefined;
  return {
    connect: { host: typeof c.host === 'string' && c.host ? c.host : '127.0.0.1', port: c.port },
    ...(typeof config.subProcessId === 'number' ? { subProcessId: config.subProcessId } : {}),
  };
}
