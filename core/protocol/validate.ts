// Runtime validation of every message a webview sends to the extension host: one schema per
// protocol (token log, trajectory, dashboard), written with valibot. The TypeScript types in the
// protocol files stay the reference; the `Same<>` checks at the bottom make tsc fail when a schema
// and its type drift apart. Webviews are not trusted: a message that does not fit is refused.
import * as v from 'valibot';
import type { Filter, Sort, SortKey, TrajectoryViewToHost, ViewReport, ViewState, ViewToHost } from './tokenlog';
import {
  MAX_METRIC_KEY,
  MAX_PLOT_WIDTH,
  MAX_PNG_URL,
  MAX_TASK_ID,
  MAX_TASK_PAGE,
  METRIC_AXES,
  TASK_SORT_KEYS,
  type DashboardState,
  type DashboardToHost,
  type MetricPlotQuery,
} from './dashboard';

/** Longest string a webview may send where a name or path is expected. */
const MAX_NAME = 4096;
const name = v.pipe(v.string(), v.maxLength(MAX_NAME));
const finite = v.pipe(v.number(), v.finite());
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
/** A record index or version: a non-negative integer. */
const index = count;

const SORT_KEYS = ['index', 'step', 'reward', 'task', 'time', 'tokens'] as const satisfies readonly SortKey[];
const MODES = ['mask', 'heat', 'plain'] as const;

const filter = v.object({
  stepMin: v.optional(finite),
  stepMax: v.optional(finite),
  rewardMin: v.optional(finite),
  rewardMax: v.optional(finite),
  outcome: v.optional(name),
  text: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});

const sort = v.object({ key: v.picklist(SORT_KEYS), desc: v.optional(v.boolean()) });

const viewState = v.object({
  filter,
  sort,
  selected: v.optional(index),
  timeline: count,
  listScroll: v.pipe(v.number(), v.finite(), v.minValue(0)),
  tokenScroll: v.pipe(v.number(), v.finite(), v.minValue(0)),
  mode: v.picklist(MODES),
  whitespace: v.boolean(),
  follow: v.boolean(),
  threshold: finite,
  group: v.boolean(),
  columns: v.optional(v.pipe(v.array(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(10_000))), v.maxLength(20))),
  listWidth: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(100_000))),
});

const viewReport = v.object({
  records: count,
  listTotal: count,
  listRows: count,
  selected: v.optional(index),
  timeline: v.optional(count),
  timelineTokens: count,
  domTokens: count,
  domText: v.pipe(v.string(), v.maxLength(100_000)),
  cursor: v.optional(count),
  hover: v.optional(v.pipe(v.string(), v.maxLength(100_000))),
  injected: count,
  mode: v.picklist(MODES),
  follow: v.boolean(),
  kind: v.optional(v.picklist(['tokens', 'table', 'text'])),
  group: count,
  error: v.optional(v.pipe(v.string(), v.maxLength(100_000))),
  indexing: v.boolean(),
  search: v.optional(v.object({ records: count, hits: count, done: v.boolean() })),
  emptyMessage: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});

const viewToHost = v.variant('type', [
  v.object({ type: v.literal('ready'), state: v.optional(viewState) }),
  v.object({ type: v.literal('query'), filter, sort }),
  v.object({ type: v.literal('rows'), version: index, offset: index, count: v.pipe(count, v.maxValue(10_000)) }),
  v.object({ type: v.literal('open'), index }),
  v.object({ type: v.literal('group'), taskId: name, step: v.optional(finite) }),
  v.object({ type: v.literal('locate'), index }),
  v.object({ type: v.literal('cancel') }),
  v.object({ type: v.literal('resume') }),
  v.object({ type: v.literal('copy'), text: v.pipe(v.string(), v.maxLength(256 * 1024 * 1024)), what: name }),
  v.object({ type: v.literal('openRaw') }),
  v.object({ type: v.literal('report'), report: viewReport }),
]);

const trajectoryViewToHost = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('openRaw') }),
  v.object({ type: v.literal('report'), messages: count, timelines: count, error: v.optional(v.pipe(v.string(), v.maxLength(100_000))) }),
]);

const taskId = v.pipe(v.string(), v.maxLength(MAX_TASK_ID));
const taskQuery = v.object({
  sort: v.picklist(TASK_SORT_KEYS),
  desc: v.boolean(),
  text: v.pipe(v.string(), v.maxLength(1000)),
  offset: count,
  limit: v.pipe(count, v.minValue(1), v.maxValue(MAX_TASK_PAGE)),
});

