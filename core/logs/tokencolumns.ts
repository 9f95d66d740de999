// The token arrays of the fast scanner (fastscan.ts): one timeline's `content` columns read into
// scratch offsets, then written out as the JSON the export and search paths need (byte for byte
// what JSON.stringify writes of the full decoder's values), and the token masks from the colours.
import { maskFromColor, type MaskValue } from './color';
import type { Kernels } from './kernels';
import { num } from './decode';
import {
  BAIL,
  COMMA,
  Column,
  JsonBytes,
  K_ESC,
  K_LIT,
  K_STR,
  LBRACE,
  LBRACK,
  Out,
  QUOTE,
  RBRACE,
  RBRACK,
  hexVal,
  stringEnd,
} from './jsonbytes';

/** Byte -> hex digit value, -256 for bytes that are not hex digits. */
const HEX = new Int16Array(256).fill(-256);
for (let c = 0; c < 256; c++) if (hexVal(c) >= 0) HEX[c] = hexVal(c);

// 24-bit colour -> mask + 2 (0 = not computed yet).
const colorMasks = new Int8Array(1 << 24);

/** The columns of one timeline's content (text, title, count, color) and their JSON writers. */
/** The token columns of a timeline's content, by number. */
export const TEXT = 0,
  COUNT = 1,
  TITLE = 2,
  COLOR = 3;

export class TokenColumns extends JsonBytes {
  protected readonly text = new Column();
  protected readonly title = new Column();
  protected readonly count = new Column();
  protected readonly color = new Column();
  protected readonly out = new Out();
  /** The WebAssembly kernels (kernels.ts), and whether they hold the current payload. */
  protected kernels: Kernels | undefined;
  protected wasmOn = false;
  /** Token texts of the current timeline whose positions the kernels hold (from 0). */
  protected textsKnown = 0;
  /** Stats: trained tokens among colours 0..maskFrom-1, counted by a kernel (their positions are not kept). */
  protected trainedPre = 0;
  protected maskFrom = 0;

  /**
   * Walks a timeline's `content` object at p: each token column (text, title, count, color; once
   * each, an array) goes to `read` with its number (TEXT, TITLE, COUNT, COLOR), other members are
   * skipped. Returns the index after the object.
   */
  protected walkContent(p: number, read: (p: number, col: Column, which: number) => number): number {
    const b = this.b;
    if (b[p] !== LBRACE) throw BAIL;
    p = this.ws(p + 1);
    if (b[p] === RBRACE) return p + 1;
    for (;;) {
      p = this.key(p);
      const ks = this.keyStart,
        ke = this.keyEnd;
      const which = this.keyIs(ks, ke, 'text')
        ? TEXT
        : this.keyIs(ks, ke, 'title')
          ? TITLE
          : this.keyIs(ks, ke, 'count')
            ? COUNT
            : this.keyIs(ks, ke, 'color')
              ? COLOR
              : -1;
      if (which >= 0) {
        const col = which === TEXT ? this.text : which === TITLE ? this.title : which === COUNT ? this.count : this.color;
        if (col.present) throw BAIL;
        col.present = true;
        if (b[p] !== LBRACK) throw BAIL; // not an array: the decoder warns; leave it to it
        p = read(p, col, which);
      } else {
        p = this.skip(p);
      }
      p = this.afterMember(p);
      if (b[p] === RBRACE) return p + 1;
      p = this.ws(p + 1);
    }
  }

  /** Reads an array of strings / scalars into a column; containers bail. */
  protected array(p: number, col: Column): number {
    const b = this.b;
    p = this.ws(p + 1);
    if (b[p] === RBRACK) return p + 1;
    if (this.wasmOn) {
      const r = this.arrayKernel(p, col);
      if (r < 0) return ~r;
      p = r;
    }
    for (;;) {
      const c = b[p];
      if (c === QUOTE) {
        const end = stringEnd(b, p);
        const i = end < 0 ? ~end : end;
        if (col.keep) col.push(p + 1, i, end < 0 ? K_ESC : K_STR);
        else col.n++;
        p = i + 1;
      } else if (c === LBRACE || c === LBRACK || c === undefined) {
        throw BAIL;
      } else {
        const s = p;
        p = this.literal(p);
        col.anyLit = true;
        if (col.keep) col.push(s, p, K_LIT);
        else col.n++;
      }
      p = this.ws(p);
      if (b[p] === COMMA) {
        p = this.ws(p + 1);
        continue;
      }
      if (b[p] === RBRACK) return p + 1;
      throw BAIL;
    }
  }

