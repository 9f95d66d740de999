// A run's metrics from every source found for it, kept open for a live run: update() reads only
// what each source appended. TensorBoard points win over SwanLab's, and both over console points of
// the same tag (they carry wall time and full precision; the console prints 3 decimals).
import type { MetricIssue, MetricPoint, MetricSeries, RunMetrics } from '../protocol/metrics';
import { nodeFs, tryStat, type RunsFs } from '../fs/seam';
import { TensorBoardRun, sortedByStep, type TensorBoardReadOptions } from './tensorboard';
import { ConsoleMetrics } from './console';
import { SwanLabRun } from './swanlab';
import { findMetricSources, type MetricSources } from './find';
import { t } from '../l10n';

/** Console output read per update, at most (a launch output file is capped at 1 MB anyway). */
const CONSOLE_MAX = 64 * 1024 * 1024;

interface ConsoleSource {
  path: string;
  offset: number;
  metrics: ConsoleMetrics;
  error?: string;
}

export class RunMetricsReader implements MetricsReading {
  private readonly tb: TensorBoardRun[];
  private readonly swan: SwanLabRun[];
  private readonly consoles: ConsoleSource[];

  constructor(
    readonly sources: MetricSources,
    private readonly fs: RunsFs = nodeFs(),
    opts: TensorBoardReadOptions = {},
  ) {
    this.tb = sources.tensorboard.map((d) => new TensorBoardRun(d, fs, opts));
    this.swan = sources.swanlab.map((d) => new SwanLabRun(d, fs, opts));
    this.consoles = sources.console.map((path) => ({ path, offset: 0, metrics: new ConsoleMetrics() }));
  }

  /** Reads what every source appended; true when any series changed. */
  async update(): Promise<boolean> {
    let changed = false;
    for (const r of this.tb) if (await r.update()) changed = true;
    for (const r of this.swan) if (await r.update()) changed = true;
    for (const c of this.consoles) {
      const st = await tryStat(this.fs, c.path);
      if (!st?.isFile()) {
        c.error = st ? t('not a regular file') : t('no such file');
        continue;
      }
      delete c.error;
      if (st.size < c.offset) {
        // Rewritten (a launch record's output is rewritten at exit): read it again.
        c.offset = 0;
        c.metrics = new ConsoleMetrics();
        changed = true;
      }
      if (st.size === c.offset) continue;
      const buf = await this.fs.readRange(c.path, c.offset, Math.min(st.size - c.offset, CONSOLE_MAX));
      c.offset += buf.length;
      if (c.metrics.push(buf.toString('utf8'))) changed = true;
    }
    return changed;
  }

  result(): RunMetrics {
    const byTag = new Map<string, MetricPoint[]>();
    const issues: MetricIssue[] = [];
    for (const r of this.tb) {
      for (const s of r.series()) if (!byTag.has(s.tag)) byTag.set(s.tag, s.points);
      issues.push(...r.issues());
    }
    // SwanLab: a run resumed into several folders is one series per tag, in folder (time) order.
    const fromTb = new Set(byTag.keys());
    for (const r of this.swan) {
      for (const s of r.series()) {
        if (fromTb.has(s.tag)) continue;
        const list = byTag.get(s.tag);
        if (list) list.push(...s.points);
        else byTag.set(s.tag, [...s.points]);
      }
      issues.push(...r.issues());
    }
    const fromFiles = new Set(byTag.keys());
    for (const c of this.consoles) {
      if (c.error) issues.push({ file: c.path, message: c.error });
      for (const [tag, points] of c.metrics.points) {
        if (fromFiles.has(tag)) continue;
        const list = byTag.get(tag);
        if (list) list.push(...points);
        else byTag.set(tag, [...points]);
      }
    }
    const series: MetricSeries[] = [...byTag]
      .map(([tag, points]) => ({ tag, points: sortedByStep(points) }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
    return {
      sources: [
        ...this.sources.tensorboard.map((path) => ({ kind: 'tensorboard' as const, path })),
        ...this.sources.swanlab.map((path) => ({ kind: 'swanlab' as const, path })),
        ...this.consoles.filter((c) => c.metrics.firstLine !== undefined).map((c) => ({ kind: 'console' as const, path: c.path })),
      ],
      series,
      issues,
    };
  }
}

/**
 * What reads a run's metrics, incrementally: RunMetricsReader in process, or its counterpart on a
 * worker thread (offThread.ts) where the calling thread must never wait (the extension host).
 */
export interface MetricsReading {
  update(): Promise<boolean>;
  result(): RunMetrics;
  /** Forgets the reader's state (a worker's); nothing to do in process. */
  close?(): void;
}
export type MetricsReaderFactory = (sources: MetricSources) => MetricsReading;

/** Reads the metrics of `path` (an experiment folder, a TensorBoard folder or file, a console output file) once. */
export async function readRunMetrics(
  path: string,
  opts: { fs?: RunsFs; env?: Readonly<Record<string, string | undefined>> } & TensorBoardReadOptions = {},
): Promise<RunMetrics & { looked: string[] }> {
  const fs = opts.fs ?? nodeFs();
  const sources = await findMetricSources(fs, path, opts.env);
  const reader = new RunMetricsReader(sources, fs, opts);
  await reader.update();
  return { ...reader.result(), looked: sources.looked };
}
