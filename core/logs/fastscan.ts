// The hot path of whole-file work (stats, export, search): reads the few fields it needs straight
// from a record's inflated JSON bytes, without building the payload's objects and strings the
// way JSON.parse does. Anything unusual (a non-token record, a non-string token, invalid UTF-8,
// a duplicated key, ...) is left to the full decoder (decode.ts), which stays the reference: the
// two must agree byte for byte in their results (test/unit/logs-fastscan.test.ts).
//
// Known difference, by design: raw control characters inside JSON strings (invalid JSON that no
// writer produces) are accepted here but make the full decoder report the record as corrupt.
import { inflateSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';
import { parseHeaderLine, parseRecordTitle } from './record';
import { maskFromColor, type MaskValue } from './color';
import { decodeRecord, num, timelineIdentity, type DecodedRecord, type RecordKind } from './decode';

const QUOTE = 0x22, BSLASH = 0x5c, LBRACE = 0x7b, RBRACE = 0x7d, LBRACK = 0x5b, RBRACK = 0x5d, COMMA = 0x2c, COLON = 0x3a;

/** Thrown inside the scanner when the payload needs the full decoder. */
class Bail extends Error {}
const BAIL = new Bail('unusual payload');

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Per-timeline facts; token arrays only when asked for (export). */
export interface ScanTimeline {
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
  /** The export row's tokens, ids, logprobs and mask arrays as JSON.stringify writes them (want.tokens). */
  json?: { tokens: Buffer; ids: Buffer; logprobs: Buffer; mask: Buffer };
  /** Token texts joined and lowercased as UTF-8, with token end offsets (want.search). */
  joined?: Buffer;
  ends?: Int32Array;
  /** Token texts when not all ASCII (search falls back to the string path). */
  texts?: string[];
}

/** What whole-file operations need of one record. */
export interface ScanRecord {
  ok: true;
  title: string;
  step?: number;
  taskId?: string;
  reward?: number;
  outcome?: string;
  kind: RecordKind;
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
}

// 24-bit colour -> mask + 2 (0 = not computed yet).
const colorMasks = new Int8Array(1 << 24);

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}


/** Element kinds in the scratch arrays. */
const K_STR = 1, K_ESC = 2, K_LIT = 3;

class Column {
  s = new Int32Array(4096);
  e = new Int32Array(4096);
  k = new Uint8Array(4096);
  n = 0;
  present = false;
  /** When false, only count elements (and note literals): positions are not needed. */
  keep = true;
  anyLit = false;
  push(s: number, e: number, k: number): void {
    if (this.n === this.s.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => { const b = make(a.length * 2); b.set(a); return b; };
      this.s = grow(this.s, (n) => new Int32Array(n));
      this.e = grow(this.e, (n) => new Int32Array(n));
      this.k = grow(this.k, (n) => new Uint8Array(n));
    }
    this.s[this.n] = s; this.e[this.n] = e; this.k[this.n] = k; this.n++;
  }
}

/** A reusable scanner (its scratch space is kept between records). */
export class FastScanner {
  private b: Buffer = Buffer.alloc(0);
  private readonly text = new Column();
  private readonly title = new Column();
  private readonly count = new Column();
  private readonly color = new Column();

