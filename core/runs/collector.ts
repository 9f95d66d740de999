// Follows every session/host of one experiment for the dashboard: rollout, evaluation and exception
// logs are read from where the last poll stopped, so a live run costs only what it appended.
import { basename, join } from 'node:path';
import { isSessionName, tracebackAtEnd } from './discover';
import { tryReaddir, tryStat, type RunsFs } from '../fs/seam';
import { evalPoint, exceptionItem, StepAggregator, type EvalPoint, type ExceptionItem, type StepPoint } from './metrics';
import { FileFollower, RecordStream, type DecodedRecord } from './records';

export interface RunSeries {
  /** The experiment folder. */
  id: string;
  label: string;
  steps: StepPoint[];
  evals: EvalPoint[];
  exceptions: ExceptionItem[];
  /** Bytes of rollout log not read yet (large logs are taken in steps). */
  pendingBytes: number;
  skippedRecords: number;
  error?: string;
}

interface Followed {
  follower: FileFollower;
  stream: RecordStream;
  kind: 'rollout' | 'evaluation' | 'exception';
}

export class RunCollector {
  private readonly followed = new Map<string, Followed>();
  private readonly steps = new StepAggregator();
  private readonly evals = new Map<string, EvalPoint[]>();
  private readonly exceptions = new Map<string, ExceptionItem[]>();
  private tracebacks = new Map<string, ExceptionItem>();
  private pending = 0;
  private error: string | undefined;

  /**
   * `followRollout: false` leaves the rollout logs (the per-step curves) to another reader, e.g.
   * RolloutCurves (core/runs/curves.ts) on the token-log engine; evaluations and exceptions stay here.
   */
  constructor(
    readonly experimentPath: string,
    private readonly maxBytesPerPoll = 32 * 1024 * 1024,
    private readonly opts: { followRollout?: boolean } = {},
  ) {}

  /** Reads what changed since the last poll; returns true when the series changed. */
  async poll(fs: RunsFs): Promise<boolean> {
    let changed = false;
    const { entries, error } = await tryReaddir(fs, this.experimentPath);
    if (error !== this.error) {
      this.error = error;
      changed = true;
    }
    for (const s of entries
      .filter((e) => e.kind === 'dir' && isSessionName(e.name))
      .map((e) => e.name)
      .sort()) {
      const sessionPath = join(this.experimentPath, s);
      for (const h of (await tryReaddir(fs, sessionPath)).entries.filter((e) => e.kind === 'dir')) {
        const hostPath = join(sessionPath, h.name);
        for (const kind of ['rollout', 'evaluation', 'exception'] as const) {
          if (kind === 'rollout' && this.opts.followRollout === false) continue;
          const file = join(hostPath, kind, `${kind}.json.log`);
          if (!this.followed.has(file)) {
            if (!(await tryStat(fs, file))) continue;
            this.followed.set(file, { follower: new FileFollower(file), stream: new RecordStream(), kind });
          }
        }
        const regular = join(hostPath, 'regular', 'regular.log');
        const tb = await tracebackAtEnd(fs, regular);
        const had = this.tracebacks.get(regular);
        if (tb && !had) {
          const st = await tryStat(fs, regular);
          this.tracebacks.set(regular, {
            time: st ? localTime(st.mtimeMs) : '',
            title: tb,
            detail: `${s}/${h.name}`,
            source: 'regular',
            file: regular,
          });
          changed = true;
        } else if (!tb && had) {
          this.tracebacks.delete(regular);
          changed = true;
        }
      }
    }
    this.pending = 0;
    let rolloutReset = false;
    for (const [file, f] of this.followed) {
      let r;
      try {
        r = await f.follower.poll(fs, f.kind === 'rollout' ? this.maxBytesPerPoll : Number.POSITIVE_INFINITY);
      } catch {
        continue; // vanished or unreadable this time; the next poll tries again
      }
      if (f.kind === 'rollout') this.pending += r.remaining;
      if (r.reset) {
        f.stream.reset();
        if (f.kind === 'rollout') rolloutReset = true;
        else if (f.kind === 'evaluation') this.evals.delete(file);
        else this.exceptions.delete(file);
      }
      if (!r.lines.length) continue;
      const recs = f.stream.feed(r.lines);
      if (!recs.length) continue;
      changed = true;
      this.consume(f.kind, recs, file);
    }
    if (rolloutReset) {
      // A rotated or truncated rollout log: rebuild the steps from every followed file.
      changed = true;
      this.steps.clear();
      for (const [, f] of this.followed)
        if (f.kind === 'rollout') {
          f.follower = new FileFollower(f.follower.path);
          f.stream.reset();
        }
      return (await this.poll(fs)) || changed;
    }
    return changed;
  }

  private consume(kind: Followed['kind'], recs: DecodedRecord[], file: string): void {
    const evals = this.evals.get(file) ?? [];
    const exceptions = this.exceptions.get(file) ?? [];
    for (const rec of recs) {
      if (kind === 'rollout') this.steps.add(rec);
      else if (kind === 'evaluation') {
        const p = evalPoint(rec, evals.length + 1);
        if (p) evals.push(p);
      } else {
        exceptions.push(exceptionItem(rec, file));
      }
    }
    if (kind === 'evaluation') this.evals.set(file, evals);
    if (kind === 'exception') this.exceptions.set(file, exceptions);
  }

  series(label = basename(this.experimentPath)): RunSeries {
    const out: RunSeries = {
      id: this.experimentPath,
      label,
      steps: this.steps.points(),
      evals: [...this.evals.values()]
        .flat()
        .sort((a, b) => a.time.localeCompare(b.time))
        .map((e, i) => ({ ...e, index: i + 1 })),
      exceptions: [...[...this.exceptions.values()].flat(), ...this.tracebacks.values()].sort((a, b) => a.time.localeCompare(b.time)),
      pendingBytes: this.pending,
      skippedRecords: this.steps.skipped,
    };
    if (this.error) out.error = this.error;
    return out;
  }
}

function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}
