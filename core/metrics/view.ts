// What the dashboard's metrics section gets of a run (core/protocol/dashboard.ts RunMetricsInfo):
// each key summarised, where the values came from, what was looked at in vain, the phase timeline.
import type { RunMetrics } from '../protocol/metrics';
import type { MetricKeyInfo, RunMetricsInfo } from '../protocol/dashboard';
import { summarize } from './summary';
import { phaseTimeline } from './phases';

/** Issues listed per run, at most. */
const MAX_ISSUES = 5;

const orNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

export function runMetricsInfo(run: string, m: RunMetrics & { looked?: string[] }): RunMetricsInfo {
  const keys: MetricKeyInfo[] = m.series
    .filter((s) => s.points.length)
    .map((s) => {
      const sum = summarize(s);
      return {
        tag: s.tag,
        points: sum.points,
        last: { step: sum.last.step, value: orNull(sum.last.value) },
        min: orNull(sum.min),
        max: orNull(sum.max),
      };
    });
  const phases = phaseTimeline(m.series);
  return {
    run,
    keys,
    sources: m.sources.map((s) => ({ kind: s.kind, path: s.path })),
    looked: m.looked ?? [],
    issues: m.issues.slice(0, MAX_ISSUES).map((i) => `${i.file}${i.at !== undefined ? ` @${i.at}` : ''}: ${i.message}`),
    ...(phases ? { phases } : {}),
  };
}
