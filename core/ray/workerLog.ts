// Parsing what Ray's debugpy integration (ray/util/debugpy.py, checked on Ray 2.58.0) writes to a
// worker's log files `<session>/logs/worker-<worker id>-<job id>-<pid>.{out,err}`:
//   :task_name:<name>  |  :actor_name:<class>            (Ray's log-prefix markers)
//   Ray debugger is listening on HOST:PORT               (first pause in this worker)
//   Ray debugger is already open on PORT                 (later pauses)
//   Waiting for debugger to attach (see ...)...          (paused from here)
//   Debugger client is connected                         (a client attached: no longer waiting)
// The same lines reach the driver's console with a `(name pid=N)` prefix (maybe coloured), which
// `parseDriverLine` reads. Matching is by substring so added log prefixes (timestamps, levels) or
// small rewordings around the address do not break it.
import { listenerAddress, type PausedWorker } from './types';
import { LISTENER_MARKER, type ListeningWorker } from './breakpoints';

const LISTENING = /Ray debugger is listening on (\[[0-9a-fA-F:.]+\]|[^\s:]+):(\d{1,5})/;
const ALREADY_OPEN = /Ray debugger is already open on (?:(\[[0-9a-fA-F:.]+\]|[^\s:]+):)?(\d{1,5})/;
const WAITING = /Waiting for debugger to attach/;
const CONNECTED = /Debugger client is connected/;
const TASK = /^:task_name:(.*)$/;
const ACTOR = /^:actor_name:(.*)$/;
const ANSI = /\x1b\[[0-9;]*m/g;

export interface WorkerLogName {
  workerId: string;
  jobId: string;
  pid: number;
  stream: 'out' | 'err';
}

/** `worker-<hex>-<job hex>-<pid>.out|err`; undefined for other files (drivers, raylet ...). */
export function parseWorkerLogName(file: string): WorkerLogName | undefined {
  const m = /^worker-([0-9a-f]+)-([0-9a-f]+)-(\d+)\.(out|err)$/i.exec(file);
  if (!m) return undefined;
  return { workerId: m[1]!, jobId: m[2]!, pid: Number(m[3]), stream: m[4]!.toLowerCase() as 'out' | 'err' };
}

/** The state of one worker as its log lines tell it. Feed lines in order. */
export class WorkerLogState {
  name: string | undefined;
  role: 'task' | 'actor' | undefined;
  host: string | undefined;
  port: number | undefined;
  /** Epoch ms of the "Waiting for debugger" line still unanswered, else undefined. */
  waitingSince: number | undefined;
  /** The listener was opened at start-up by the editor-breakpoints hook (it does not wait). */
  hookListener = false;
  /** The hook's doorbell address (its own line), kept apart from host/port, which a later Ray debugger line may change. */
  doorbellHost: string | undefined;
  doorbellPort: number | undefined;
  /** Every task/actor name seen, in order (a pooled worker runs many tasks). */
  readonly names: string[] = [];

  private addName(n: string): void {
    if (n && !this.names.includes(n) && this.names.length < 64) this.names.push(n);
  }

  feed(rawLine: string, seenAt: number): void {
    const line = rawLine.replace(ANSI, '').replace(/\r$/, '');
    let m: RegExpExecArray | null;
    if ((m = TASK.exec(line))) {
      this.name = m[1]!.trim() || this.name;
      this.addName(m[1]!.trim());
      this.role = 'task';
      this.waitingSince = undefined;
      return;
    }
    if ((m = ACTOR.exec(line))) {
      this.name = m[1]!.trim() || this.name;
      this.addName(m[1]!.trim());
      this.role = 'actor';
      this.waitingSince = undefined;
      return;
    }
    if ((m = LISTENING.exec(line)) && validPort(m[2]!)) {
      this.host = stripBrackets(m[1]!);
      this.port = Number(m[2]);
      if (line.includes(LISTENER_MARKER)) {
        this.hookListener = true;
        this.doorbellHost = this.host;
        this.doorbellPort = this.port;
      }
      return;
    }
    if ((m = ALREADY_OPEN.exec(line)) && validPort(m[2]!)) {
      if (m[1]) this.host = stripBrackets(m[1]);
      this.port = Number(m[2]);
      return;
    }
    if (WAITING.test(line)) {
      this.waitingSince = seenAt;
      return;
    }
    if (CONNECTED.test(line)) this.waitingSince = undefined;
  }

  get paused(): boolean {
    return this.waitingSince !== undefined && this.port !== undefined && this.host !== undefined;
  }
}

function validPort(p: string): boolean {
  const n = Number(p);
  return n >= 1 && n <= 65535;
}

function stripBrackets(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** The PausedWorker for a worker log state, when it is waiting. */
export function pausedFromLog(state: WorkerLogState, log: WorkerLogName, origin: string): PausedWorker | undefined {
  if (!state.paused) return undefined;
  return {
    id: `log:${log.workerId}:${state.host}:${state.port}`,
    source: 'log',
    name: state.name,
    role: state.role,
    node: state.host,
    pid: log.pid,
    workerId: log.workerId,
    host: state.host!,
    port: state.port!,
    kind: 'unknown',
    tag: undefined,
    since: state.waitingSince!,
    origin,
  };
}

/** The ListeningWorker for a worker whose listener the editor-breakpoints hook opened. */
export function listenerFromLog(state: WorkerLogState, log: WorkerLogName): ListeningWorker | undefined {
  const { doorbellHost: h, doorbellPort: port } = state;
  if (!state.hookListener || h === undefined || port === undefined) return undefined;
  return { key: listenerAddress({ host: h, port }), host: h, port, pid: log.pid, names: [...state.names], role: state.role };
}

export interface DriverPrefix {
  /** Task or actor name; absent on lines a worker wrote before its first task. */
  name: string | undefined;
  pid: number;
  /** Node IP Ray prints for workers on another node than the driver's: `(name pid=N, ip=A)`. */
  ip: string | undefined;
  /** The worker's line after the prefix. */
  rest: string;
}

/** The `(name pid=N, ip=A)` prefix Ray puts on worker lines it relays to the driver's console. */
export function driverPrefix(raw: string): DriverPrefix | undefined {
  const line = raw.replace(ANSI, '').replace(/\r$/, '');
  const pre = /\((?:([^()\s]+)\s+)?pid=(\d+)(?:,\s*ip=([^)\s]+))?\)\s*(.*)$/.exec(line);
  if (!pre) return undefined;
  return { name: pre[1], pid: Number(pre[2]), ip: pre[3], rest: pre[4]! };
}

export interface DriverLine {
  name: string | undefined;
  pid: number | undefined;
  /** Node IP Ray prints for remote nodes: `(name pid=N, ip=A)`. */
  ip: string | undefined;
  event: 'listening' | 'waiting' | 'connected';
  host?: string;
  port?: number;
  /** The editor-breakpoints hook's doorbell (not a debugger). */
  doorbell?: true;
}

/** A worker line relayed to the driver's console: `(paused pid=10754) Ray debugger is listening on ...`. */
export function parseDriverLine(raw: string): DriverLine | undefined {
  const pre = driverPrefix(raw);
  return pre && driverLineOf(pre);
}

/** `parseDriverLine` for a line whose prefix is already read (the console trackers read it once). */
export function driverLineOf(pre: DriverPrefix): DriverLine | undefined {
  const { rest } = pre;
  const base = { name: pre.name, pid: pre.pid, ip: pre.ip };
  let m: RegExpExecArray | null;
  if ((m = LISTENING.exec(rest)) && validPort(m[2]!))
    return {
      ...base,
      event: 'listening',
      host: stripBrackets(m[1]!),
      port: Number(m[2]),
      ...(rest.includes(LISTENER_MARKER) ? { doorbell: true as const } : {}),
    };
  if ((m = ALREADY_OPEN.exec(rest)) && validPort(m[2]!))
    return { ...base, event: 'listening', host: m[1] ? stripBrackets(m[1]) : pre.ip, port: Number(m[2]) };
  if (WAITING.test(rest)) return { ...base, event: 'waiting' };
  if (CONNECTED.test(rest)) return { ...base, event: 'connected' };
  return undefined;
}
