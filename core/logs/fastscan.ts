// The hot path of whole-file work (stats, export, search): reads the few fields it needs straight
// from a record's inflated JSON bytes, without building the payload's objects and strings the
// way JSON.parse does. Anything unusual (a non-token record, a non-string token, invalid UTF-8,
// a duplicated key, ...) is left to the full decoder (decode.ts), which stays the reference: the
// two must agree byte for byte in their results (test/unit/logs-fastscan.test.ts).
//
// Known difference, by design: raw control characters inside JSON strings (invalid JSON that no
// writer produces) are accepted here but make the full decoder report the record as corrupt.
import { inflateBounded, RecordTooLargeError } from './inflate';
import { isUtf8 } from 'node:buffer';
import { parseHeaderLine, parseRecordTitle } from './record';
import { decodeRecord, num, timelineIdentity, type DecodedRecord } from './decode';
import type { RecordData } from '../protocol/tokenlog';
import { BAIL, COLON, LBRACE, Out, QUOTE, RBRACE, isWs } from './jsonbytes';
import { SearchColumns, type SearchText } from './searchcolumns';
import { Kernels } from './kernels';
import type { ExportArrays } from './exportcolumns';

export { Out };

/** Per-timeline facts; token arrays only when asked for (export), token text for search. */
export interface ScanTimeline extends SearchText {
  taskId: string;
  outcome: string;
  index: number;
  lenPrompt?: number;
  lenResponse?: number;
  rawReward?: number;
  stepReward?: number;
  advantage?: number;
  tokens: number;
  trained: number;
  /**
   * The export row's tokens, ids, logprobs and mask arrays as JSON.stringify writes them
   * (want.tokens); from the fast path, views of the scanner's buffers, valid until it scans the
   * next record for export.
   */
  json?: ExportArrays;
}

/** What whole-file operations need of one record. */
export interface ScanRecord extends Pick<RecordData, 'title' | 'step' | 'taskId' | 'reward' | 'outcome' | 'kind'> {
  ok: true;
  timelines: ScanTimeline[];
  tokens: number;
  trained: number;
  /** Set when this came from the full decoder (the fast path declined the record). */
  decoded?: DecodedRecord;
}
export type ScanResult = ScanRecord | { ok: false; error: string };

export interface ScanWant {
  /** Export: token arrays as JSON. */
  tokens?: boolean;
  /** Search: joined token text. Alone, `trained` is not computed (left 0). */
  search?: boolean;
  /**
   * With search, the needle (lower case): a timeline whose raw token text cannot hold it
   * (needlefilter.ts) gets an empty joined text instead of its own.
   */
  needle?: string;
}

/** A reusable scanner (its scratch space is kept between records). */
export class FastScanner extends SearchColumns {
  /** `wasm: false` keeps to the JavaScript loops (also AGENTJET_NO_WASM=1). */
  constructor(opts: { wasm?: boolean } = {}) {
    super();
    if (opts.wasm !== false) this.kernels = Kernels.create();
  }

  /** Scans one record's bytes (header line + payload); falls back to the full decoder. */
  scanRecord(bytes: Buffer, want: ScanWant = {}): ScanResult {
    let inflated: Buffer | undefined;
    try {
      inflated = payloadJson(bytes);
    } catch (err) {
      // Past the bound: the decoder would only inflate it again to the same end.
      if (err instanceof RecordTooLargeError) return { ok: false, error: err.message };
      throw err;
    }
    if (inflated) {
      try {
        return this.scanPayload(inflated, want);
      } catch {
        // Bail, or a JSON.parse of a small value failed: the decoder decides and explains.
      }
    }
    return fromDecoded(bytes, want);
  }

