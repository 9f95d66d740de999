// Two or more runs side by side: how their configs differ (from their config snapshots,
// `yaml_backup.yaml`), and for the metric keys that matter (the reward and score keys, every
// `val-core/*`, plus the keys asked for) each run's final and best value, the value at the last step
// every run reached, and the curve summarised (trend, a few bucket means). The one core function
// under `agentjet compare`, the MCP tool and the VS Code language-model tool `agentjet_compare_runs`.
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import type { MetricSeries } from '../protocol/metrics';
import { fsErrorText, tryStat, type RunsFs } from '../fs/seam';
import { findMetricSources, type MetricSources } from './find';
import { RunMetricsReader, type MetricsReaderFactory, type MetricsReading } from './read';
import { summarize } from './summary';
import { t } from '../l10n';

/** The keys compared by default when a run has them: the reward, score and success of verl / AgentJet, and validation. */
export const DEFAULT_COMPARE_KEYS: readonly (string | RegExp)[] = [
  'critic/rewards/mean',
  'critic/score/mean',
  'critic/real_reward',
  'critic/success_rate',
  'critic/real_success_rate',
  /^val-core\//,
];
/** Config leaves read from one snapshot, at most. */
const MAX_LEAVES = 50_000;
const MAX_SNAPSHOT = 2 * 1024 * 1024;
/** Bucket means per curve. */
const CURVE_POINTS = 8;

/** Lower is better for these keys (losses, KL, errors, times); higher for every other. */
export function lowerIsBetter(key: string): boolean {
  return /(^|[/_])(loss|kl|error|perplexity|ppl)($|[/_])|^timing_s\/|grad_norm/i.test(key);
}

export type Leaf = string | number | boolean | null;

/** A parsed config as `a.b[0].c` -> value; arrays of plain values are one leaf (their JSON). */
export function flattenConfig(v: unknown, out = new Map<string, Leaf>(), prefix = '', depth = 0): Map<string, Leaf> {
  if (out.size >= MAX_LEAVES) return out;
  if (v === null || v === undefined || typeof v !== 'object') {
    out.set(prefix || '.', v === undefined ? null : (v as Leaf));
    return out;
  }
  if (depth > 64) {
    out.set(prefix, JSON.stringify(v).slice(0, 200));
    return out;
  }
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object')) out.set(prefix, JSON.stringify(v));
    else v.forEach((x, i) => flattenConfig(x, out, `${prefix}[${i}]`, depth + 1));
    return out;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length) out.set(prefix, '{}');
  for (const [k, x] of entries) flattenConfig(x, out, prefix ? `${prefix}.${k}` : k, depth + 1);
  return out;
}

export interface CompareRun {
  name: string;
  path: string;
  sources: MetricSources;
  series: MetricSeries[];
  issues: number;
  config?: Map<string, Leaf>;
  configError?: string;
}

async function readConfig(fs: RunsFs, dir: string): Promise<{ config?: Map<string, Leaf>; configError?: string }> {
  const snap = join(dir, 'yaml_backup.yaml');
  const st = await tryStat(fs, snap);
  if (!st?.isFile()) return { configError: t('no config snapshot (yaml_backup.yaml)') };
  try {
    const buf = await fs.readRange(snap, 0, MAX_SNAPSHOT + 1);
    if (buf.length > MAX_SNAPSHOT) return { configError: t('snapshot larger than 2 MB, not read') };
    return { config: flattenConfig(parse(buf.toString('utf8'), { maxAliasCount: 1000 }) as unknown) };
  } catch (err) {
    return { configError: fsErrorText(err) };
  }
}

/** Reads one run for a comparison: its metrics (as `agentjet metrics` finds them) and its config snapshot. */
export async function readCompareRun(
  fs: RunsFs,
  path: string,
  opts: {
    env?: Readonly<Record<string, string | undefined>>;
    readable?: (p: string) => Promise<boolean>;
    sources?: MetricSources;
    /** Who reads the metrics (a worker thread in VS Code); in process by default. */
    reader?: MetricsReaderFactory;
  } = {},
): Promise<CompareRun> {
  const sources = opts.sources ?? (await findMetricSources(fs, path, opts.env, opts.readable));
  const reader: MetricsReading = opts.reader?.(sources) ?? new RunMetricsReader(sources, fs);
  let m;
  try {
    await reader.update();
    m = reader.result();
  } finally {
    reader.close?.();
  }
  const dir = (await tryStat(fs, path))?.isDirectory() ? path : undefined;
  const cfg = dir ? await readConfig(fs, dir) : { configError: t('no config snapshot (yaml_backup.yaml)') };
  return { name: basename(path), path, sources, series: m.series, issues: m.issues.length, ...cfg };
}

export interface ConfigDifference {
  key: string;
  /** One value per run, in the runs' order; null for a run whose config lacks the key. */
  values: (Leaf | undefined)[];
}

