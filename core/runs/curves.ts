// The dashboard's per-step rollout curves of one experiment, from the token-log engine: every
// host, every rotated file, in order (core/logs/wholelog.ts stepCurves), scanned on worker
// threads with the facts cache, the points growing as the files are read. A later refresh of an
// unchanged run costs a few stats; a grown live file is read from where the cache left it.
import { stat } from 'node:fs/promises';
import { findRunLogs, openLogs, stepCurves } from '../logs/wholelog';
import { LogIndex } from '../logs/index';
import type { FactsCache } from '../logs/cache';
import type { StepPoint } from './types';
import { parseRecordTitle } from '../logs/record';
import { TaskTable } from './taskTable';

export interface CurvesProgress {
  done: number;
  total: number;
}

/** Least time between two versions of the per-task table while a run is read. */
const TASKS_BUMP_MS = 2000;

export class RolloutCurves {
  points: StepPoint[] = [];
  /** The per-task table, read in the same pass as the curves (grows while a refresh reads). */
  tasks = new TaskTable();
  /** Bumped whenever `tasks` changes (a page the webview holds is then out of date). */
  tasksVersion = 0;
  /** Records read / to read while a refresh runs; undefined when the curves are complete. */
  progress: CurvesProgress | undefined;
  private signature = '';

  constructor(
    readonly experimentPath: string,
    private readonly opts: { cache?: FactsCache; workers?: number; within?: readonly string[] } = {},
  ) {}

  /** Bytes of rollout log in the run (every host, rotated files included), as of the last look. */
  bytes = 0;

  /** Files and sizes of the rollout logs (with their rotated siblings): what the curves depend on. */
  private async currentSignature(): Promise<string> {
    const parts: string[] = [];
    let bytes = 0;
    for (const main of await findRunLogs(this.experimentPath)) {
      for (const p of await new LogIndex(main, this.opts.within ? { within: this.opts.within } : {}).discover()) {
        const st = await stat(p).catch(() => undefined);
        if (st) {
          parts.push(`${p}\0${st.size}\0${st.mtimeMs}\0${st.ino}`);
          bytes += st.size;
        }
      }
    }
    this.bytes = bytes;
    return parts.join('\n');
  }

  /** True when the rollout logs changed since the curves were read (also updates `bytes`). */
  async stale(): Promise<boolean> {
    return (await this.currentSignature()) !== this.signature;
  }

  /**
   * Reads the curves again when a rollout log changed; `onPoints` sees them grow (throttle on the
   * caller's side). Returns false when nothing changed. Cancellable through `signal`.
   */
  async refresh(signal?: AbortSignal, onPoints?: (points: StepPoint[], progress: CurvesProgress) => void): Promise<boolean> {
    const sig = await this.currentSignature();
    if (sig === this.signature) return false;
    const mains = await findRunLogs(this.experimentPath);
    const opened = await openLogs(mains, { cache: this.opts.cache, signal, ...(this.opts.within ? { within: this.opts.within } : {}) });
    const total = opened.indexes.reduce((a, ix) => a + ix.count, 0);
    this.progress = { done: 0, total };
    const tasks = new TaskTable();
    this.tasks = tasks;
    this.tasksVersion++;
    let lastTasksBump = Date.now();
    const points = await stepCurves(opened, {
      onRecord: (f, time, log, order) => {
        // Token (rollout) records only; the title's reward, as the curves use.
        if (f.kind !== undefined && f.kind !== 'tokens') return;
        if (f.error !== undefined) return;
        tasks.add({
          taskId: f.taskId,
          step: f.step,
          reward: f.title !== undefined ? parseRecordTitle(f.title).reward : f.reward,
          outcome: f.outcome,
          time,
          log,
          order,
        });
      },
      cache: this.opts.cache,
      signal,
      workers: this.opts.workers,
      onPoints: (p, done, all) => {
        this.progress = { done, total: all };
        // While a big run is read the page asks for its rows again at most every few seconds
        // (each new version costs the host a sort of the whole table).
        const now = Date.now();
        if (now - lastTasksBump >= TASKS_BUMP_MS) {
          lastTasksBump = now;
          this.tasksVersion++;
        }
        onPoints?.(p, this.progress);
      },
    });
    this.points = points;
    this.progress = undefined;
    this.tasksVersion++;
    this.signature = sig;
    return true;
  }
}
