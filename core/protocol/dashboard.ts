// Messages between the run dashboard webview (media/dashboard/main.ts) and the extension
// (extension/runs/dashboard.ts). Both sides import these types; nothing else crosses.
import type { EvalPoint, ExceptionItem, RunStatus, StepPoint } from './runs';

export const DASHBOARD_VIEW_TYPE = 'agentjet.runDashboard';

export interface DashboardRun {
  /** The experiment folder (absolute path). */
  id: string;
  label: string;
  status: RunStatus | 'unknown';
  steps: StepPoint[];
  evals: EvalPoint[];
  exceptions: ExceptionItem[];
  /** Bytes of rollout log still to read (big logs load in steps). */
  pendingBytes: number;
  /** While the per-step curves are being read: rollout records read / to read (all hosts, all files). */
  stepsRead?: { done: number; total: number };
  error?: string;
}

export type HostToDashboard = { type: 'runs'; runs: DashboardRun[] } | { type: 'run'; run: DashboardRun };

export type DashboardToHost =
  { type: 'ready' } | { type: 'openFile'; path: string } | { type: 'removeRun'; id: string } | { type: 'addRuns' };

/** What the webview keeps with setState and the serializer hands back after a reload. */
export interface DashboardState {
  runs: string[];
  evalMetric?: string;
}

// Runtime checks of what the webview sends: core/protocol/validate.ts (checkDashboardToHost, checkDashboardState).
