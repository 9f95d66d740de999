// Watches one Ray session's worker logs as they grow and keeps the list of paused workers.
// Incremental: each file is read from where the last read stopped; a file that shrank (rotation,
// truncation) is read again from the start. Polls (fs events on growing files are unreliable on
// network and container file systems) and also rescans at once when the logs folder changes.
import { closeSync, openSync, readdirSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { listenerFromLog, parseWorkerLogName, pausedFromLog, WorkerLogState, type WorkerLogName } from './workerLog';
import type { PausedWorker } from './types';
import { listenersKey, type ListeningWorker } from './breakpoints';
import { existsBySignal } from '../agentjet/liveness';

interface Tracked {
  log: WorkerLogName;
  offset: number;
  partial: string;
  state: WorkerLogState;
}

const MAX_READ = 1 << 20;

export interface WatcherOptions {
  /** Poll period, ms. */
  intervalMs?: number;
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
  private fsw: FSWatcher | undefined;
  private last = '';
  private current: PausedWorker[] = [];
  private listening: ListeningWorker[] = [];
  private lastListening = '';
  private disposed = false;
  private firstScan = true;
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
    this.scan();
    this.timer = setInterval(() => this.scan(), this.opts.intervalMs ?? 500);
    try {
      this.fsw = watch(this.logsDir, () => this.scan());
      this.fsw.on('error', () => {
        this.fsw?.close();
        this.fsw = undefined;
      });
    } catch {
      /* folder not there yet: polling finds it */
    }
    return this;
  }

  /** One pass over the logs folder; returns the paused workers. */
  scan(): PausedWorker[] {
    if (this.disposed) return this.current;
    const now = (this.opts.now ?? Date.now)();
    let names: string[];
    try {
      names = readdirSync(this.logsDir);
    } catch {
      names = [];
    }
    for (const name of names) {
      const log = parseWorkerLogName(name);
      if (!log) continue;
      const path = join(this.logsDir, name);
      let t = this.files.get(path);
      let size: number;
      let mtime: number;
      try {
        const st = statSync(path);
        size = st.size;
        mtime = st.mtimeMs;
      } catch {
        continue;
      }
      if (!t || size < t.offset) {
        t = { log, offset: 0, partial: '', state: t?.state ?? new WorkerLogState() };
        this.files.set(path, t);
      }
      if (size === t.offset) continue;
      // On the first scan a pause is as old as the file's last write, not "now".
      const seenAt = this.firstScan ? Math.min(now, mtime) : now;
      this.readNew(path, t, size, seenAt);
    }
    this.firstScan = false;
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
    return next;
  }

  private readNew(path: string, t: Tracked, size: number, seenAt: number): void {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return;
    }
    try {
      while (t.offset < size) {
        const len = Math.min(MAX_READ, size - t.offset);
        const buf = Buffer.alloc(len);
        const n = readSync(fd, buf, 0, len, t.offset);
        if (n <= 0) break;
        t.offset += n;
        const lines = (t.partial + buf.subarray(0, n).toString('utf8')).split('\n');
        t.partial = lines.pop()!.slice(-8192);
        for (const line of lines) t.state.feed(line, seenAt);
      }
    } finally {
      closeSync(fd);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.fsw?.close();
    this.removeAllListeners();
  }
}