  /** Scans an inflated payload (JSON bytes); throws Bail when it is unusual. */
  scanPayload(b: Buffer, want: ScanWant): ScanRecord {
    // Export copies the token bytes: there, invalid UTF-8 goes to the decoder (search checks the
    // texts it joins: searchText). Every other string read is decoded with U+FFFD for bad bytes, as
    // the decoder decodes the whole payload (an ASCII byte ends a bad sequence in both), and a
    // backslash before a non-ASCII byte is an invalid escape (bails).
    if (want.tokens && !isUtf8(b)) throw BAIL;
    this.b = b;
    this.wasmOn = !!this.kernels && this.kernels.load(b);
    this.exportOn = !!want.tokens;
    if (want.tokens) this.exportReset();
    let p = this.ws(0);
    if (b[p] !== LBRACE) throw BAIL;
    p = this.ws(p + 1);
    let title: string | undefined;
    let items: PendingItem[] | undefined;
    let seenHeader = false,
      seenNested = false;
    if (b[p] === RBRACE) throw BAIL;
    for (;;) {
      p = this.key(p);
      const ks = this.keyStart,
        ke = this.keyEnd;
      if (this.keyIs(ks, ke, 'header')) {
        if (seenHeader) throw BAIL;
        seenHeader = true;
        if (b[p] !== QUOTE) throw BAIL;
        const vs = p;
        p = this.str(p);
        title = this.strValue(vs, p);
      } else if (this.keyIs(ks, ke, 'nested_json')) {
        if (seenNested) throw BAIL;
        seenNested = true;
        if (b[p] !== LBRACE) throw BAIL;
        const r = this.nested(p, want);
        items = r.items;
        p = r.end;
      } else {
        p = this.skip(p);
      }
      p = this.afterMember(p);
      if (b[p] === RBRACE) break;
      p = this.ws(p + 1);
    }
    if (this.ws(p + 1) !== b.length) throw BAIL; // trailing bytes: JSON.parse would refuse
    if (title === undefined || !items || items.length === 0) throw BAIL;
    const t = parseRecordTitle(title);
    const timelines = items.map(({ key, fields, tl }) => {
      const id = timelineIdentity(key, fields.outcome, fields.task_id, t.taskId);
      tl.taskId = id.taskId;
      tl.outcome = id.outcome;
      tl.index = id.index;
      return tl;
    });
    let tokens = 0,
      trained = 0;
    for (const tl of timelines) {
      tokens += tl.tokens;
      trained += tl.trained;
    }
    return {
      ok: true,
      title,
      step: t.step,
      taskId: t.taskId ?? timelines[0]!.taskId,
      reward: t.reward ?? timelines[0]!.rawReward,
      outcome: timelines[0]!.outcome || undefined,
      kind: 'tokens',
      timelines,
      tokens,
      trained,
    };
  }

  private nested(p: number, want: ScanWant): { items: PendingItem[]; end: number } {
    const b = this.b;
    const out: PendingItem[] = [];
    const keys = new Set<string>();
    p = this.ws(p + 1);
    if (b[p] === RBRACE) return { items: out, end: p + 1 };
    for (;;) {
      if (b[p] !== QUOTE) throw BAIL;
      const ks = p;
      p = this.str(p);
      const key = this.strValue(ks, p);
      // Duplicates (JSON.parse keeps the last) and array-index keys (Object.entries lists them
      // first) would change what the decoder sees.
      if (keys.has(key) || /^(?:0|[1-9]\d{0,9})$/.test(key)) throw BAIL;
      keys.add(key);
      p = this.ws(p);
      if (b[p] !== COLON) throw BAIL;
      p = this.ws(p + 1);
      if (b[p] !== LBRACE) throw BAIL;
      const r = this.item(p, key, want);
      out.push(r.item);
      p = this.afterMember(r.end);
      if (b[p] === RBRACE) return { items: out, end: p + 1 };
      p = this.ws(p + 1);
    }
  }

