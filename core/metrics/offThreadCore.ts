// What the metrics worker (core/metrics/worker.ts) does for a request, also run on the calling
// thread when no worker script is found: one incremental RunMetricsReader per key, its series
// packed as [step, wallTime, value, ...] Float64Arrays, and the dashboard's summary of the run.
import type { MetricIssue, MetricPoint, MetricSourceKind } from '../protocol/metrics';
import type { RunMetricsInfo } from '../protocol/dashboard';
import type { Locale } from '../l10n';
import { nodeFs } from '../fs/seam';
import { RunMetricsReader } from './read';
import type { MetricSources } from './find';
import type { TensorBoardReadOptions } from './tensorboard';
import { runMetricsInfo } from './view';

export type MetricsRequest =
  | {
      kind: 'update';
      id: number;
      key: string;
      locale: Locale;
      sources: MetricSources;
      read?: TensorBoardReadOptions;
      /** Ask for the dashboard's summary of the run too (core/metrics/view.ts). */
      info?: { run: string; looked: string[] };
    }
  | { kind: 'close'; id: number; key: string; locale: Locale };

export interface PackedSeries {
  tag: string;
  /** step, wallTime, value of each point, in order. */
  data: Float64Array;
}

export type MetricsReply =
  | {
      id: number;
      ok: true;
      /** Set when anything changed since this key's last update (or it is new): the whole result. */
      series?: PackedSeries[];
      sources?: { kind: MetricSourceKind; path: string }[];
      issues?: MetricIssue[];
      info?: RunMetricsInfo;
    }
  | { id: number; ok: false; error: string };

export function packPoints(points: readonly MetricPoint[]): Float64Array {
  const a = new Float64Array(points.length * 3);
  for (let i = 0, j = 0; i < points.length; i++, j += 3) {
    const p = points[i]!;
    a[j] = p.step;
    a[j + 1] = p.wallTime;
    a[j + 2] = p.value;
  }
  return a;
}

export function unpackPoints(a: Float64Array): MetricPoint[] {
  const out: MetricPoint[] = new Array<MetricPoint>(a.length / 3);
  for (let i = 0, j = 0; j < a.length; i++, j += 3) out[i] = { step: a[j]!, wallTime: a[j + 1]!, value: a[j + 2]! };
  return out;
}

const readers = new Map<string, RunMetricsReader>();

export async function handleMetricsRequest(m: MetricsRequest): Promise<MetricsReply> {
  if (m.kind === 'close') {
    readers.delete(m.key);
    return { id: m.id, ok: true };
  }
  try {
    let r = readers.get(m.key);
    const fresh = !r;
    if (!r) readers.set(m.key, (r = new RunMetricsReader(m.sources, nodeFs(), m.read ?? {})));
    if (!(await r.update()) && !fresh) return { id: m.id, ok: true };
    const res = r.result();
    return {
      id: m.id,
      ok: true,
      series: res.series.map((s) => ({ tag: s.tag, data: packPoints(s.points) })),
      sources: res.sources,
      issues: res.issues,
      ...(m.info ? { info: runMetricsInfo(m.info.run, { ...res, looked: m.info.looked }) } : {}),
    };
  } catch (err) {
    return { id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