  /** Scans one record's bytes (header line + payload); falls back to the full decoder. */
  scanRecord(bytes: Buffer, want: ScanWant = {}): ScanResult {
    const inflated = payloadJson(bytes);
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
    if (!isUtf8(b)) throw BAIL;
    this.b = b;
    let p = this.ws(0);
    if (b[p] !== LBRACE) throw BAIL;
    p = this.ws(p + 1);
    let title: string | undefined;
    let items: PendingItem[] | undefined;
    let seenHeader = false, seenNested = false;
    if (b[p] === RBRACE) throw BAIL;
    for (;;) {
      if (b[p] !== QUOTE) throw BAIL;
      const ks = p + 1;
      p = this.str(p);
      const ke = p - 1;
      p = this.ws(p);
      if (b[p] !== COLON) throw BAIL;
      p = this.ws(p + 1);
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
        if (b[ks] === BSLASH || this.hasEscape(ks, ke)) throw BAIL; // an escaped key might spell one of ours
        p = this.skip(p);
      }
      p = this.ws(p);
      if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
      if (b[p] === RBRACE) break;
      throw BAIL;
    }
    if (this.ws(p + 1) !== b.length) throw BAIL; // trailing bytes: JSON.parse would refuse
    if (title === undefined || !items || items.length === 0) throw BAIL;
    const t = parseRecordTitle(title);
    const timelines = items.map(({ key, fields, tl }) => {
      const id = timelineIdentity(key, fields.outcome, fields.task_id, t.taskId);
      tl.taskId = id.taskId; tl.outcome = id.outcome; tl.index = id.index;
      return tl;
    });
    let tokens = 0, trained = 0;
    for (const tl of timelines) { tokens += tl.tokens; trained += tl.trained; }
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
      p = this.ws(r.end);
      if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
      if (b[p] === RBRACE) return { items: out, end: p + 1 };
      throw BAIL;
    }
  }

  private item(p: number, key: string, want: ScanWant): { item: PendingItem; end: number } {
    const b = this.b;
    const fields: Record<string, unknown> = {};
    let seenContent = false;
    this.text.n = this.title.n = this.count.n = this.color.n = 0;
    this.text.present = this.title.present = this.count.present = this.color.present = false;
    this.text.anyLit = this.title.anyLit = this.count.anyLit = this.color.anyLit = false;
    // Stats need the colours and the token count; search the token text; export everything.
    this.text.keep = !!(want.tokens || want.search);
    this.title.keep = this.count.keep = !!want.tokens;
    // Search alone needs neither colours nor counts.
    const counts = !want.search || !!want.tokens;
    this.color.keep = counts;
    p = this.ws(p + 1);
    if (b[p] !== RBRACE) {
      for (;;) {
        if (b[p] !== QUOTE) throw BAIL;
        const ks = p + 1;
        p = this.str(p);
        const ke = p - 1;
        if (this.hasEscape(ks, ke)) throw BAIL;
        const k = b.toString('latin1', ks, ke);
        p = this.ws(p);
        if (b[p] !== COLON) throw BAIL;
        p = this.ws(p + 1);
        if (k === 'content') {
          if (seenContent) throw BAIL;
          seenContent = true;
          p = this.content(p);
        } else if (k in ITEM_FIELDS) {
          if (Object.prototype.hasOwnProperty.call(fields, k)) throw BAIL;
          const vs = p;
          p = this.skip(p);
          fields[k] = this.scalar(vs, p);
        } else {
          p = this.skip(p);
        }
        p = this.ws(p);
        if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
        if (b[p] === RBRACE) break;
        throw BAIL;
      }
    }
    if (!seenContent || !this.text.present) throw BAIL;
    const n = this.text.n;
    if (this.text.anyLit) throw BAIL;
    const tl: ScanTimeline = {
      taskId: '', outcome: '', index: 0,
      lenPrompt: num(fields.len_prompt_ids),
      lenResponse: num(fields.len_response_ids),
      rawReward: num(fields.raw_reward) ?? num(fields.reward),
      stepReward: num(fields.step_reward),
      advantage: num(fields.step_advantage) ?? num(fields.advantage),
      tokens: n,
      trained: 0,
    };
    const mask = want.tokens ? new Array<MaskValue>(n) : undefined;
    let trained = 0;
    const col = this.color;
    for (let i = 0; counts && i < n; i++) {
      const m: MaskValue = i < col.n ? this.maskAt(i) : -1;
      if (m === 1) trained++;
      if (mask) mask[i] = m;
    }
    tl.trained = trained;
    if (want.tokens) {
      tl.json = { tokens: this.textJson(n), ids: this.idsJson(n), logprobs: this.logprobsJson(n), mask: maskJson(mask!) };
    }
    if (want.search) this.searchText(tl, n);
    return { item: { key, fields, tl }, end: p + 1 };
  }

  private content(p: number): number {
    const b = this.b;
    if (b[p] !== LBRACE) throw BAIL;
    p = this.ws(p + 1);
    if (b[p] === RBRACE) return p + 1;
    for (;;) {
      if (b[p] !== QUOTE) throw BAIL;
      const ks = p + 1;
      p = this.str(p);
      const ke = p - 1;
      if (this.hasEscape(ks, ke)) throw BAIL;
      p = this.ws(p);
      if (b[p] !== COLON) throw BAIL;
      p = this.ws(p + 1);
      const col = this.keyIs(ks, ke, 'text') ? this.text : this.keyIs(ks, ke, 'title') ? this.title : this.keyIs(ks, ke, 'count') ? this.count : this.keyIs(ks, ke, 'color') ? this.color : undefined;
      if (col) {
        if (col.present) throw BAIL;
        col.present = true;
        if (b[p] !== LBRACK) throw BAIL; // not an array: the decoder warns; leave it to it
        p = this.array(p, col);
      } else {
        p = this.skip(p);
      }
      p = this.ws(p);
      if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
      if (b[p] === RBRACE) return p + 1;
      throw BAIL;
    }
  }

  /** Reads an array of strings / scalars into a column; containers bail. */
  private array(p: number, col: Column): number {
    const b = this.b;
    p = this.ws(p + 1);
    if (b[p] === RBRACK) return p + 1;
    for (;;) {
      const c = b[p];
      if (c === QUOTE) {
        // Inline string scan: the hottest loop of the engine.
        let i = p + 1;
        let esc = false;
        for (;;) {
          const d = b[i];
          if (d === QUOTE) break;
          if (d === BSLASH) { esc = true; i += 2; continue; }
          if (d === undefined) throw BAIL;
          i++;
        }
        if (col.keep) col.push(p + 1, i, esc ? K_ESC : K_STR); else col.n++;
        p = i + 1;
      } else if (c === LBRACE || c === LBRACK || c === undefined) {
        throw BAIL;
      } else {
        const s = p;
        p = this.literal(p);
        col.anyLit = true;
        if (col.keep) col.push(s, p, K_LIT); else col.n++;
      }
      p = this.ws(p);
      if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
      if (b[p] === RBRACK) return p + 1;
      throw BAIL;
    }
  }

  private maskAt(i: number): MaskValue {
    const b = this.b, col = this.color;
    const s = col.s[i]!, e = col.e[i]!, k = col.k[i]!;
    if (k === K_STR && e - s === 7 && b[s] === 0x23) {
      let v = 0;
      for (let j = s + 1; j < e; j++) {
        const h = hexVal(b[j]!);
        if (h < 0) { v = -1; break; }
        v = (v << 4) | h;
      }
      if (v >= 0) {
        const m = colorMasks[v]!;
        if (m !== 0) return (m - 2) as MaskValue;
        const r = maskFromColor(b.toString('latin1', s, e));
        colorMasks[v] = r + 2;
        return r;
      }
    }
    if (k === K_LIT) return -1;
    return maskFromColor(this.elementString(col, i));
  }

  /** The decoded string of a string element. */
  private elementString(col: Column, i: number): string {
    const s = col.s[i]!, e = col.e[i]!;
    if (col.k[i] === K_STR) return this.b.toString('utf8', s, e);
    return JSON.parse(this.b.toString('utf8', s - 1, e + 1)) as string;
  }

  /** The decoded value of a scalar element (string or literal). */
  private elementValue(col: Column, i: number): unknown {
    if (col.k[i] === K_LIT) return JSON.parse(this.b.toString('latin1', col.s[i]!, col.e[i]!));
    return this.elementString(col, i);
  }

  private textJson(n: number): Buffer {
    const b = this.b, col = this.text;
    let len = 2 + Math.max(0, n - 1);
    const fixed: (Buffer | undefined)[] = [];
    for (let i = 0; i < n; i++) {
      if (col.k[i] === K_ESC && !this.canonical(col.s[i]!, col.e[i]!)) {
        const re = Buffer.from(JSON.stringify(this.elementString(col, i)));
        fixed[i] = re;
        len += re.length;
      } else {
        len += col.e[i]! - col.s[i]! + 2;
      }
    }
    const out = Buffer.allocUnsafe(len);
    let o = 0;
    out[o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      if (i > 0) out[o++] = COMMA;
      const f = fixed[i];
      if (f) { o += f.copy(out, o); continue; }
      const s = col.s[i]! - 1, e = col.e[i]! + 1;
      if (e - s < 24) { for (let j = s; j < e; j++) out[o++] = b[j]!; } else o += b.copy(out, o, s, e);
    }
    out[o++] = RBRACK;
    return out;
  }

  /** True when the escapes in b[s..e) are exactly those JSON.stringify writes. */
  private canonical(s: number, e: number): boolean {
    const b = this.b;
    for (let i = s; i < e; i++) {
      if (b[i] !== BSLASH) continue;
      const c = b[i + 1];
      if (c === QUOTE || c === BSLASH || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) { i++; continue; }
      if (c === 0x75 && b[i + 2] === 0x30 && b[i + 3] === 0x30 && (b[i + 4] === 0x30 || b[i + 4] === 0x31)) {
        const h = hexVal(b[i + 5]!);
        const lowHex = b[i + 5]! < 0x41 || b[i + 5]! > 0x46;
        if (h >= 0 && lowHex) {
          const v = (b[i + 4] === 0x31 ? 16 : 0) + h;
          if (v !== 8 && v !== 9 && v !== 10 && v !== 12 && v !== 13) { i += 5; continue; }
        }
      }
      return false;
    }
    return true;
  }

  private readonly out = new Out();

  /** The ids array as JSON: canonical integers copied as digits, the rest through the decoder's rule. */
  private idsJson(n: number): Buffer {
    const b = this.b, col = this.count, out = this.out;
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(24);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (i >= col.n) { out.ascii('null'); continue; }
      const s = col.s[i]!, e = col.e[i]!, k = col.k[i]!;
      if (k === K_STR && e - s > 0 && e - s <= 15) {
        // Number(c) prints back as the same digits unless there are leading zeros or "-0".
        let j = s;
        if (b[j] === 0x2d) j++;
        let ok = j < e && !(b[j] === 48 && e - j > 1) && !(b[s] === 0x2d && b[j] === 48);
        for (let q = j; ok && q < e; q++) { const d = b[q]!; if (d < 48 || d > 57) ok = false; }
        if (ok) { for (let q = s; q < e; q++) out.buf[out.o++] = b[q]!; continue; }
      }
      const c = this.elementValue(col, i);
      const v = typeof c === 'number' ? c : typeof c === 'string' ? (/^-?\d+$/.test(c) ? Number(c) : c) : null;
      const j = Buffer.from(JSON.stringify(v));
      out.need(j.length);
      out.o += j.copy(out.buf, out.o);
    }
    out.need(1);
    out.buf[out.o++] = RBRACK;
    return out.take();
  }

  /** ASTune's basic tracker logged the token text as the title: then there are no logprobs. */
  private titlesAreText(n: number): boolean {
    const b = this.b, t = this.text, ti = this.title;
    if (n === 0 || ti.n !== n) return false;
    for (let i = 0; i < n; i++) {
      if (ti.k[i] === K_LIT) return false;
      const s1 = t.s[i]!, e1 = t.e[i]!, s2 = ti.s[i]!, e2 = ti.e[i]!;
      if (t.k[i] === K_STR && ti.k[i] === K_STR) {
        if (e1 - s1 !== e2 - s2) return false;
        for (let j = 0; j < e1 - s1; j++) if (b[s1 + j] !== b[s2 + j]) return false;
      } else if (this.elementString(t, i) !== this.elementString(ti, i)) {
        return false;
      }
    }
    return true;
  }

  /** The logprobs array as JSON (null for "N/A", unparsable, or ASTune's title = text). */
  private logprobsJson(n: number): Buffer {
    const b = this.b, col = this.title, out = this.out;
    const none = !col.present || this.titlesAreText(n);
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(32);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (none || i >= col.n) { out.ascii('null'); continue; }
      const s = col.s[i]!, e = col.e[i]!, k = col.k[i]!;
      if (k === K_STR && this.decimalJson(s, e)) continue;
      if (k === K_STR && e - s === 3 && b[s] === 0x4e && b[s + 1] === 0x2f && b[s + 2] === 0x41) { out.ascii('null'); continue; } // N/A
      const v = num(this.elementValue(col, i)) ?? null;
      out.ascii(JSON.stringify(v));
    }
    out.need(1);
    out.buf[out.o++] = RBRACK;
    return out.take();
  }

  /**
   * Writes the string b[s..e) as JSON.stringify(Number(it)) would, when it is a plain decimal
   * (-?\d+(\.\d+)?, no leading zeros, at most 15 significant digits, not below 1e-6): the
   * shortest round-trip form of such a number is the decimal without trailing zeros.
   */
  private decimalJson(s: number, e: number): boolean {
    const b = this.b, out = this.out;
    let j = s;
    const neg = b[j] === 0x2d;
    if (neg) j++;
    const intStart = j;
    while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
    const intEnd = j;
    if (intEnd === intStart || (b[intStart] === 48 && intEnd - intStart > 1)) return false;
    let fracEnd = intEnd;
    if (j < e) {
      if (b[j] !== 0x2e) return false;
      j++;
      const fs = j;
      while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
      if (j !== e || j === fs) return false;
      fracEnd = e;
      while (fracEnd > fs && b[fracEnd - 1] === 48) fracEnd--;
      if (fracEnd === fs) fracEnd = intEnd; // all zeros: an integer
    }
    const intIsZero = intEnd - intStart === 1 && b[intStart] === 48;
    let sig: number;
    if (intIsZero) {
      if (fracEnd === intEnd) { out.buf[out.o++] = 48; return true; } // 0, -0 -> "0"
      let z = intEnd + 1;
      while (b[z] === 48) z++;
      if (z - (intEnd + 1) >= 6) return false; // below 1e-6: JSON writes an exponent
      sig = fracEnd - z;
    } else {
      sig = (intEnd - intStart) + (fracEnd > intEnd ? fracEnd - intEnd - 1 : 0);
    }
    if (sig > 15 || intEnd - intStart > 15) return false;
    if (neg) out.buf[out.o++] = 0x2d;
    for (let q = intStart; q < fracEnd; q++) out.buf[out.o++] = b[q]!;
    return true;
  }

  /** For search: the token texts joined and ASCII-lowercased, or the strings when not ASCII. */
  private searchText(tl: ScanTimeline, n: number): void {
    const b = this.b, col = this.text, out = this.out;
    const ends = new Int32Array(n);
    out.o = 0;
    for (let i = 0; i < n; i++) {
      const s = col.s[i]!, e = col.e[i]!;
      out.need(e - s);
      const o0 = out.o;
      const buf = out.buf;
      let o = o0, high = false;
      if (col.k[i] === K_STR) {
        for (let j = s; j < e; j++) {
          const c = b[j]!;
          if (c >= 0x80) high = true;
          buf[o++] = c >= 65 && c <= 90 ? c + 32 : c;
        }
        out.o = o;
        // Lowercasing byte by byte is the decoder's toLowerCase() only if no non-ASCII character
        // changes ('É', 'İ', 'Σ' ...): otherwise this timeline takes the string path.
        if (high && !lowerStable(b.toString('utf8', s, e))) return this.searchStrings(tl, n);
      } else {
        const str = this.elementString(col, i);
        if (LONE_SURROGATE.test(str) || !lowerStable(str)) return this.searchStrings(tl, n);
        const enc = Buffer.from(str.toLowerCase());
        out.o = o0;
        out.need(enc.length);
        out.o += enc.copy(out.buf, out.o);
      }
      ends[i] = out.o;
    }
    tl.joined = out.take();
    tl.ends = ends;
  }

  private searchStrings(tl: ScanTimeline, n: number): void {
    this.out.o = 0;
    const texts = new Array<string>(n);
    for (let i = 0; i < n; i++) texts[i] = this.elementString(this.text, i);
    tl.texts = texts;
  }

  private scalar(s: number, e: number): unknown {
    const b = this.b;
    if (b[s] === LBRACE || b[s] === LBRACK) return undefined;
    if (b[s] === QUOTE && !this.hasEscape(s + 1, e - 1)) return b.toString('utf8', s + 1, e - 1);
    return JSON.parse(b.toString('utf8', s, e)) as unknown;
  }

  private strValue(s: number, end: number): string {
    if (!this.hasEscape(s + 1, end - 1)) return this.b.toString('utf8', s + 1, end - 1);
    return JSON.parse(this.b.toString('utf8', s, end)) as string;
  }

  private hasEscape(s: number, e: number): boolean {
    const i = this.b.indexOf(BSLASH, s);
    return i >= 0 && i < e;
  }

  private keyIs(s: number, e: number, name: string): boolean {
    if (e - s !== name.length) return false;
    for (let i = 0; i < name.length; i++) if (this.b[s + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  private ws(p: number): number {
    const b = this.b;
    while (p < b.length && isWs(b[p]!)) p++;
    return p;
  }

  /** Position after the string starting at b[p] === '"'. */
  private str(p: number): number {
    const b = this.b;
    let i = p + 1;
    for (;;) {
      const d = b[i];
      if (d === QUOTE) return i + 1;
      if (d === BSLASH) { i += 2; continue; }
      if (d === undefined) throw BAIL;
      i++;
    }
  }

  /** Position after the value starting at p. */
  private skip(p: number): number {
    const b = this.b;
    const c = b[p];
    if (c === QUOTE) return this.str(p);
    if (c === LBRACE || c === LBRACK) {
      let depth = 0;
      let i = p;
      for (;;) {
        const d = b[i];
        if (d === undefined) throw BAIL;
        if (d === QUOTE) { i = this.str(i); continue; }
        if (d === LBRACE || d === LBRACK) depth++;
        else if (d === RBRACE || d === RBRACK) { depth--; if (depth === 0) return i + 1; }
        i++;
      }
    }
    return this.literal(p);
  }

  /** Position after a JSON literal (true, false, null or a number) at p; NaN and the like bail. */
  private literal(p: number): number {
    const b = this.b;
    let i = p;
    while (i < b.length && b[i] !== COMMA && b[i] !== RBRACE && b[i] !== RBRACK && !isWs(b[i]!)) i++;
    const c = b[p];
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const w = b.toString('latin1', p, i);
      if (w !== 'true' && w !== 'false' && w !== 'null') throw BAIL;
      return i;
    }
    if (i === p) throw BAIL;
    for (let j = p; j < i; j++) {
      const d = b[j]!;
      if (!((d >= 48 && d <= 57) || d === 0x2d || d === 0x2b || d === 0x2e || d === 0x65 || d === 0x45)) throw BAIL;
    }
    return i;
  }
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when toLowerCase() changes only ASCII letters of `s`. */
function lowerStable(s: string): boolean {
  const l = s.toLowerCase();
  if (l.length !== s.length) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 && l.charCodeAt(i) !== c) return false;
  }
  return true;
}

