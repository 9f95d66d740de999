// Cheap readers for beast-logger `.json.log` files: split text into records, read only the tail of a
// growing file, and follow a file incrementally. Decoding goes through core/logs/record.ts.
import { decodePayload, parseHeaderLine, parseRecordTitle, type HeaderLine, type Payload } from '../logs/record';
import { inflatePrefix } from '../logs/inflate';
import type { RunsFs } from '../fs/seam';
import { t } from '../l10n';

export interface RawRecord {
  header: HeaderLine;
  /** Lines after the header line up to the next header (the payload is the first non-empty one). */
  body: string[];
}

export interface DecodedRecord {
  header: HeaderLine;
  payload?: Payload;
  error?: string;
}

/**
 * Splits complete lines into records. Lines before the first header (a tail that starts mid-record)
 * are dropped. A `.json.log` payload is a single line, so a record is complete once that line is.
 */
export function splitRecords(lines: readonly string[]): RawRecord[] {
  const out: RawRecord[] = [];
  let cur: RawRecord | undefined;
  for (const line of lines) {
    const h = parseHeaderLine(line);
    if (h) {
      cur = { header: h, body: [] };
      out.push(cur);
    } else if (cur) {
      cur.body.push(line);
    }
  }
  return out;
}

export function decodeRecord(r: RawRecord): DecodedRecord {
  const line = r.body.find((l) => l.trim() !== '');
  if (line === undefined) return { header: r.header, error: t('record without payload') };
  const d = decodePayload(line);
  return d.ok ? { header: r.header, payload: d.payload } : { header: r.header, error: d.error };
}

const TITLE_RE = /^\s*\{\s*"header"\s*:\s*("(?:[^"\\]|\\.)*")/;

/**
 * A record's title only (its payload's leading `header` key), from the first bytes of the payload:
 * what the step and reward columns need, at a fraction of a full decode. A payload that does not
 * start with its header is decoded in full.
 */
export function decodeTitle(r: RawRecord): DecodedRecord {
  const line = r.body.find((l) => l.trim() !== '');
  if (line === undefined) return { header: r.header, error: t('record without payload') };
  let head: string | undefined;
  try {
    if (line.startsWith('base64:')) {
      const b64 = line.slice(7, 7 + 2048).trim();
      const whole = b64.slice(0, b64.length - (b64.length % 4));
      if (/^[A-Za-z0-9+/]*={0,2}$/.test(whole)) head = inflatePrefix(Buffer.from(whole, 'base64'), 1024).toString('utf8');
    } else head = line.slice(0, 4096);
  } catch {
    head = undefined;
  }
  const m = head !== undefined ? TITLE_RE.exec(head) : null;
  if (m) {
    try {
      const title: unknown = JSON.parse(m[1]!);
      if (typeof title === 'string') return { header: r.header, payload: { header: title } };
    } catch {
      /* decoded in full below */
    }
  }
  return decodeRecord(r);
}

/** Complete lines of a chunk: `text` minus a leading partial line (unless at file start) and a trailing unterminated one. */
export function completeLines(text: string, atFileStart: boolean): string[] {
  let start = 0;
  if (!atFileStart) {
    const nl = text.indexOf('\n');
    if (nl < 0) return [];
    start = nl + 1;
  }
  const end = text.lastIndexOf('\n');
  if (end < start) return [];
  return text.slice(start, end).split('\n');
}

export interface TailOptions {
  /** First window; doubled until enough records are found or `maxBytes` is reached. */
  initialBytes?: number;
  maxBytes?: number;
  /** Stop growing once this many complete, decodable records are in the window. */
  minRecords?: number;
  /** Only the records' titles are needed (payload `{ header }`): see decodeTitle. */
  titles?: boolean;
  /**
   * Records are decoded from the last one back, and the ones before the first for which this
   * says true are left out (not decoded): e.g. once a lower step shows up, the latest step's
   * records are all in hand.
   */
  stopBefore?: (r: DecodedRecord) => boolean;
}

