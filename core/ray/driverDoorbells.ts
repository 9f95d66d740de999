// Editor-breakpoint doorbells found in the launch's console. Ray relays every worker's output to the
// driver (`(name pid=N, ip=A) line`), from every node of the cluster, so the doorbell line of a
// worker on another machine reaches the console even though its log file never reaches this one.
// Such a worker's task/actor names are asked of its doorbell (`names`), because the `:task_name:`
// lines that say them are kept out of the relay by Ray. Workers on this machine are also found in
// their log files (core/ray/watcher.ts); `mergeListeners` joins the two by doorbell address.
import { askWorkerNames, type WorkerNames } from './doorbell';
import type { ListeningWorker } from './breakpoints';
import { driverLineOf, driverPrefix } from './workerLog';
import { listenerAddress } from './types';

/** Ask a worker again after this long: a pooled worker may run a matching task later. */
const ASK_AGAIN_MS = 5_000;
/** Doorbells that failed this many times in a row are taken as gone (the worker ended). */
const GONE_AFTER = 3;
/** A console that prints more doorbells than this is not believed beyond it. */
const MAX_WORKERS = 4096;

interface Entry {
  worker: ListeningWorker;
  /** `pid|ip` of the relay prefix, to credit names printed later in the worker's own lines. */
  relay: string;
  askedAt: number;
  failures: number;
}

export type NamesAsker = (host: string, port: number, timeoutMs: number) => Promise<WorkerNames>;

export class DriverDoorbells {
  private readonly entries = new Map<string, Entry>();
  private readonly byRelay = new Map<string, Entry>();
  private asking = false;

  constructor(
    private readonly ask: NamesAsker = askWorkerNames,
    private readonly now: () => number = Date.now,
  ) {}

  /** One console line; true when the list of workers or their names changed. */
  feed(line: string): boolean {
    const p = driverPrefix(line);
    if (!p) return false;
    const d = driverLineOf(p);
    if (d?.doorbell && d.host !== undefined && d.port !== undefined && d.pid !== undefined) {
      const key = listenerAddress({ host: d.host, port: d.port });
      if (this.entries.has(key) || this.entries.size >= MAX_WORKERS) return false;
      const names = d.name ? [d.name] : [];
      const e: Entry = {
        worker: { key, host: d.host, port: d.port, pid: d.pid, names, role: undefined },
        relay: `${d.pid}|${d.ip ?? ''}`,
        askedAt: -Infinity,
        failures: 0,
      };
      this.entries.set(key, e);
      this.byRelay.set(e.relay, e);
      return true;
    }
    // Any later line of a known worker carries the name of what it runs now.
    if (!p.name) return false;
    const e = this.byRelay.get(`${p.pid}|${p.ip ?? ''}`);
    if (!e || e.worker.names.includes(p.name) || e.worker.names.length >= 64) return false;
    e.worker = { ...e.worker, names: [...e.worker.names, p.name] };
    return true;
  }

  list(): ListeningWorker[] {
    return [...this.entries.values()].map((e) => e.worker);
  }

  /**
   * Asks the doorbells of workers not in `settled` (attached ones) what they ran, at most `limit`
   * at a time; never two rounds at once. True when anything changed.
   */
  async refresh(settled: ReadonlySet<string>, opts: { timeoutMs?: number; limit?: number } = {}): Promise<boolean> {
    if (this.asking) return false;
    this.asking = true;
    try {
      const now = this.now();
      const due = [...this.entries.values()].filter((e) => !settled.has(e.worker.key) && now - e.askedAt >= ASK_AGAIN_MS);
      let changed = false;
      const limit = opts.limit ?? 16;
      for (let i = 0; i < due.length; i += limit) {
        const results = await Promise.all(
          due.slice(i, i + limit).map(async (e) => {
            e.askedAt = this.now();
            try {
              const a = await this.ask(e.worker.host, e.worker.port, opts.timeoutMs ?? 2_500);
              e.failures = 0;
              const names = [...new Set([...e.worker.names, ...a.names])].slice(0, 64);
              const role = a.role ?? e.worker.role;
              if (names.length === e.worker.names.length && role === e.worker.role) return false;
              e.worker = { ...e.worker, names, role, pid: e.worker.pid ?? a.pid };
              return true;
            } catch {
              if (++e.failures < GONE_AFTER) return false;
              this.entries.delete(e.worker.key);
              if (this.byRelay.get(e.relay) === e) this.byRelay.delete(e.relay);
              return true;
            }
          }),
        );
        changed = results.some(Boolean) || changed;
      }
      return changed;
    } finally {
      this.asking = false;
    }
  }
}

/** Workers from the log files and from the console, one per doorbell, with the names of both. */
export function mergeListeners(...lists: (readonly ListeningWorker[])[]): ListeningWorker[] {
  const out = new Map<string, ListeningWorker>();
  for (const list of lists)
    for (const w of list) {
      const prev = out.get(w.key);
      out.set(
        w.key,
        prev ? { ...prev, names: [...new Set([...prev.names, ...w.names])], role: prev.role ?? w.role, pid: prev.pid ?? w.pid } : w,
      );
    }
  return [...out.values()];
}
