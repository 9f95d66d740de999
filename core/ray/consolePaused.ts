// Paused Ray workers as the launch's console tells it. Ray relays each worker's debugger lines
// (`(rollout pid=N, ip=A) Ray debugger is listening on A:P`, then `Waiting for debugger to attach`)
// to the driver from every node, so a worker paused at bp() on a node whose logs are elsewhere, with
// no dashboard to ask, is found here. Workers on this machine are also found in their log files
// (core/ray/watcher.ts); the Paused workers view keeps one row per listener, the log's first.
import type { PausedWorker } from './types';
import { driverLineOf, driverPrefix } from './workerLog';

interface State {
  name: string | undefined;
  pid: number;
  ip: string | undefined;
  host: string | undefined;
  port: number | undefined;
  waitingSince: number | undefined;
}

/** A console that names more workers than this is not believed beyond it. */
const MAX_WORKERS = 4096;

export class ConsolePaused {
  private readonly workers = new Map<string, State>();

  constructor(
    /** Where the lines come from (the launch), for the rows' origin. */
    private readonly origin: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** One console line; true when the set of paused workers changed. */
  feed(line: string): boolean {
    const p = driverPrefix(line);
    if (!p) return false;
    const id = `${p.pid}|${p.ip ?? ''}`;
    let s = this.workers.get(id);
    const d = driverLineOf(p);
    if (!s) {
      if (!d || d.doorbell || this.workers.size >= MAX_WORKERS) return false;
      s = { name: p.name, pid: p.pid, ip: p.ip, host: undefined, port: undefined, waitingSince: undefined };
      this.workers.set(id, s);
    }
    const before = pausedAt(s);
    if (!d) {
      // The worker printed again under another task's name: it is no longer waiting.
      if (p.name && s.name && p.name !== s.name) s.waitingSince = undefined;
    } else if (d.event === 'listening' && !d.doorbell) {
      // "already open on PORT" has no host: the node's IP from the prefix, else the one it said before.
      s.host = d.host ?? p.ip ?? s.host;
      s.port = d.port;
    } else if (d.event === 'waiting') s.waitingSince = this.now();
    else if (d.event === 'connected') s.waitingSince = undefined;
    if (p.name) s.name = p.name;
    return pausedAt(s) !== before;
  }

  list(): PausedWorker[] {
    const out: PausedWorker[] = [];
    for (const s of this.workers.values()) {
      if (s.waitingSince === undefined || s.host === undefined || s.port === undefined) continue;
      out.push({
        id: `output:${s.pid}:${s.host}:${s.port}`,
        source: 'output',
        name: s.name,
        role: undefined,
        node: s.ip ?? s.host,
        pid: s.pid,
        workerId: undefined,
        host: s.host,
        port: s.port,
        kind: 'unknown',
        tag: undefined,
        since: s.waitingSince,
        origin: this.origin,
      });
    }
    return out.sort((a, b) => a.since - b.since);
  }
}

/** Where and since when a worker waits, or "" when it does not. */
function pausedAt(s: State): string {
  return s.waitingSince === undefined || s.host === undefined || s.port === undefined ? '' : `${s.host}:${s.port}@${s.waitingSince}`;
}