/** The last complete records of a file, reading at most `maxBytes` from its end. Never throws on bad content. */
export async function readTailRecords(
  fs: RunsFs,
  path: string,
  opts: TailOptions = {},
): Promise<{ records: DecodedRecord[]; size: number; mtimeMs: number }> {
  const st = await fs.stat(path);
  const size = st.size;
  const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024;
  const want = opts.minRecords ?? 1;
  let window = Math.min(opts.initialBytes ?? 64 * 1024, maxBytes);
  for (;;) {
    const start = Math.max(0, size - window);
    const buf = await fs.readRange(path, start, size - start);
    const lines = completeLines(buf.toString('utf8'), start === 0);
    const raw = splitRecords(lines);
    const decode = opts.titles ? decodeTitle : decodeRecord;
    let records: DecodedRecord[];
    if (opts.stopBefore) {
      records = [];
      for (let i = raw.length - 1; i >= 0; i--) {
        const r = decode(raw[i]!);
        records.push(r);
        if (opts.stopBefore(r)) break;
      }
      records.reverse();
      if (records.length < raw.length) return { records, size, mtimeMs: st.mtimeMs };
    } else records = raw.map(decode);
    const good = records.filter((r) => r.payload).length;
    if (good >= want || start === 0 || window >= maxBytes) return { records, size, mtimeMs: st.mtimeMs };
    window = Math.min(window * 4, maxBytes);
  }
}

export interface StepReward {
  step: number;
  /** Mean reward of the records of that step seen in the tail (the step may still be in progress). */
  meanReward?: number;
  records: number;
}

/** The latest training step and its mean reward from rollout records (`[step] Task id (Reward r)`). */
export function latestStepReward(records: readonly DecodedRecord[]): StepReward | undefined {
  let step: number | undefined;
  const rewards = new Map<number, number[]>();
  for (const r of records) {
    const header = r.payload?.header;
    if (typeof header !== 'string') continue;
    const t = parseRecordTitle(header);
    if (t.step === undefined) continue;
    step = step === undefined ? t.step : Math.max(step, t.step);
    const list = rewards.get(t.step) ?? [];
    if (t.reward !== undefined) list.push(t.reward);
    rewards.set(t.step, list);
  }
  if (step === undefined) return undefined;
  const list = rewards.get(step) ?? [];
  const out: StepReward = { step, records: list.length };
  if (list.length) out.meanReward = list.reduce((a, b) => a + b, 0) / list.length;
  return out;
}

/**
 * Reads a growing file from a remembered offset: returns the complete lines written since and the
 * new offset. A file that shrank (rotated or truncated) is read again from the start.
 */
export class FileFollower {
  private offset = 0;
  private pending = '';
  private decoder = new TextDecoder('utf-8');
  constructor(
    readonly path: string,
    private readonly chunkBytes = 8 * 1024 * 1024,
  ) {}

  get position(): number {
    return this.offset;
  }

  /** Reads at most `maxBytes` per call so a huge file is taken in steps; `remaining` says how much is left. */
  async poll(
    fs: RunsFs,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<{ lines: string[]; reset: boolean; remaining: number; size: number }> {
    const st = await fs.stat(this.path);
    let reset = false;
    if (st.size < this.offset) {
      this.offset = 0;
      this.pending = '';
      this.decoder = new TextDecoder('utf-8');
      reset = true;
    }
    const lines: string[] = [];
    const stop = Math.min(st.size, this.offset + maxBytes);
    while (this.offset < stop) {
      const buf = await fs.readRange(this.path, this.offset, Math.min(this.chunkBytes, stop - this.offset));
      if (buf.length === 0) break;
      this.offset += buf.length;
      // A streaming decoder keeps a multi-byte character cut by the chunk end for the next read.
      const text = this.pending + this.decoder.decode(buf, { stream: true });
      const nl = text.lastIndexOf('\n');
      if (nl < 0) {
        this.pending = text;
        continue;
      }
      lines.push(...text.slice(0, nl).split('\n'));
      this.pending = text.slice(nl + 1);
    }
    return { lines, reset, remaining: st.size - this.offset, size: st.size };
  }
}

/** Turns lines arriving in pieces into decoded records; a header whose payload has not arrived yet waits. */
export class RecordStream {
  private pending: RawRecord | undefined;

  feed(lines: readonly string[]): DecodedRecord[] {
    const out: DecodedRecord[] = [];
    for (const line of lines) {
      const h = parseHeaderLine(line);
      if (h) {
        if (this.pending) out.push(decodeRecord(this.pending));
        this.pending = { header: h, body: [] };
      } else if (this.pending && line.trim() !== '') {
        this.pending.body.push(line);
        out.push(decodeRecord(this.pending));
        this.pending = undefined;
      }
    }
    return out;
  }

  reset(): void {
    this.pending = undefined;
  }
}
