// The beast-logger `.json.log` record format (a loguru header line, then a payload line that is
// `base64:<zlib(JSON)>` or plain JSON). Shared by the token log engine and run discovery.
import { inflateSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';

/** `2026-01-05 10:00:00.123 | INFO     | module:function:123 - message` */
export const HEADER_RE = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) \| ([A-Z]+) *\| ([^\n]*?) -(?: (.*))?$/;

export interface HeaderLine {
  /** As written: local time, `YYYY-MM-DD HH:mm:ss.SSS`. */
  time: string;
  level: string;
  /** `module:function:line` */
  source: string;
  message: string;
}

export function parseHeaderLine(line: string): HeaderLine | undefined {
  const m = HEADER_RE.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
  if (!m) return undefined;
  return { time: m[1]!, level: m[2]!, source: m[3]!, message: m[4] ?? '' };
}

/** The JSON object of one record. Token records add `nested` and `nested_json`. */
export interface Payload {
  header?: unknown;
  color?: unknown;
  content?: unknown;
  attach?: unknown;
  nested?: unknown;
  nested_json?: unknown;
  [key: string]: unknown;
}

export type DecodeResult = { ok: true; payload: Payload; invalidUtf8?: boolean } | { ok: false; error: string };

/** Decodes one payload line; never throws. */
export function decodePayload(line: string): DecodeResult {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  let json: string;
  let invalidUtf8 = false;
  if (text.startsWith('base64:')) {
    const b64 = text.slice(7).trim();
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) return { ok: false, error: 'invalid base64' };
    let inflated: Buffer;
    try {
      inflated = inflateSync(Buffer.from(b64, 'base64'));
    } catch (err) {
      return { ok: false, error: `invalid zlib data (${err instanceof Error ? err.message : String(err)})` };
    }
    json = inflated.toString('utf8');
    if (!isUtf8(inflated)) invalidUtf8 = true;
  } else {
    json = text;
  }
  try {
    const value: unknown = JSON.parse(json);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'payload is not a JSON object' };
    return invalidUtf8 ? { ok: true, payload: value as Payload, invalidUtf8 } : { ok: true, payload: value as Payload };
  } catch (err) {
    return { ok: false, error: `invalid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
}

export interface RecordTitle {
  step?: number;
  taskId?: string;
  reward?: number;
}

/** Parses a token record's header string: `[<global_step>] Task <task_id> (Reward <r>)`. */
export function parseRecordTitle(header: string): RecordTitle {
  const out: RecordTitle = {};
  const step = /^\s*\[(-?\d+)\]/.exec(header);
  if (step) out.step = Number(step[1]);
  const task = /\bTask\s+(\S+)/.exec(header);
  if (task) out.taskId = task[1]!;
  const reward = /\(Reward\s+([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf)\)/i.exec(header);
  if (reward) {
    const r = Number(reward[1]);
    if (Number.isFinite(r)) out.reward = r;
  }
  return out;
}

/** Splits a `nested_json` key `<task_id>.<outcome>.<timeline_index>`; the outcome may hold dots ("0.5"). */
export function parseNestedKey(key: string): { taskId: string; outcome: string; index: number } | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last <= first) return undefined;
  const index = Number(key.slice(last + 1));
  if (!Number.isInteger(index)) return undefined;
  return { taskId: key.slice(0, first), outcome: key.slice(first + 1, last), index };
}
