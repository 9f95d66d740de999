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

/**
 * Rings the doorbell at host:port and resolves with the port of the worker's debugpy listener. The
 * worker starts debugpy's adapter first, which takes a second or more on a loaded machine.
 */
export function ringDoorbell(host: string, port: number, timeoutMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port });
    let buf = '';
    let done = false;
    const finish = (err: string | undefined, p?: number): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      if (err !== undefined) reject(new Error(err));
      else resolve(p!);
    };
    const timer = setTimeout(() => finish(`no answer from the doorbell within ${timeoutMs} ms`), timeoutMs);
    s.setEncoding('utf8');
    s.once('connect', () => s.write(DOORBELL_REQUEST));
    s.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) {
        if (buf.length > 4096) finish('answer too long');
        return;
      }
      const a = parseDoorbellAnswer(buf.slice(0, nl));
      if ('port' in a) finish(undefined, a.port);
      else finish(a.error);
    });
    s.once('end', () => {
      const a = parseDoorbellAnswer(buf);
      if ('port' in a) finish(undefined, a.port);
      else finish(buf ? a.error : 'the doorbell closed with no answer');
    });
    s.once('error', (e) => finish(e.message));
  });
}
