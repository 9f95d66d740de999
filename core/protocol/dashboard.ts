// Messages between the run dashboard webview (media/dashboard/main.ts) and the extension
// (extension/runs/dashboard.ts). Both sides import these types; nothing else crosses.
import type { EvalPoint, ExceptionItem, RunStatus, StepPoint } from '../runs/types';

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
  error?: string;
}

export type HostToDashboard =
  | { type: 'runs'; runs: DashboardRun[] }
  | { type: 'run'; run: DashboardRun };

export type DashboardToHost =
  | { type: 'ready' }
  | { type: 'openFile'; path: string }
  | { type: 'removeRun'; id: string }
  | { type: 'addRuns' };

/** What the webview keeps with setState and the serializer hands back after a reload. */
export interface DashboardState {
  runs: string[];
  evalMetric?: string;
}

export function isDashboardToHost(m: unknown): m is DashboardToHost {
  if (!m || typeof m !== 'object') return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'ready' || t === 'addRuns') return true;
  if (t === 'openFile') return typeof (m as { path?: unknown }).path === 'string';
  if (t === 'removeRun') return typeof (m as { id?: unknown }).id === 'string';
  return false;
}

export function isDashboardState(s: unknown): s is DashboardState {
  return !!s && typeof s === 'object' && Array.isArray((s as DashboardState).runs) && (s as DashboardState).runs.every((r) => typeof r === 'string');
}