  private item(p: number, key: string, want: ScanWant): { item: PendingItem; end: number } {
    const b = this.b;
    const fields: Record<string, unknown> = {};
    let seenContent = false;
    this.text.n = this.title.n = this.count.n = this.color.n = 0;
    this.text.present = this.title.present = this.count.present = this.color.present = false;
    this.text.anyLit = this.title.anyLit = this.count.anyLit = this.color.anyLit = false;
    this.textsKnown = this.trainedPre = this.maskFrom = 0;
    // Stats need the colours and the token count; search the token text; export everything.
    // Search with a needle the raw-byte filter judges: the texts are counted, and read again
    // only where the bytes may hold the needle (searchText).
    this.filterOn = false;
    // With the kernels, search joins the texts from the array's bytes: as it reads them (joinText),
    // or after counting them where the filter judges and the needle is rare (searchText).
    const countFirst = !want.tokens && !!want.search && this.countTextFirst(want.needle);
    this.text.keep = !!want.tokens || (!!want.search && !countFirst && !this.wasmOn);
    this.joinNow = !want.tokens && !!want.search && !countFirst && this.wasmOn;
    this.title.keep = this.count.keep = !!want.tokens;
    // Search alone needs neither colours nor counts.
    const counts = (this.color.keep = !want.search || !!want.tokens);
    p = this.ws(p + 1);
    if (b[p] !== RBRACE) {
      for (;;) {
        p = this.key(p);
        const k = b.toString('latin1', this.keyStart, this.keyEnd);
        if (k === 'content') {
          if (seenContent) throw BAIL;
          seenContent = true;
          p = want.tokens ? this.contentExport(p) : this.content(p);
        } else if (k in ITEM_FIELDS) {
          if (Object.prototype.hasOwnProperty.call(fields, k)) throw BAIL;
          const vs = p;
          p = this.skip(p);
          fields[k] = this.scalar(vs, p);
        } else {
          p = this.skip(p);
        }
        p = this.afterMember(p);
        if (b[p] === RBRACE) break;
        p = this.ws(p + 1);
      }
    }
    if (!seenContent || !this.text.present) throw BAIL;
    const n = this.text.n;
    if (this.text.anyLit) throw BAIL;
    const tl: ScanTimeline = {
      taskId: '',
      outcome: '',
      index: 0,
      lenPrompt: num(fields.len_prompt_ids),
      lenResponse: num(fields.len_response_ids),
      rawReward: num(fields.raw_reward) ?? num(fields.reward),
      stepReward: num(fields.step_reward),
      advantage: num(fields.step_advantage) ?? num(fields.advantage),
      tokens: n,
      trained: 0,
    };
    if (want.tokens) {
      const x = this.exportArrays(n);
      tl.trained = x.trained;
      tl.json = x.json;
    } else if (counts) {
      let trained = this.trainedPre;
      const col = this.color;
      for (let i = this.maskFrom, m = Math.min(n, col.n); i < m; i++) if (this.maskAt(i) === 1) trained++;
      tl.trained = trained;
    }
    if (want.search) this.searchText(tl, n);
    return { item: { key, fields, tl }, end: p + 1 };
  }

  private content(p: number): number {
    return this.walkContent(p, (q, col) => {
      if (col !== this.text) return this.array(q, col);
      this.textAt = q;
      return (this.textEnd = this.joinText(q) ?? this.array(q, col));
    });
  }
}

interface PendingItem {
  key: string;
  fields: Record<string, unknown>;
  tl: ScanTimeline;
}

const ITEM_FIELDS: Record<string, true> = Object.assign(Object.create(null) as Record<string, true>, {
  outcome: true,
  task_id: true,
  len_prompt_ids: true,
  len_response_ids: true,
  raw_reward: true,
  reward: true,
  step_reward: true,
  step_advantage: true,
  advantage: true,
});

/**
 * The inflated JSON of a record whose payload is `base64:<zlib>` (or plain JSON) on the line
 * after a valid header; undefined for anything else (left to the full decoder). Throws
 * RecordTooLargeError when it inflates past the bound (inflate.ts).
 */
