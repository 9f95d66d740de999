// Watches one Ray session's worker logs as they grow and keeps the list of paused workers.
// Never blocks its thread (it runs in the extension host): every listing, stat and read is
// asynchronous, and passes run one at a time. Incremental: a file event names the log that changed
// and only that log is looked at (after a short debounce that gathers a burst of writes); each file
// is read from where the last read stopped, and a file that shrank (rotation, truncation) is read
// again from the start. A full pass (list the folder, stat every log) runs on the poll, since fs
// events on growing files are unreliable on network and container file systems: every
// `intervalMs` without a working fs watcher, every `fullEveryMs` with one (between them the poll
// only looks at the logs events named and whether paused workers are still alive).
import { watch, type FSWatcher } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { listenerFromLog, parseWorkerLogName, pausedFromLog, WorkerLogState, type WorkerLogName } from './workerLog';
import type { PausedWorker } from './types';
import { listenersKey, type ListeningWorker } from './breakpoints';
import { existsBySignal } from '../agentjet/liveness';
import { mapLimit } from '../fs/seam';

interface Tracked {
  log: WorkerLogName;
  offset: number;
  partial: string;
  state: WorkerLogState;
}

/** Bytes read and parsed at a time (the event loop runs between two). */
const MAX_READ = 256 * 1024;
/** Stats in flight during a full pass. */
const STAT_CONCURRENCY = 32;

export interface WatcherOptions {
  /** Poll period, ms. */
  intervalMs?: number;
  /** With a working fs watcher, a full pass at most this often (ms; default 5 s, never under intervalMs). */
  fullEveryMs?: number;
  /** How long a burst of file events is gathered before a pass (ms; default 50). */
  debounceMs?: number;
  /** Whether a local pid is alive (a worker that died is no longer paused). */
  alive?: (pid: number) => boolean;
  now?: () => number;
}

/**
 * Emits `change` (PausedWorker[]) whenever the paused set changes, and `listeners`
 * (ListeningWorker[]) whenever the workers with an editor-breakpoints listener, or their names, change.
 */
export class SessionLogWatcher extends EventEmitter {
  private readonly files = new Map<string, Tracked>();
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private fsw: FSWatcher | undefined;
  private last = '';
  private current: PausedWorker[] = [];
  private listening: ListeningWorker[] = [];
  private lastListening = '';
  private disposed = false;
  private firstScan = true;
  private lastFull = 0;
  /** What the next pass looks at: everything, or the logs events named. */
  private wantFull = false;
  private readonly wantNames = new Set<string>();
  private wanted = false;
  private waiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private turns: Promise<void> = Promise.resolve();
  /** Full passes and logs read so far (tests, the bench). */
  readonly stats = { fullPasses: 0, partialPasses: 0, reads: 0 };
  readonly logsDir: string;

  constructor(
    readonly sessionDir: string,
    private readonly opts: WatcherOptions = {},
  ) {
    super();
    this.logsDir = join(sessionDir, 'logs');
  }

  get paused(): readonly PausedWorker[] {
    return this.current;
  }

  /** Live workers whose listener the editor-breakpoints hook opened. */
  get hookListeners(): readonly ListeningWorker[] {
    return this.listening;
  }

  start(): this {
    void this.scan();
    const interval = this.opts.intervalMs ?? 500;
    const fullEvery = Math.max(interval, this.opts.fullEveryMs ?? 5000);
    this.timer = setInterval(() => {
      const full = !this.fsw || Date.now() - this.lastFull >= fullEvery;
      void this.request(full);
    }, interval);
    this.watchFolder();
    return this;
  }

  private watchFolder(): void {
    try {
      this.fsw = watch(this.logsDir, (_event, name) => {
        if (typeof name === 'string' && name) this.wantNames.add(name);
        else this.wantFull = true;
        this.wanted = true;
        if (this.debounce) return;
        this.debounce = setTimeout(() => {
          this.debounce = undefined;
          void this.request(false);
        }, this.opts.debounceMs ?? 50);
      });
      this.fsw.on('error', () => {
        this.fsw?.close();
        this.fsw = undefined;
      });
    } catch {
      /* folder not there yet: polling finds it (and watches it then) */
    }
  }

  /** A full pass over the logs folder (one at a time); resolves with the paused workers after it. */
  scan(): Promise<PausedWorker[]> {
    return this.request(true);
  }