const metricKey = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_METRIC_KEY));
/** TensorBoard's smoothing weight: 0 (none) to just under 1. */
const smoothing = v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(0.999));
const plotQuery = v.object({
  key: metricKey,
  axis: v.picklist(METRIC_AXES),
  smoothing,
  width: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(MAX_PLOT_WIDTH)),
  xMin: v.optional(finite),
  xMax: v.optional(finite),
});

const dashboardToHost = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('openFile'), path: name }),
  v.object({ type: v.literal('removeRun'), id: name }),
  v.object({ type: v.literal('addRuns') }),
  v.object({ type: v.literal('tasks'), run: name, seq: count, query: taskQuery }),
  v.object({ type: v.literal('debugTask'), run: name, taskId }),
  v.object({ type: v.literal('openTaskLog'), run: name, taskId }),
  v.object({ type: v.literal('plot'), seq: count, query: plotQuery }),
  v.object({ type: v.literal('exportCsv'), key: metricKey, smoothing }),
  v.object({
    type: v.literal('exportPng'),
    key: metricKey,
    dataUrl: v.pipe(v.string(), v.maxLength(MAX_PNG_URL), v.regex(/^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/)),
  }),
]);

const dashboardState = v.object({
  runs: v.pipe(v.array(name), v.maxLength(1000)),
  evalMetric: v.optional(name),
  taskTable: v.optional(
    v.object({
      run: v.optional(name),
      sort: v.picklist(TASK_SORT_KEYS),
      desc: v.boolean(),
      text: v.pipe(v.string(), v.maxLength(1000)),
      offset: count,
    }),
  ),
  metrics: v.optional(
    v.object({
      pinned: v.pipe(v.array(metricKey), v.maxLength(200)),
      selected: v.optional(metricKey),
      query: v.pipe(v.string(), v.maxLength(1000)),
      smoothing,
      axis: v.picklist(METRIC_AXES),
    }),
  ),
});

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function check<T>(schema: v.GenericSchema<unknown, T>, m: unknown): Checked<T> {
  const r = v.safeParse(schema, m);
  if (r.success) return { ok: true, value: r.output };
  const first = r.issues[0];
  const path = first.path?.map((p) => String(p.key)).join('.') ?? '';
  return { ok: false, error: `${path ? `${path}: ` : ''}${first.message}` };
}

/** Token log webview → host (media/tokenlog). */
export const checkViewToHost = (m: unknown): Checked<ViewToHost> => check(viewToHost, m);
/** Trajectory webview → host (media/trajectory). */
export const checkTrajectoryViewToHost = (m: unknown): Checked<TrajectoryViewToHost> => check(trajectoryViewToHost, m);
/** Run dashboard webview → host (media/dashboard). */
export const checkDashboardToHost = (m: unknown): Checked<DashboardToHost> => check(dashboardToHost, m);
/** What a dashboard webview persisted (handed back by the serializer after a reload). */
export const checkDashboardState = (m: unknown): Checked<DashboardState> => check(dashboardState, m);

/** A short, safe description of a refused message for the log (never the whole message). */
export function describeRefused(m: unknown): string {
  const t = m && typeof m === 'object' ? (m as { type?: unknown }).type : undefined;
  return typeof t === 'string' ? JSON.stringify(t.slice(0, 40)) : typeof m;
}

// Compile-time: each schema's output is exactly its protocol type (both directions assignable).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: [
  Same<v.InferOutput<typeof viewToHost>, ViewToHost>,
  Same<v.InferOutput<typeof filter>, Filter>,
  Same<v.InferOutput<typeof sort>, Sort>,
  Same<v.InferOutput<typeof viewState>, ViewState>,
  Same<v.InferOutput<typeof viewReport>, ViewReport>,
  Same<v.InferOutput<typeof trajectoryViewToHost>, TrajectoryViewToHost>,
  Same<v.InferOutput<typeof dashboardToHost>, DashboardToHost>,
  Same<v.InferOutput<typeof dashboardState>, DashboardState>,
  Same<v.InferOutput<typeof plotQuery>, MetricPlotQuery>,
] = [true, true, true, true, true, true, true, true, true];
void agree;
