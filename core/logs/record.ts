// The beast-logger `.json.log` record format (a loguru header line, then a payload line that is
// `base64:<zlib(JSON)>` or plain JSON). Shared by the token log engine and run discovery.
import { inflateBounded, RecordTooLargeError } from './inflate';
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
      inflated = inflateBounded(Buffer.from(b64, 'base64'));
    } catch (err) {
      if (err instanceof RecordTooLargeError) return { ok: false, error: err.message };
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

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf`;
/**
 * AgentJet and ASTune write `f"[{global_step}] Task {task_id} (Reward {float(step_reward):.3f})"`
 * (context_tracker generate_log): the task id is everything between `Task ` and the last
 * ` (Reward `, so it may be empty (the JSONL reader's default ""), hold spaces, dots or brackets.
 * The step may be `NA` (ASTune's default).
 */
const TITLE_RE = new RegExp(String.raw`^\s*\[([^\]\n]*)\] Task ([\s\S]*) \(Reward (${NUM})\)\s*$`, 'i');

/** Parses a token record's header string: `[<global_step>] Task <task_id> (Reward <r>)`. */
export function parseRecordTitle(header: string): RecordTitle {
  const out: RecordTitle = {};
  const full = TITLE_RE.exec(header);
  if (full) {
    if (/^\s*-?\d+\s*$/.test(full[1]!)) out.step = Number(full[1]);
    out.taskId = full[2]!;
    const r = Number(full[3]);
    if (Number.isFinite(r)) out.reward = r;
    return out;
  }
  // Other shapes (hand-written titles): best effort, never taking the reward part for a task id.
  const step = /^\s*\[(-?\d+)\]/.exec(header);
  if (step) out.step = Number(step[1]);
  const task = /\bTask\s+(?!\(Reward\b)(\S+)/.exec(header);
  if (task) out.taskId = task[1]!;
  const reward = new RegExp(String.raw`\(Reward\s+(${NUM})\)`, 'i').exec(header);
  if (reward) {
    const r = Number(reward[1]);
    if (Number.isFinite(r)) out.reward = r;
  }
  return out;
}

export interface NestedKey {
  taskId: string;
  outcome: string;
  index: number;
  /** 'indexed': `<task>.<outcome>.<i>` (AgentJet, ASTune multi-agent); 'linear': `<task>.<outcome>` (ASTune basic tracker). */
  shape: 'indexed' | 'linear';
}

/** `str(float)` in Python: what AgentJet's outcome (`str(success_rate)`) looks like. */
const PY_FLOAT = String.raw`-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|nan|inf|-inf`;
const TAIL_INDEXED = new RegExp(String.raw`^([\s\S]*?)\.(${PY_FLOAT})\.(\d+)$`);
const TAIL_LINEAR = new RegExp(String.raw`^([\s\S]*?)\.(${PY_FLOAT})$`);

/**
 * Splits a `nested_json` key. The writer joins `[task_id, outcome, str(index)]` (or, in ASTune's
 * basic tracker, `[task_id, outcome]`) with dots, and task ids may hold dots too, so the split
 * is decided from the end: by the item's own `outcome` when known (exact), else by the record
 * title's task id, else by the shape of a Python float outcome.
 */
export function parseNestedKey(key: string, hint: { outcome?: string; taskId?: string } = {}): NestedKey | undefined {
  const { outcome, taskId } = hint;
  if (outcome !== undefined) {
    const m = /\.(\d+)$/.exec(key);
    if (m && key.endsWith(`.${outcome}${m[0]}`)) {
      return { taskId: key.slice(0, key.length - m[0].length - outcome.length - 1), outcome, index: Number(m[1]), shape: 'indexed' };
    }
    if (key.endsWith(`.${outcome}`)) return { taskId: key.slice(0, key.length - outcome.length - 1), outcome, index: 0, shape: 'linear' };
  }
  if (taskId !== undefined && key.startsWith(`${taskId}.`) && key.length > taskId.length + 1) {
    const rest = key.slice(taskId.length + 1);
    const m = /^([\s\S]+)\.(\d+)$/.exec(rest);
    // An outcome is str(float): "1.0", never "1"; so "1.0" alone is a linear key's outcome.
    if (m && !/^-?\d+$/.test(m[1]!)) return { taskId, outcome: m[1]!, index: Number(m[2]), shape: 'indexed' };
    return { taskId, outcome: rest, index: 0, shape: 'linear' };
  }
  const ix = TAIL_INDEXED.exec(key);
  if (ix) return { taskId: ix[1]!, outcome: ix[2]!, index: Number(ix[3]), shape: 'indexed' };
  const ln = TAIL_LINEAR.exec(key);
  if (ln) return { taskId: ln[1]!, outcome: ln[2]!, index: 0, shape: 'linear' };
  // Anything else: `<task>.<outcome>.<index>` with an outcome that is not a float.
  const last = key.lastIndexOf('.');
  if (last <= 0) return undefined;
  const index = Number(key.slice(last + 1));
  if (!Number.isInteger(index) || key.slice(last + 1) === '') return undefined;
  const head = key.slice(0, last);
  const mid = head.lastIndexOf('.');
  if (mid < 0) return undefined;
  return { taskId: head.slice(0, mid), outcome: head.slice(mid + 1), index, shape: 'indexed' };
}