interface PendingItem { key: string; fields: Record<string, unknown>; tl: ScanTimeline }

function maskJson(mask: MaskValue[]): Buffer {
  const out = Buffer.allocUnsafe(mask.length * 3 + 2);
  let o = 0;
  out[o++] = LBRACK;
  for (let i = 0; i < mask.length; i++) {
    if (i > 0) out[o++] = COMMA;
    const m = mask[i]!;
    if (m === -1) { out[o++] = 0x2d; out[o++] = 0x31; } else out[o++] = 48 + m;
  }
  out[o++] = RBRACK;
  return out.subarray(0, o);
}

/** Growable output bytes. */
export class Out {
  buf = Buffer.allocUnsafe(1 << 16);
  o = 0;
  need(n: number): void {
    if (this.o + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.o + n) size *= 2;
    const b = Buffer.allocUnsafe(size);
    this.buf.copy(b, 0, 0, this.o);
    this.buf = b;
  }
  ascii(s: string): void {
    this.need(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.o++] = s.charCodeAt(i);
  }
  take(): Buffer {
    const r = Buffer.from(this.buf.subarray(0, this.o));
    this.o = 0;
    return r;
  }
  /**
   * Hands over the bytes written without copying them (a view of the current buffer, which this
   * Out gives up) and starts again on a fresh buffer of the same capacity: for large outputs that
   * move to another thread (transferred, not copied).
   */
  detach(): Buffer {
    const r = this.buf.subarray(0, this.o);
    this.buf = Buffer.allocUnsafeSlow(this.buf.length);
    this.o = 0;
    return r;
  }
}

