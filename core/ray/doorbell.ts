// The doorbell of a Ray worker in editor-breakpoints mode. At start-up the worker hook
// (core/ray/hook/agentjet_ray_breakpoints.py) opens only a plain TCP listener, with no debugger:
// debugpy.listen() turns pydevd's tracing on for every call (Python < 3.12), which made idle workers
// several times slower. When we want to attach, we connect to the doorbell and send `debugpy\n`; the
// worker then calls debugpy.listen() (or reuses the listener Ray's own debugger opened) and answers
// `PORT\n` (debugpy's adapter, on the doorbell's host), or `error TEXT\n`. Ringing again gives the same port.
import { connect } from 'node:net';

export const DOORBELL_REQUEST = 'debugpy\n';

/** Parses the worker's answer line: the port, or the worker's error text. */
export function parseDoorbellAnswer(line: string): { port: number } | { error: string } {
  const s = line.trim();
  if (/^\d{1,5}$/.test(s)) {
    const port = Number(s);
    if (port > 0 && port <= 65535) return { port };
  }
  if (s.startsWith('error ')) return { error: s.slice(6) };
  return { error: s ? `unexpected answer ${JSON.stringify(s.slice(0, 80))}` : 'no answer' };
}

/** What a worker says it has run: its task/actor names (from its own log), as `names JSON`. */
export interface WorkerNames {
  names: string[];
  role: 'task' | 'actor' | undefined;
  pid: number | undefined;
}

export const NAMES_REQUEST = 'names\n';

export function parseNamesAnswer(line: string): WorkerNames | { error: string } {
  const s = line.trim();
  if (s.startsWith('error ')) return { error: s.slice(6) };
  if (!s.startsWith('names ')) return { error: s ? `unexpected answer ${JSON.stringify(s.slice(0, 80))}` : 'no answer' };
  let v: unknown;
  try {
    v = JSON.parse(s.slice(6));
  } catch {
    return { error: 'the names are not JSON' };
  }
  if (!v || typeof v !== 'object') return { error: 'the names are not an object' };
  const o = v as { names?: unknown; role?: unknown; pid?: unknown };
  const names = Array.isArray(o.names) ? o.names.filter((n): n is string => typeof n === 'string' && n !== '').slice(0, 64) : [];
  return {
    names: names.map((n) => n.slice(0, 200)),
    role: o.role === 'task' || o.role === 'actor' ? o.role : undefined,
    pid: typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 ? o.pid : undefined,
  };
}

/** Sends one request line to a worker's doorbell and resolves with its one-line answer. */
export function doorbellRequest(host: string, port: number, request: string, timeoutMs: number, maxAnswer = 4096): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port });
    let buf = '';
    let done = false;
    const finish = (err: string | undefined, line?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      if (err !== undefined) reject(new Error(err));
      else resolve(line!);
    };
    const timer = setTimeout(() => finish(`no answer from the doorbell within ${timeoutMs} ms`), timeoutMs);
    s.setEncoding('utf8');
    s.once('connect', () => s.write(request));
    s.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) finish(undefined, buf.slice(0, nl));
      else if (buf.length > maxAnswer) finish('answer too long');
    });
    s.once('end', () => (buf ? finish(undefined, buf) : finish('the doorbell closed with no answer')));
    s.once('error', (e) => finish(e.message));
  });
}

/**
 * Rings the doorbell at host:port and resolves with the port of the worker's debugpy listener. The
 * worker starts debugpy's adapter first, which takes a second or more on a loaded machine.
 */
export async function ringDoorbell(host: string, port: number, timeoutMs = 30_000): Promise<number> {
  const a = parseDoorbellAnswer(await doorbellRequest(host, port, DOORBELL_REQUEST, timeoutMs));
  if ('port' in a) return a.port;
  throw new Error(a.error);
}

/** Asks a worker which tasks/actors it has run (for workers whose logs are on another machine). */
export async function askWorkerNames(host: string, port: number, timeoutMs = 2_500): Promise<WorkerNames> {
  const a = parseNamesAnswer(await doorbellRequest(host, port, NAMES_REQUEST, timeoutMs, 64 * 1024));
  if ('error' in a) throw new Error(a.error);
  return a;
}