export function payloadJson(bytes: Buffer): Buffer | undefined {
  const nl = bytes.indexOf(10);
  if (nl < 0) return undefined;
  if (!parseHeaderLine(bytes.toString('utf8', 0, Math.min(nl, 4096)))) return undefined;
  let end = bytes.length;
  while (end > nl + 1 && isWs(bytes[end - 1]!)) end--;
  let p = nl + 1;
  while (p < end && (bytes[p] === 10 || bytes[p] === 13 || bytes[p] === 32)) p++;
  if (p >= end) return undefined;
  if (end - p >= 7 && bytes.toString('latin1', p, p + 7) === 'base64:') {
    const len = end - p - 7;
    if (len % 4 === 1) return undefined;
    let pad = 0;
    if (len % 4 === 0 && bytes[end - 1] === 0x3d) pad = bytes[end - 2] === 0x3d ? 2 : 1;
    // Node also takes the URL-safe alphabet, which the decoder (and Python) do not.
    const dash = bytes.indexOf(0x2d, p + 7),
      under = bytes.indexOf(0x5f, p + 7);
    if ((dash >= 0 && dash < end) || (under >= 0 && under < end)) return undefined;
    const raw = Buffer.from(bytes.toString('latin1', p + 7, end), 'base64');
    // Node skips characters outside the alphabet: a short result means the text was not base64.
    if (raw.length !== Math.floor(len / 4) * 3 + (len % 4 ? (len % 4) - 1 : 0) - pad) return undefined;
    try {
      return inflateBounded(raw);
    } catch (err) {
      if (err instanceof RecordTooLargeError) throw err;
      return undefined;
    }
  }
  return bytes[p] === LBRACE ? bytes.subarray(p, end) : undefined;
}

/** The same facts from the full decoder (the reference, and the fallback). */
export function fromDecoded(bytes: Buffer, want: ScanWant = {}): ScanResult {
  const r = decodeRecord(bytes);
  if (!r.ok) return { ok: false, error: r.error };
  return fromRecord(r.record, want);
}

export function fromRecord(rec: DecodedRecord, want: ScanWant = {}): ScanRecord {
  let tokens = 0,
    trained = 0;
  const timelines = rec.timelines.map((t): ScanTimeline => {
    let tr = 0;
    for (const m of t.mask) if (m === 1) tr++;
    tokens += t.text.length;
    trained += tr;
    const tl: ScanTimeline = {
      taskId: t.taskId,
      outcome: t.outcome,
      index: t.index,
      lenPrompt: t.lenPrompt,
      lenResponse: t.lenResponse,
      rawReward: t.rawReward,
      stepReward: t.stepReward,
      advantage: t.advantage,
      tokens: t.text.length,
      trained: tr,
    };
    if (want.tokens) {
      tl.json = {
        tokens: Buffer.from(JSON.stringify(t.text)),
        ids: Buffer.from(JSON.stringify(t.ids)),
        logprobs: Buffer.from(JSON.stringify(t.logprobs)),
        mask: Buffer.from(JSON.stringify(t.mask)),
      };
    }
    if (want.search) tl.texts = t.text;
    return tl;
  });
  return {
    ok: true,
    title: rec.title,
    step: rec.step,
    taskId: rec.taskId,
    reward: rec.reward,
    outcome: rec.outcome,
    kind: rec.kind,
    timelines,
    tokens,
    trained,
    decoded: rec,
  };
}

const IDS = Buffer.from(',"ids":'),
  LOGPROBS = Buffer.from(',"logprobs":'),
  MASK = Buffer.from(',"mask":'),
  END = Buffer.from('}\n');

/** Appends one JSONL export line (the ExportRow of stats.ts, as JSON.stringify writes it) to `out`. */
export function exportLineInto(out: Out, index: number, rec: ScanRecord, t: ScanTimeline): void {
  const j = (v: number | undefined) => JSON.stringify(v ?? null);
  const head = `{"record":${index},"task":${JSON.stringify(t.taskId)},"step":${j(rec.step)},"reward":${j(rec.reward ?? t.rawReward)},"outcome":${JSON.stringify(t.outcome)},"timeline":${t.index},"advantage":${j(t.advantage)},"raw_reward":${j(t.rawReward)},"step_reward":${j(t.stepReward)},"len_prompt":${j(t.lenPrompt)},"len_response":${j(t.lenResponse)},"tokens":`;
  const j2 = t.json!;
  out.need(head.length * 3 + j2.tokens.length + j2.ids.length + j2.logprobs.length + j2.mask.length + 40);
  out.o += out.buf.write(head, out.o, 'utf8');
  for (const part of [j2.tokens, IDS, j2.ids, LOGPROBS, j2.logprobs, MASK, j2.mask, END]) out.o += part.copy(out.buf, out.o);
}

/** One JSONL export line. */
export function exportLine(index: number, rec: ScanRecord, t: ScanTimeline): Buffer {
  const out = new Out();
  exportLineInto(out, index, rec, t);
  return out.take();
}