  private request(full: boolean): Promise<PausedWorker[]> {
    if (this.disposed) return Promise.resolve(this.current);
    if (full) this.wantFull = true;
    this.wanted = true;
    const done = new Promise<PausedWorker[]>((resolve) => this.waiters.push(() => resolve(this.current)));
    this.kick();
    return done;
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.wanted && !this.disposed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.wanted && !this.disposed) {
      const full = this.wantFull;
      const names = [...this.wantNames];
      const waiters = this.waiters;
      this.wanted = false;
      this.wantFull = false;
      this.wantNames.clear();
      this.waiters = [];
      try {
        await this.pass(full, names);
      } catch {
        /* a pass that failed is retried by the next poll */
      }
      for (const w of waiters) w();
    }
    // Disposed while waiting: the callers get what there was.
    for (const w of this.waiters.splice(0)) w();
  }

  private async pass(full: boolean, names: readonly string[]): Promise<void> {
    const now = (this.opts.now ?? Date.now)();
    if (full) {
      this.stats.fullPasses++;
      this.lastFull = Date.now();
      let all: string[];
      try {
        all = await readdir(this.logsDir);
      } catch {
        all = [];
      }
      if (!this.fsw && all.length && !this.disposed) this.watchFolder();
      await this.look(all, now);
    } else {
      this.stats.partialPasses++;
      await this.look(names, now);
    }
    if (this.disposed) return;
    this.firstScan = false;
    this.publish();
  }

  /** Stats the named logs and reads what each grew by. */
  private async look(names: readonly string[], now: number): Promise<void> {
    await mapLimit(names, STAT_CONCURRENCY, async (name) => {
      const log = parseWorkerLogName(name);
      if (!log || this.disposed) return;
      const path = join(this.logsDir, name);
      let size: number;
      let mtime: number;
      try {
        const st = await stat(path);
        size = st.size;
        mtime = st.mtimeMs;
      } catch {
        return;
      }
      let t = this.files.get(path);
      if (!t || size < t.offset) {
        t = { log, offset: 0, partial: '', state: t?.state ?? new WorkerLogState() };
        this.files.set(path, t);
      }
      if (size === t.offset) return;
      // On the first scan a pause is as old as the file's last write, not "now".
      const seenAt = this.firstScan ? Math.min(now, mtime) : now;
      await this.readNew(path, t, size, seenAt);
    });
  }

  /** The paused workers and the listeners as the logs read so far tell it; emits on a change. */
  private publish(): void {
    const alive = this.opts.alive ?? existsBySignal;
    // Both streams of a worker share its state only through the pid: merge per worker id.
    const byWorker = new Map<string, PausedWorker>();
    for (const t of this.files.values()) {
      const p = pausedFromLog(t.state, t.log, this.sessionDir);
      if (!p || !alive(t.log.pid)) continue;
      const prev = byWorker.get(t.log.workerId);
      if (!prev || p.since > prev.since) byWorker.set(t.log.workerId, { ...p, name: p.name ?? prev?.name, role: p.role ?? prev?.role });
    }
    const byListener = new Map<string, ListeningWorker>();
    for (const t of this.files.values()) {
      const l = listenerFromLog(t.state, t.log);
      if (!l || !alive(t.log.pid)) continue;
      // The .out and .err files of one worker: the names may be split between them.
      const prev = byListener.get(t.log.workerId);
      byListener.set(t.log.workerId, prev ? { ...prev, names: [...new Set([...prev.names, ...l.names])], role: prev.role ?? l.role } : l);
    }
    for (const t of this.files.values()) {
      const l = byListener.get(t.log.workerId);
      if (l && !t.state.hookListener) {
        const names = [...new Set([...l.names, ...t.state.names])];
        byListener.set(t.log.workerId, { ...l, names, role: l.role ?? t.state.role });
      }
    }
    this.listening = [...byListener.values()];
    const lkey = listenersKey(this.listening);
    if (lkey !== this.lastListening) {
      this.lastListening = lkey;
      this.emit('listeners', this.listening);
    }
    const next = [...byWorker.values()].sort((a, b) => a.since - b.since);
    const key = next.map((p) => `${p.id}@${p.since}`).join('|');
    this.current = next;
    if (key !== this.last) {
      this.last = key;
      this.emit('change', next);
    }
  }

  /**
   * Runs `fn` in a turn of the event loop of its own, after the one before it: reads that finish
   * together (a full pass has dozens in flight) are parsed one chunk per turn, never in one stretch.
   */
  private inTurn(fn: () => void): Promise<void> {
    const run = this.turns.then(() => new Promise<void>((resolve) => setImmediate(() => resolve(fn()))));
    this.turns = run.catch(() => undefined);
    return run;
  }

  private async readNew(path: string, t: Tracked, size: number, seenAt: number): Promise<void> {
    let fh;
    try {
      fh = await open(path, 'r');
    } catch {
      return;
    }
    this.stats.reads++;
    try {
      while (t.offset < size && !this.disposed) {
        const len = Math.min(MAX_READ, size - t.offset);
        const buf = Buffer.alloc(len);
        const { bytesRead: n } = await fh.read(buf, 0, len, t.offset);
        if (n <= 0) break;
        t.offset += n;
        await this.inTurn(() => {
          const lines = (t.partial + buf.subarray(0, n).toString('utf8')).split('\n');
          t.partial = lines.pop()!.slice(-8192);
          for (const line of lines) t.state.feed(line, seenAt);
        });
      }
    } catch {
      /* gone meanwhile: the next pass sees */
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.fsw?.close();
    this.removeAllListeners();
  }
}