/** The config keys whose values are not the same in every run that has a snapshot, sorted by key. */
export function configDifferences(runs: readonly CompareRun[]): ConfigDifference[] {
  const withConfig = runs.filter((r) => r.config);
  if (withConfig.length < 2) return [];
  const keys = new Set<string>();
  for (const r of withConfig) for (const k of r.config!.keys()) keys.add(k);
  const out: ConfigDifference[] = [];
  for (const key of [...keys].sort()) {
    const values = runs.map((r) => (r.config ? (r.config.has(key) ? r.config.get(key)! : undefined) : undefined));
    const seen = new Set(withConfig.map((r) => JSON.stringify(r.config!.has(key) ? r.config!.get(key) : '\u0000absent')));
    if (seen.size > 1) out.push({ key, values });
  }
  return out;
}

export interface KeyInRun {
  points: number;
  final: { step: number; value: number };
  best: { step: number; value: number };
  trend: 'rising' | 'falling' | 'flat';
  /** Up to CURVE_POINTS bucket means: [first step of the bucket, mean]. */
  curve: [number, number][];
}

export interface KeyComparison {
  key: string;
  better: 'higher' | 'lower';
  /** One entry per run, in order; null where the run lacks the key. */
  runs: (KeyInRun | null)[];
  /** The last step every run that has the key reached, and each run's value there (its last point at or before it). */
  atCommonStep?: { step: number; values: (number | null)[] };
  /** The run with the better final value, and the one with the better best value (names). */
  ahead?: { final: string; best: string };
}

function curveOf(s: MetricSeries): [number, number][] {
  const pts = s.points.filter((p) => Number.isFinite(p.value));
  const n = Math.min(CURVE_POINTS, pts.length);
  const out: [number, number][] = [];
  for (let b = 0; b < n; b++) {
    const from = Math.floor((b * pts.length) / n);
    const to = Math.floor(((b + 1) * pts.length) / n);
    let sum = 0;
    for (let i = from; i < to; i++) sum += pts[i]!.value;
    out.push([pts[from]!.step, Number((sum / (to - from)).toPrecision(6))]);
  }
  return out;
}

function keyInRun(s: MetricSeries, lower: boolean): KeyInRun {
  const x = summarize(s);
  let best = s.points[0]!;
  for (const p of s.points)
    if (Number.isFinite(p.value) && (!Number.isFinite(best.value) || (lower ? p.value < best.value : p.value > best.value))) best = p;
  return {
    points: x.points,
    final: x.last,
    best: { step: best.step, value: best.value },
    trend: x.trend,
    curve: curveOf(s),
  };
}

/** The keys to compare: the default ones any run has, then the asked ones (in the order asked). */
export function keysToCompare(runs: readonly CompareRun[], asked: readonly string[] = []): string[] {
  const all = new Set<string>();
  for (const r of runs) for (const s of r.series) all.add(s.tag);
  const out: string[] = [];
  for (const want of DEFAULT_COMPARE_KEYS)
    for (const k of [...all].sort()) if ((typeof want === 'string' ? k === want : want.test(k)) && !out.includes(k)) out.push(k);
  for (const k of asked) if (!out.includes(k)) out.push(k);
  return out;
}

export function compareKey(runs: readonly CompareRun[], key: string): KeyComparison {
  const lower = lowerIsBetter(key);
  const series = runs.map((r) => r.series.find((s) => s.tag === key));
  const per = series.map((s) => (s && s.points.length ? keyInRun(s, lower) : null));
  const out: KeyComparison = { key, better: lower ? 'lower' : 'higher', runs: per };
  const have = per.map((p, i) => [p, i] as const).filter((x): x is readonly [KeyInRun, number] => x[0] !== null);
  if (have.length >= 2) {
    const step = Math.min(...have.map(([p]) => p.final.step));
    out.atCommonStep = {
      step,
      values: series.map((s) => {
        if (!s) return null;
        let v: number | null = null;
        for (const p of s.points) if (p.step <= step) v = p.value;
        return v;
      }),
    };
    const pick = (f: (p: KeyInRun) => number) =>
      have.reduce((a, b) => {
        const x = f(a[0]);
        const y = f(b[0]);
        if (!Number.isFinite(y)) return a;
        if (!Number.isFinite(x)) return b;
        return (lower ? y < x : y > x) ? b : a;
      });
    out.ahead = { final: runs[pick((p) => p.final.value)[1]]!.name, best: runs[pick((p) => p.best.value)[1]]!.name };
  }
  return out;
}

/** Runs' names made distinct (two runs of the same experiment in different places). */
export function distinctNames(runs: CompareRun[]): void {
  const count = new Map<string, number>();
  for (const r of runs) count.set(r.name, (count.get(r.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const r of runs)
    if (count.get(r.name)! > 1) {
      const n = (seen.get(r.name) ?? 0) + 1;
      seen.set(r.name, n);
      r.name = `${r.name}#${n}`;
    }
}
