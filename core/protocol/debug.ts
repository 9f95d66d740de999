// Custom DAP events the `agentjet` debug adapter sends to the extension
// (vscode.debug.onDidReceiveDebugSessionCustomEvent).

/** The launch created (or reused) this experiment folder. */
export const EVENT_EXPERIMENT = 'agentjet.experiment';
export interface ExperimentEventBody { folder: string }

/** The run ended: its experiment, rollout token log and exit code, and whether to open the log. */
export const EVENT_FINISHED = 'agentjet.runFinished';
export interface FinishedEventBody {
  experimentFolder: string | null;
  rolloutLog: string | null;
  exitCode: number | null;
  openTokenLog: boolean;
}

/** Error ids of launches the adapter refuses. */
export const LAUNCH_ERRORS = { config: 4001, notAgentJet: 4002, python: 4003, preflight: 4004, start: 4005, args: 4006 } as const;