  /** A kernel for array() from its first element p: ~(the index after it) or where the loop below goes on. */
  private arrayKernel(p: number, col: Column): number {
    const k = this.kernels!;
    let r = p;
    if (!col.keep) {
      r = k.count(p, col.n);
      col.n = k.n;
    } else if (col === this.text) {
      r = k.text(p, col.n, false);
      k.positions(col, col.n, k.n);
      col.n = this.textsKnown = k.n;
    } else if (col === this.color && this.text.present) {
      // Stats: the trained tokens now, the positions of the colours the loop below reads after.
      r = k.mask(p, this.text.n, false);
      this.trainedPre = k.trained;
      col.n = this.maskFrom = k.n;
    }
    return r;
  }

  protected maskAt(i: number): MaskValue {
    const col = this.color;
    return this.maskOf(col.s[i]!, col.e[i]!, col.k[i]!);
  }

  /** The mask of the colour element b[s..e) of kind k. */
  protected maskOf(s: number, e: number, k: number): MaskValue {
    if (k === K_STR && e - s === 7) {
      const m = this.hexMask(s);
      if (m !== 2) return m;
    }
    if (k === K_LIT) return -1;
    return maskFromColor(this.stringAt(s, e, k));
  }

  /** The mask of the colour "#rrggbb" at b[s..s+7) (no quotes), or 2 when the bytes are not that. */
  protected hexMask(s: number): MaskValue | 2 {
    const b = this.b;
    if (b[s] !== 0x23) return 2;
    // Six hex digits; any other byte makes the value negative (HEX holds -256 for those).
    const v =
      (HEX[b[s + 1]!]! << 20) |
      (HEX[b[s + 2]!]! << 16) |
      (HEX[b[s + 3]!]! << 12) |
      (HEX[b[s + 4]!]! << 8) |
      (HEX[b[s + 5]!]! << 4) |
      HEX[b[s + 6]!]!;
    if (v < 0) return 2;
    const m = colorMasks[v]!;
    if (m !== 0) return (m - 2) as MaskValue;
    const r = maskFromColor(b.toString('latin1', s, s + 7));
    colorMasks[v] = r + 2;
    return r;
  }

  /** The text column of n tokens as JSON, into `out`: canonical strings copied, the rest re-written. */
  protected textInto(out: Out, n: number): void {
    const b = this.b,
      col = this.text;
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      const s = col.s[i]! - 1,
        e = col.e[i]! + 1;
      out.need(e - s + 1);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (col.k[i] === K_ESC && !this.canonical(s + 1, e - 1)) {
        const re = Buffer.from(JSON.stringify(this.elementString(col, i)));
        out.need(re.length);
        out.o += re.copy(out.buf, out.o);
      } else if (e - s < 24) {
        const buf = out.buf;
        let o = out.o;
        for (let j = s; j < e; j++) buf[o++] = b[j]!;
        out.o = o;
      } else out.o += b.copy(out.buf, out.o, s, e);
    }
    out.need(1);
    out.buf[out.o++] = RBRACK;
  }

  /** The ids column of n tokens as JSON into `out` (null where the column is short). */
  protected idsInto(out: Out, n: number): void {
    const col = this.count;
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(24);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (i >= col.n) out.ascii('null');
      else this.idInto(out, col.s[i]!, col.e[i]!, col.k[i]!);
    }
    out.need(1);
    out.buf[out.o++] = RBRACK;
  }

  /**
   * One id (the count element b[s..e) of kind k) as JSON into `out`, which has room for 24
   * bytes: canonical integers copied as digits, the rest through the decoder's rule.
   */
  protected idInto(out: Out, s: number, e: number, k: number): void {
    const b = this.b;
    if (k === K_STR && e - s > 0 && e - s <= 15) {
      // Number(c) prints back as the same digits unless there are leading zeros or "-0".
      let j = s;
      if (b[j] === 0x2d) j++;
      let ok = j < e && !(b[j] === 48 && e - j > 1) && !(b[s] === 0x2d && b[j] === 48);
      for (let q = j; ok && q < e; q++) {
        const d = b[q]!;
        if (d < 48 || d > 57) ok = false;
      }
      if (ok) {
        const buf = out.buf;
        let o = out.o;
        for (let q = s; q < e; q++) buf[o++] = b[q]!;
        out.o = o;
        return;
      }
    }
    const c = this.valueAt(s, e, k);
    const v = typeof c === 'number' ? c : typeof c === 'string' ? (/^-?\d+$/.test(c) ? Number(c) : c) : null;
    const j = Buffer.from(JSON.stringify(v));
    out.need(j.length);
    out.o += j.copy(out.buf, out.o);
  }

  /** ASTune's basic tracker logged the token text as the title: then there are no logprobs. */
  protected titlesAreText(n: number): boolean {
    const ti = this.title;
    if (n === 0 || ti.n !== n) return false;
    for (let i = 0; i < n; i++) if (!this.titleIsText(i, ti.s[i]!, ti.e[i]!, ti.k[i]!)) return false;
    return true;
  }

  /** True when the title element b[s..e) of kind k is the same string as token text i. */
  protected titleIsText(i: number, s2: number, e2: number, k2: number): boolean {
    const b = this.b,
      t = this.text;
    if (k2 === K_LIT) return false;
    const s1 = t.s[i]!,
      e1 = t.e[i]!;
    if (t.k[i] === K_STR && k2 === K_STR) {
      if (e1 - s1 !== e2 - s2) return false;
      for (let j = 0; j < e1 - s1; j++) if (b[s1 + j] !== b[s2 + j]) return false;
      return true;
    }
    return this.elementString(t, i) === this.stringAt(s2, e2, k2);
  }

  /** The logprobs column of n tokens as JSON into `out` (null for "N/A", unparsable, or ASTune's title = text). */
  protected logprobsInto(out: Out, n: number): void {
    const col = this.title;
    const none = !col.present || this.titlesAreText(n);
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(32);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (none || i >= col.n) out.ascii('null');
      else this.logprobInto(out, col.s[i]!, col.e[i]!, col.k[i]!);
    }
    out.need(1);
    out.buf[out.o++] = RBRACK;
  }

  /** One logprob (the title element b[s..e) of kind k) as JSON into `out`, which has room for 32 bytes. */
  protected logprobInto(out: Out, s: number, e: number, k: number): void {
    const b = this.b;
    if (k === K_STR && this.decimalInto(out, s, e)) return;
    if (k === K_STR && e - s === 3 && b[s] === 0x4e && b[s + 1] === 0x2f && b[s + 2] === 0x41) {
      out.ascii('null'); // N/A
      return;
    }
    out.ascii(JSON.stringify(num(this.valueAt(s, e, k)) ?? null));
  }

  /** The mask column of n tokens as JSON into `out` (-1 where the colour column is short); returns the trained tokens. */
  protected maskInto(out: Out, n: number): number {
    const col = this.color;
    let trained = 0;
    out.need(3 * n + 2);
    const buf = out.buf;
    let o = out.o;
    buf[o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      if (i > 0) buf[o++] = COMMA;
      const m = i < col.n ? this.maskAt(i) : -1;
      o = putMask(buf, o, m);
      if (m === 1) trained++;
    }
    buf[o++] = RBRACK;
    out.o = o;
    return trained;
  }

  /** See writeDecimal: the decimal b[s..e) into `out`, which has room for 32 bytes; false when it is not a plain one. */
  protected decimalInto(out: Out, s: number, e: number): boolean {
    const o = writeDecimal(this.b, s, e, out.buf, out.o);
    if (o < 0) return false;
    out.o = o;
    return true;
  }
}

