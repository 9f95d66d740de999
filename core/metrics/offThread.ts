// A run's metrics read on a worker thread (core/metrics/worker.ts) for a caller whose thread must
// never wait (the extension host's dashboard): the same incremental RunMetricsReader as in process,
// kept in the worker, so a live run's files are re-read only from where the last read stopped. One
// request in flight per thread; an aborted update ends the thread (a read cannot be interrupted
// otherwise) and the next update starts a new one that reads from the start. The worker's heap is
// capped: a run too large for it is a clear error, not a host out of memory. The CLI and MCP server
// keep reading in process (read.ts).
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MetricIssue, MetricPoint, MetricSeries, MetricSourceKind, RunMetrics } from '../protocol/metrics';
import type { RunMetricsInfo } from '../protocol/dashboard';
import { getLocale, t } from '../l10n';
import type { MetricSources } from './find';
import type { MetricsReading } from './read';
import type { TensorBoardReadOptions } from './tensorboard';
import { handleMetricsRequest, unpackPoints, type MetricsReply, type MetricsRequest, type PackedSeries } from './offThreadCore';

/** The worker's heap, at most (a 200 MB event file of 1M points needs a few hundred MB). */
export const METRICS_WORKER_HEAP_MB = 1536;

export class MetricsCancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

type Spec = { file: string; eval: boolean } | undefined;

/** Where the worker script is: beside the bundle (dist/metricsworker.js), or the source under tsx. */
function workerSpec(): Spec {
  const env = process.env.AGENTJET_METRICS_WORKER;
  if (env && existsSync(env)) return { file: env, eval: false };
  const bundled = join(__dirname, 'metricsworker.js');
  if (existsSync(bundled)) return { file: bundled, eval: false };
  const src = join(__dirname, 'worker.ts');
  if (__filename.endsWith('.ts') && existsSync(src)) return { file: `require('tsx/cjs'); require(${JSON.stringify(src)});`, eval: true };
  return undefined;
}

/** A request without what the thread adds (its id, the locale). */
type RequestBody = MetricsRequest extends infer R ? (R extends MetricsRequest ? Omit<R, 'id' | 'locale'> : never) : never;

interface Pending {
  resolve: (r: MetricsReply) => void;
  reject: (e: Error) => void;
}

/** One worker thread shared by the readers of one owner (a dashboard); started on first use. */
export class MetricsThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private disposed = false;
  /** Bumped each time a worker ends: readers of an earlier one have lost their state. */
  generation = 0;
  /** Whether requests run on a worker (false: no worker script was found; they run here). */
  readonly onWorker: boolean;

  constructor(private readonly spec: Spec = workerSpec()) {
    this.onWorker = spec !== undefined;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.spec!.file, { eval: this.spec!.eval, resourceLimits: { maxOldGenerationSizeMb: METRICS_WORKER_HEAP_MB } });
    w.on('message', (m: MetricsReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      p.resolve(m);
    });
    const end = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.generation++;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    w.on('error', (e) =>
      end(
        e.message.includes('out of memory')
          ? new Error(t('the metrics are too large to read: the reading thread ran out of its {0} MB', METRICS_WORKER_HEAP_MB))
          : e,
      ),
    );
    w.on('exit', (code) => end(new Error(t('the thread reading the metrics ended (code {0})', code))));
    this.worker = w;
    return w;
  }

  /** Sends one request; `signal` aborting ends the worker (and every request in flight on it). */
  async request(m: RequestBody, signal?: AbortSignal): Promise<MetricsReply> {
    if (this.disposed) throw new MetricsCancelledError();
    if (signal?.aborted) throw new MetricsCancelledError();
    const req = { ...m, id: this.nextId++, locale: getLocale() } as MetricsRequest;
    if (!this.onWorker) return handleMetricsRequest(req);
    const w = this.start();
    return new Promise<MetricsReply>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(req.id);
        reject(new MetricsCancelledError());
        this.end();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(req.id, {
        resolve: (r) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      w.postMessage(req);
    });
  }

  /** Ends the worker (its readers start over on their next update). */
  end(): void {
    const w = this.worker;
    if (!w) return;
    this.worker = undefined;
    this.generation++;
    for (const p of this.pending.values()) p.reject(new MetricsCancelledError());
    this.pending.clear();
    void w.terminate();
  }

  dispose(): void {
    this.disposed = true;
    this.end();
  }
}

let keys = 0;

/** RunMetricsReader's counterpart whose reading and decoding happen on a MetricsThread. */
export class OffThreadMetricsReader implements MetricsReading {
  private readonly key = `r${++keys}`;
  private generation = -1;
  private series = new Map<string, Float64Array>();
  private unpacked = new Map<string, MetricPoint[]>();
  private sources: { kind: MetricSourceKind; path: string }[] = [];
  private issueList: MetricIssue[] = [];
  private summary: RunMetricsInfo | undefined;

  constructor(
    readonly metricSources: MetricSources,
    private readonly thread: MetricsThread,
    private readonly opts: { read?: TensorBoardReadOptions; info?: { run: string; looked: string[] } } = {},
  ) {}

  /** Reads what every source appended (on the worker); true when any series changed. */
  async update(signal?: AbortSignal): Promise<boolean> {
    const generation = this.thread.generation;
    const reply = await this.thread.request(
      {
        kind: 'update',
        key: this.key,
        sources: this.metricSources,
        ...(this.opts.read ? { read: this.opts.read } : {}),
        ...(this.opts.info ? { info: this.opts.info } : {}),
      },
      signal,
    );
    if (!reply.ok) throw new Error(reply.error);
    // A new worker read everything again: its answer is whole (it always is when it changed).
    this.generation = generation;
    if (!reply.series) return false;
    this.take(reply.series);
    this.sources = reply.sources ?? [];
    this.issueList = reply.issues ?? [];
    this.summary = reply.info;
    return true;
  }

  private take(series: PackedSeries[]): void {
    this.series = new Map(series.map((s) => [s.tag, s.data]));
    this.unpacked = new Map();
  }

  /** The tags read, sorted. */
  tags(): string[] {
    return [...this.series.keys()];
  }

  /** One tag's points (unpacked on first ask: a dashboard shows a key or a few, never all). */
  points(tag: string): MetricPoint[] | undefined {
    let p = this.unpacked.get(tag);
    if (p) return p;
    const a = this.series.get(tag);
    if (!a) return undefined;
    this.unpacked.set(tag, (p = unpackPoints(a)));
    return p;
  }

  /** The dashboard's summary of the run (when asked for at construction). */
  info(): RunMetricsInfo | undefined {
    return this.summary;
  }

  /** Everything, as RunMetricsReader.result() gives it (unpacks every series: tests, small runs). */
  result(): RunMetrics {
    const series: MetricSeries[] = this.tags().map((tag) => ({ tag, points: this.points(tag)! }));
    return { sources: this.sources, series, issues: this.issueList };
  }

  /** Forgets this reader's state in the worker. */
  close(): void {
    if (this.thread.generation === this.generation) void this.thread.request({ kind: 'close', key: this.key }).catch(() => undefined);
  }
}
