// Where a training step's time goes, from the `timing_s/*` keys verl's trainer logs each step
// (ray_trainer / AgentJet's trainer_verl.py: `marked_timer("gen")`, "reward", "old_log_prob",
// "ref", "values", "adv", "update_critic", "update_actor", "testing", "save_checkpoint", all inside
// `marked_timer("step")`; compute_timing_metrics turns each into `timing_s/<name>`).
// Stacked per step: `timing_s/step` is the step's time, the other top-level names its phases;
// whatever the phases leave of the step is "other". Names that are timed inside another phase
// (the rollout's own `generate_sequences` and `reshard` inside `gen`) or outside the step
// (`start_profile`, `stop_profile`) and nested keys (`timing_s/agent_loop/...`) are not stacked.
import type { MetricPoint, MetricSeries } from '../protocol/metrics';
import type { PhaseColumn, PhaseTimeline } from '../protocol/dashboard';

export const TIMING_PREFIX = 'timing_s/';
/** verl's phases in the order a step runs them. */
export const PHASE_ORDER = [
  'gen',
  'reward',
  'old_log_prob',
  'ref',
  'values',
  'adv',
  'update_critic',
  'update_actor',
  'update_weights',
  'testing',
  'save_checkpoint',
];
/** Timed inside another phase or outside the step: never stacked. */
export const NOT_STACKED = new Set(['step', 'generate_sequences', 'reshard', 'gen_max', 'start_profile', 'stop_profile']);

/** Most columns the timeline has; a longer run puts several steps (their mean) in one column. */
export const MAX_PHASE_COLUMNS = 240;

const lastFinite = (pts: readonly MetricPoint[]): number | null => {
  for (let i = pts.length - 1; i >= 0; i--) if (Number.isFinite(pts[i]!.value)) return pts[i]!.value;
  return null;
};

/** The phases of a run, or undefined when it logs no `timing_s/<phase>` key. */
export function phaseTimeline(series: readonly MetricSeries[], maxColumns = MAX_PHASE_COLUMNS): PhaseTimeline | undefined {
  const rank = (p: string) => {
    const i = PHASE_ORDER.indexOf(p);
    return i < 0 ? PHASE_ORDER.length : i;
  };
  const timing = series.filter((s) => s.tag.startsWith(TIMING_PREFIX) && !s.tag.slice(TIMING_PREFIX.length).includes('/'));
  const phases = timing
    .map((s) => s.tag.slice(TIMING_PREFIX.length))
    .filter((p) => !NOT_STACKED.has(p))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (!phases.length) return undefined;
  const valueAt = (name: string) => {
    const m = new Map<number, number>();
    for (const p of timing.find((s) => s.tag === TIMING_PREFIX + name)?.points ?? [])
      if (Number.isFinite(p.value) && p.value >= 0) m.set(p.step, p.value);
    return m;
  };
  const byPhase = phases.map(valueAt);
  const stepTime = valueAt('step');
  const hasStepKey = stepTime.size > 0;
  const steps = [...new Set(byPhase.flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  // Per step: each phase's seconds, the step's time, the untimed rest.
  const rows = steps.map((step) => {
    const parts = byPhase.map((m) => m.get(step) ?? 0);
    const sum = parts.reduce((a, b) => a + b, 0);
    const total = Math.max(stepTime.get(step) ?? sum, sum);
    return { step, parts, total, other: total - sum };
  });
  const cols = Math.max(1, Math.floor(maxColumns));
  const columns: PhaseColumn[] = [];
  for (let c = 0; c < Math.min(cols, rows.length); c++) {
    const from = Math.floor((c * rows.length) / Math.min(cols, rows.length));
    const to = Math.floor(((c + 1) * rows.length) / Math.min(cols, rows.length));
    const group = rows.slice(from, to);
    const mean = (f: (r: (typeof rows)[number]) => number) => group.reduce((a, r) => a + f(r), 0) / group.length;
    columns.push({
      stepFrom: group[0]!.step,
      stepTo: group[group.length - 1]!.step,
      parts: phases.map((_, i) => mean((r) => r.parts[i]!)),
      total: mean((r) => r.total),
      other: mean((r) => r.other),
    });
  }
  const all = rows.reduce((a, r) => a + r.total, 0);
  const shares = phases.map((_, i) => (all > 0 ? rows.reduce((a, r) => a + r.parts[i]!, 0) / all : 0));
  const otherShare = all > 0 ? rows.reduce((a, r) => a + r.other, 0) / all : 0;
  let top = -1;
  shares.forEach((s, i) => {
    if (top < 0 || s > shares[top]!) top = i;
  });
  const perf = series
    .filter((s) => s.tag.startsWith('perf/'))
    .map((s) => {
      const vals = s.points.map((p) => p.value).filter(Number.isFinite);
      return {
        tag: s.tag,
        last: lastFinite(s.points),
        mean: vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null,
        max: vals.length ? vals.reduce((a, b) => (b > a ? b : a)) : null,
      };
    });
  return {
    phases,
    columns,
    shares,
    otherShare,
    ...(top >= 0 && shares[top]! > 0 ? { slowest: { phase: phases[top]!, share: shares[top]! } } : {}),
    steps: rows.length,
    meanStep: rows.length ? all / rows.length : 0,
    hasStepKey,
    perf,
  };
}