/**
 * Writes the string b[s..e) at buf[o] as JSON.stringify(Number(it)) would, when it is a plain
 * decimal (-?\d+(\.\d+)?, no leading zeros, at most 15 significant digits, not below 1e-6): the
 * shortest round-trip form of such a number is the decimal without trailing zeros. Returns the
 * position after it, or -1 (nothing written) for any other string. The logprobs kernel
 * (wasm/columns.ts) follows the same rule.
 */
export function writeDecimal(b: Uint8Array, s: number, e: number, buf: Uint8Array, o: number): number {
  let j = s;
  const neg = b[j] === 0x2d;
  if (neg) j++;
  const intStart = j;
  while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
  const intEnd = j;
  if (intEnd === intStart || (b[intStart] === 48 && intEnd - intStart > 1)) return -1;
  let fracEnd = intEnd;
  if (j < e) {
    if (b[j] !== 0x2e) return -1;
    j++;
    const fs = j;
    while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
    if (j !== e || j === fs) return -1;
    fracEnd = e;
    while (fracEnd > fs && b[fracEnd - 1] === 48) fracEnd--;
    if (fracEnd === fs) fracEnd = intEnd; // all zeros: an integer
  }
  let sig: number;
  if (intEnd - intStart === 1 && b[intStart] === 48) {
    // 0, -0 -> "0"
    if (fracEnd === intEnd) {
      buf[o] = 48;
      return o + 1;
    }
    let z = intEnd + 1;
    while (b[z] === 48) z++;
    if (z - (intEnd + 1) >= 6) return -1; // below 1e-6: JSON writes an exponent
    sig = fracEnd - z;
  } else {
    sig = intEnd - intStart + (fracEnd > intEnd ? fracEnd - intEnd - 1 : 0);
  }
  if (sig > 15 || intEnd - intStart > 15) return -1;
  if (neg) buf[o++] = 0x2d;
  for (let q = intStart; q < fracEnd; q++) buf[o++] = b[q]!;
  return o;
}

/** Writes mask value m (1, 0 or -1) at buf[o]; returns the position after it. */
export function putMask(buf: Buffer, o: number, m: MaskValue): number {
  if (m === -1) {
    buf[o++] = 0x2d;
    buf[o++] = 0x31;
  } else buf[o++] = 48 + m;
  return o;
}