const ITEM_FIELDS: Record<string, true> = Object.assign(Object.create(null) as Record<string, true>, {
  outcome: true, task_id: true, len_prompt_ids: true, len_response_ids: true, raw_reward: true, reward: true, step_reward: true, step_advantage: true, advantage: true,
});

/**
 * The inflated JSON of a record whose payload is `base64:<zlib>` (or plain JSON) on the line
 * after a valid header; undefined for anything else (left to the full decoder).
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
    const dash = bytes.indexOf(0x2d, p + 7), under = bytes.indexOf(0x5f, p + 7);
    if ((dash >= 0 && dash < end) || (under >= 0 && under < end)) return undefined;
    const raw = Buffer.from(bytes.toString('latin1', p + 7, end), 'base64');
    // Node skips characters outside the alphabet: a short result means the text was not base64.
    if (raw.length !== Math.floor(len / 4) * 3 + (len % 4 ? (len % 4) - 1 : 0) - pad) return undefined;
    try {
      return inflateSync(raw);
    } catch {
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
  let tokens = 0, trained = 0;
  const timelines = rec.timelines.map((t): ScanTimeline => {
    let tr = 0;
    for (const m of t.mask) if (m === 1) tr++;
    tokens += t.text.length;
    trained += tr;
    const tl: ScanTimeline = {
      taskId: t.taskId, outcome: t.outcome, index: t.index, lenPrompt: t.lenPrompt, lenResponse: t.lenResponse,
      rawReward: t.rawReward, stepReward: t.stepReward, advantage: t.advantage, tokens: t.text.length, trained: tr,
    };
    if (want.tokens) {
      tl.json = { tokens: Buffer.from(JSON.stringify(t.text)), ids: Buffer.from(JSON.stringify(t.ids)), logprobs: Buffer.from(JSON.stringify(t.logprobs)), mask: Buffer.from(JSON.stringify(t.mask)) };
    }
    if (want.search) tl.texts = t.text;
    return tl;
  });
  return { ok: true, title: rec.title, step: rec.step, taskId: rec.taskId, reward: rec.reward, outcome: rec.outcome, kind: rec.kind, timelines, tokens, trained, decoded: rec };
}

const IDS = Buffer.from(',"ids":'), LOGPROBS = Buffer.from(',"logprobs":'), MASK = Buffer.from(',"mask":'), END = Buffer.from('}\n');

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
