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

/** The x axis of a metric chart: training step, wall-clock time, or hours since the run's first point. */
export const METRIC_AXES = ['step', 'wall', 'relative'] as const;
export type MetricAxis = (typeof METRIC_AXES)[number];

/** One scalar key of one run, summarised (core/metrics/summary.ts). */
export interface MetricKeyInfo {
  tag: string;
  points: number;
  last: { step: number; value: number | null };
  min: number | null;
  max: number | null;
}

/** One phase of a training step (a `timing_s/<phase>` key). */
export interface PhaseColumn {
  /** The steps this column stands for (one step, or a range when the run has more steps than columns). */
  stepFrom: number;
  stepTo: number;
  /** Seconds per phase, in the order of `PhaseTimeline.phases` (mean over the column's steps). */
  parts: number[];
  /** The step's own time (`timing_s/step`) when logged, else the sum of the parts. */
  total: number;
  /** Time of the step no phase accounts for (total minus the parts; 0 when they cover it). */
  other: number;
}

/** Where a run's steps spend their time, from its `timing_s/*` keys (core/metrics/phases.ts). */
export interface PhaseTimeline {
  phases: string[];
  columns: PhaseColumn[];
  /** Each phase's share of all steps' time, in the order of `phases`; `otherShare` the untimed rest. */
  shares: number[];
  otherShare: number;
  slowest?: { phase: string; share: number };
  /** Steps with timings, and their mean time in seconds. */
  steps: number;
  meanStep: number;
  /** Whether the run logs `timing_s/step` (else a step's time is the sum of its phases). */
  hasStepKey: boolean;
  /** `perf/*` keys beside it: throughput, memory, MFU. */
  perf: { tag: string; last: number | null; mean: number | null; max: number | null }[];
}

/** Keys sharing a prefix (`actor/`, `timing_s/`, ...); `name` is the prefix without the slash, '' for keys without one. */
export interface MetricGroup {
  name: string;
  keys: string[];
}

/** Whether a metric key matches a search: every whitespace-separated word occurs in it (case-insensitive). */
export function keyMatches(tag: string, query: string): boolean {
  const lower = tag.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => lower.includes(w));
}

/** What the dashboard knows of one run's training metrics. */
export interface RunMetricsInfo {
  run: string;
  keys: MetricKeyInfo[];
  /** Where they were read from (`tensorboard`, `console`, ...). */
  sources: { kind: string; path: string }[];
  /** Places looked at that held nothing. */
  looked: string[];
  /** Damaged records, unreadable files (at most a few). */
  issues: string[];
  phases?: PhaseTimeline;
}

/** One key of the dashboard's runs, as a chart draws it (core/metrics/plot.ts). */
export interface MetricPlot {
  seq: number;
  key: string;
  axis: MetricAxis;
  smoothing: number;
  /** The union of the runs' x values (steps, seconds since the epoch, or hours since the start). */
  x: number[];
  series: {
    run: string;
    label: string;
    raw: (number | null)[];
    smooth?: (number | null)[];
    /** Points the run has, and how many of them are drawn after thinning per pixel column. */
    points: number;
    drawn: number;
  }[];
  /** Values that are NaN or infinite (not drawn). */
  nonFinite?: number;
}

export interface MetricPlotQuery {
  key: string;
  axis: MetricAxis;
  smoothing: number;
  /** Pixel columns of the plot area. */
  width: number;
  xMin?: number;
  xMax?: number;
}

/** Longest metric key the page may name, and most pixel columns it may ask for. */
export const MAX_METRIC_KEY = 1000;
export const MAX_PLOT_WIDTH = 8192;
/** Largest PNG the page may hand over for saving (a data: URL, in characters). */
export const MAX_PNG_URL = 32 * 1024 * 1024;

export type HostToDashboard =
  | { type: 'runs'; runs: DashboardRun[] }
  /** The training metrics of every run on the dashboard (sent again when any changed; `version` grows). */
  | { type: 'metrics'; runs: RunMetricsInfo[]; groups: MetricGroup[]; version: number; defaultKey?: string }
  /** The answer to a `plot` query with the same `seq`. */
  | { type: 'plot'; plot: MetricPlot }
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
  | { type: 'openTaskLog'; run: string; taskId: string }
  /** A chart of one metric key over this dashboard's runs; the host answers with `plot`. */
  | { type: 'plot'; seq: number; query: MetricPlotQuery }
  /** Save every point of a key (all runs) as CSV; the host asks where. */
  | { type: 'exportCsv'; key: string; smoothing: number }
  /** Save a chart the page drew as PNG (`data:image/png;base64,...`); the host checks it is a PNG and asks where. */
  | { type: 'exportPng'; key: string; dataUrl: string };

/** What the webview keeps with setState and the serializer hands back after a reload. */
export interface DashboardState {
  runs: string[];
  evalMetric?: string;
  /** The per-task table: which run, sort, filter text and page. */
  taskTable?: { run?: string; sort: TaskSortKey; desc: boolean; text: string; offset: number };
  /** The metrics section: pinned keys, the key on show, the search text, smoothing and x axis. */
  metrics?: { pinned: string[]; selected?: string; query: string; smoothing: number; axis: MetricAxis };
}

// Runtime checks of what the webview sends: core/protocol/validate.ts (checkDashboardToHost, checkDashboardState).
