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
  /** Distinct task ids in the rollout records read so far (the per-task table's size). */
  tasks?: number;
  /** Changes whenever the per-task table does: the page asks for its rows again. */
  tasksVersion?: number;
  /** A running run's health (core/runs/health.ts): `stalled` warns; `text` is in the user's language. */
  health?: { state: string; text: string };
  /** A failed, interrupted or stalled run's causes (core/diagnose), in the user's language; `place` is file:line. */
  causes?: { code: string; message: string; fix: string; place: string }[];
  error?: string;
}

/** One task of a run, over all its rollout records (core/runs/taskTable.ts). */
export interface TaskRow {
  /** The task id as AgentJet wrote it (untrusted log text). */
  id: string;
  /** Rollout records (episodes) of the task. */
  rollouts: number;
  meanReward?: number;
  minReward?: number;
  maxReward?: number;
  /** The reward of the latest record. */
  lastReward?: number;
  /** Mean of AgentJet's per-rollout success rate (the records' outcome), when it wrote one. */
  successRate?: number;
  /** Training steps the task was rolled out at (the first few; `stepCount` says how many). */
  steps: number[];
  stepCount: number;
}

export const TASK_SORT_KEYS = ['id', 'rollouts', 'meanReward', 'minReward', 'maxReward', 'lastReward', 'successRate', 'step'] as const;
export type TaskSortKey = (typeof TASK_SORT_KEYS)[number];

export interface TaskQuery {
  sort: TaskSortKey;
  desc: boolean;
  /** Task id text to filter on (case-insensitive substring). */
  text: string;
  offset: number;
  limit: number;
}

/** Longest task id kept (ids are untrusted log text; a megabyte id is cut, not carried around). */
export const MAX_TASK_ID = 1000;

/** Most rows a page may ask for. */
export const MAX_TASK_PAGE = 500;

export type HostToDashboard =
  | { type: 'runs'; runs: DashboardRun[] }
  | { type: 'run'; run: DashboardRun }
  /** A page of a run's per-task table, answering the `tasks` query with the same `seq`. */
  | { type: 'tasks'; run: string; seq: number; total: number; offset: number; rows: TaskRow[]; reading: boolean };

/**
 * `tasks`, `debugTask` and `openTaskLog` name a run by its id (the host checks it is one of this
 * dashboard's runs) and a task id the host listed for that run; nothing else is taken from the page.
 */
export type DashboardToHost =
  | { type: 'ready' }
  | { type: 'openFile'; path: string }
  | { type: 'removeRun'; id: string }
  | { type: 'addRuns' }
  | { type: 'tasks'; run: string; seq: number; query: TaskQuery }
  | { type: 'debugTask'; run: string; taskId: string }
  | { type: 'openTaskLog'; run: string; taskId: string };

/** What the webview keeps with setState and the serializer hands back after a reload. */
export interface DashboardState {
  runs: string[];
  evalMetric?: string;
  /** The per-task table: which run, sort, filter text and page. */
  taskTable?: { run?: string; sort: TaskSortKey; desc: boolean; text: string; offset: number };
}

// Runtime checks of what the webview sends: core/protocol/validate.ts (checkDashboardToHost, checkDashboardState).
