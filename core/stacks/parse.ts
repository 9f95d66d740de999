// Readers of the two stack formats: `py-spy dump` (its --json array and its text) and the dump
// CPython's faulthandler writes (Python/traceback.c: a header per thread, then one line per frame,
// innermost first). Total functions: any input gives a (possibly empty) list, never a throw.
import type { StackFrame, ThreadStack } from './types';

const MAX_THREADS = 4096;
const MAX_FRAMES = 4096;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `py-spy dump --pid N --json`: an array of traces, each with `thread_id`, `thread_name`, `active`, `frames`. */
export function parsePySpyJson(text: string): ThreadStack[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(data)) return [];
  const out: ThreadStack[] = [];
  for (const t of data.slice(0, MAX_THREADS)) {
    if (!t || typeof t !== 'object') continue;
    const o = t as Record<string, unknown>;
    const rawFrames = Array.isArray(o.frames) ? o.frames : [];
    const frames: StackFrame[] = [];
    for (const f of rawFrames.slice(0, MAX_FRAMES)) {
      if (!f || typeof f !== 'object') continue;
      const fr = f as Record<string, unknown>;
      const file = str(fr.filename) ?? str(fr.short_filename) ?? '?';
      const line = typeof fr.line === 'number' && Number.isInteger(fr.line) && fr.line > 0 ? fr.line : undefined;
      frames.push({ func: str(fr.name) ?? '?', file, line });
    }
    const id = o.thread_id;
    out.push({
      id: typeof id === 'number' ? `0x${id.toString(16)}` : (str(id) ?? '?'),
      name: str(o.thread_name),
      active: typeof o.active === 'boolean' ? o.active : undefined,
      current: false,
      frames,
      truncated: rawFrames.length > MAX_FRAMES,
    });
  }
  return out;
}

const PYSPY_THREAD = /^Thread (0x[0-9A-Fa-f]+|\d+) \(([^)]*)\)(?:: "(.*)")?\s*$/;
const PYSPY_FRAME = /^ {4}(\S.*?) \((.*?)(?::(\d+))?\)\s*$/;

/** `py-spy dump --pid N` text: `Thread 0x7F.. (idle): "MainThread"`, then `    func (file:line)` lines. */
export function parsePySpyText(text: string): ThreadStack[] {
  const out: ThreadStack[] = [];
  let cur: ThreadStack | undefined;
  for (const raw of text.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const line = raw.replace(/\r$/, '');
    const th = PYSPY_THREAD.exec(line);
    if (th) {
      if (out.length >= MAX_THREADS) break;
      cur = {
        id: th[1]!,
        name: th[3],
        active: th[2] === 'active' ? true : th[2] === 'idle' ? false : undefined,
        current: false,
        frames: [],
        truncated: false,
      };
      out.push(cur);
      continue;
    }
    const fr = cur && PYSPY_FRAME.exec(line);
    if (cur && fr && cur.frames.length < MAX_FRAMES)
      cur.frames.push({ func: fr[1]!, file: fr[2]!, line: fr[3] ? Number(fr[3]) : undefined });
  }
  return out;
}

const FH_THREAD = /^(Current thread|Thread) (0x[0-9a-fA-F]+)(?: \[(.*)\])? \(most recent call first\):\s*$/;
const FH_STACK = /^(Current thread's stack|Stack) \(most recent call first\):\s*$/;
const FH_FRAME = /^ {2}File "(.*)", line (\d+|\?\?\?) in (.*?)\s*$/;

/**
 * faulthandler's dump (`faulthandler.register(signum, file, all_threads=True)` or
 * `dump_traceback`): `Thread 0x... (most recent call first):` / `Current thread 0x... (...)`, then
 * `  File "path", line N in func`, `  ...` when cut at 100 frames, `  <no Python frame>`.
 */
export function parseFaulthandler(text: string): ThreadStack[] {
  const out: ThreadStack[] = [];
  let cur: ThreadStack | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const th = FH_THREAD.exec(line);
    const st = th ? undefined : FH_STACK.exec(line);
    if (th || st) {
      if (out.length >= MAX_THREADS) break;
      cur = {
        id: th ? th[2]! : 'main',
        name: th?.[3],
        active: undefined,
        current: th ? th[1] === 'Current thread' : true,
        frames: [],
        truncated: false,
      };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const fr = FH_FRAME.exec(line);
    if (fr && cur.frames.length < MAX_FRAMES)
      cur.frames.push({ func: fr[3]!, file: fr[1]!, line: fr[2] === '???' ? undefined : Number(fr[2]) });
    else if (line === '  ...') cur.truncated = true;
  }
  return out;
}
