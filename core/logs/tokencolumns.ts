// The token arrays of the fast scanner (fastscan.ts): one timeline's `content` columns read into
// scratch offsets, then written out as the JSON the export and search paths need (byte for byte
// what JSON.stringify writes of the full decoder's values), and the token masks from the colours.
import { maskFromColor, type MaskValue } from './color';
import { num } from './decode';
import { BAIL, BSLASH, COMMA, Column, JsonBytes, K_ESC, K_LIT, K_STR, LBRACE, LBRACK, Out, QUOTE, RBRACK, hexVal } from './jsonbytes';

/** A timeline's token text for search (want.search). */
export interface SearchText {
  /** Token texts joined and lowercased as UTF-8, with token end offsets. */
  joined?: Buffer;
  ends?: Int32Array;
  /** Token texts when not all ASCII (search falls back to the string path). */
  texts?: string[];
}

// 24-bit colour -> mask + 2 (0 = not computed yet).
const colorMasks = new Int8Array(1 << 24);

/** The columns of one timeline's content (text, title, count, color) and their JSON writers. */
export class TokenColumns extends JsonBytes {
  protected readonly text = new Column();
  protected readonly title = new Column();
  protected readonly count = new Column();
  protected readonly color = new Column();
  protected readonly out = new Out();

  /** Reads an array of strings / scalars into a column; containers bail. */
  protected array(p: number, col: Column): number {
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
          if (d === BSLASH) {
            esc = true;
            i += 2;
            continue;
          }
          if (d === undefined) throw BAIL;
          i++;
        }
        if (col.keep) col.push(p + 1, i, esc ? K_ESC : K_STR);
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

  protected maskAt(i: number): MaskValue {
    const b = this.b,
      col = this.color;
    const s = col.s[i]!,
      e = col.e[i]!,
      k = col.k[i]!;
    if (k === K_STR && e - s === 7 && b[s] === 0x23) {
      let v = 0;
      for (let j = s + 1; j < e; j++) {
        const h = hexVal(b[j]!);
        if (h < 0) {
          v = -1;
          break;
        }
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

  protected textJson(n: number): Buffer {
    const b = this.b,
      col = this.text;
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
      if (f) {
        o += f.copy(out, o);
        continue;
      }
      const s = col.s[i]! - 1,
        e = col.e[i]! + 1;
      if (e - s < 24) {
        for (let j = s; j < e; j++) out[o++] = b[j]!;
      } else o += b.copy(out, o, s, e);
    }
    out[o++] = RBRACK;
    return out;
  }

  /** The ids array as JSON: canonical integers copied as digits, the rest through the decoder's rule. */
  protected idsJson(n: number): Buffer {
    const b = this.b,
      col = this.count,
      out = this.out;
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(24);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (i >= col.n) {
        out.ascii('null');
        continue;
      }
      const s = col.s[i]!,
        e = col.e[i]!,
        k = col.k[i]!;
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
          for (let q = s; q < e; q++) out.buf[out.o++] = b[q]!;
          continue;
        }
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
  protected titlesAreText(n: number): boolean {
    const b = this.b,
      t = this.text,
      ti = this.title;
    if (n === 0 || ti.n !== n) return false;
    for (let i = 0; i < n; i++) {
      if (ti.k[i] === K_LIT) return false;
      const s1 = t.s[i]!,
        e1 = t.e[i]!,
        s2 = ti.s[i]!,
        e2 = ti.e[i]!;
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
  protected logprobsJson(n: number): Buffer {
    const b = this.b,
      col = this.title,
      out = this.out;
    const none = !col.present || this.titlesAreText(n);
    out.need(2);
    out.buf[out.o++] = LBRACK;
    for (let i = 0; i < n; i++) {
      out.need(32);
      if (i > 0) out.buf[out.o++] = COMMA;
      if (none || i >= col.n) {
        out.ascii('null');
        continue;
      }
      const s = col.s[i]!,
        e = col.e[i]!,
        k = col.k[i]!;
      if (k === K_STR && this.decimalJson(s, e)) continue;
      if (k === K_STR && e - s === 3 && b[s] === 0x4e && b[s + 1] === 0x2f && b[s + 2] === 0x41) {
        out.ascii('null');
        continue;
      } // N/A
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
  protected decimalJson(s: number, e: number): boolean {
    const b = this.b,
      out = this.out;
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
      if (fracEnd === intEnd) {
        out.buf[out.o++] = 48;
        return true;
      } // 0, -0 -> "0"
      let z = intEnd + 1;
      while (b[z] === 48) z++;
      if (z - (intEnd + 1) >= 6) return false; // below 1e-6: JSON writes an exponent
      sig = fracEnd - z;
    } else {
      sig = intEnd - intStart + (fracEnd > intEnd ? fracEnd - intEnd - 1 : 0);
    }
    if (sig > 15 || intEnd - intStart > 15) return false;
    if (neg) out.buf[out.o++] = 0x2d;
    for (let q = intStart; q < fracEnd; q++) out.buf[out.o++] = b[q]!;
    return true;
  }

  /** For search: the token texts joined and ASCII-lowercased, or the strings when not ASCII. */
  protected searchText(tl: SearchText, n: number): void {
    const b = this.b,
      col = this.text,
      out = this.out;
    const ends = new Int32Array(n);
    out.o = 0;
    for (let i = 0; i < n; i++) {
      const s = col.s[i]!,
        e = col.e[i]!;
      out.need(e - s);
      const o0 = out.o;
      const buf = out.buf;
      let o = o0,
        high = false;
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

  protected searchStrings(tl: SearchText, n: number): void {
    this.out.o = 0;
    const texts = new Array<string>(n);
    for (let i = 0; i < n; i++) texts[i] = this.elementString(this.text, i);
    tl.texts = texts;
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

export function maskJson(mask: MaskValue[]): Buffer {
  const out = Buffer.allocUnsafe(mask.length * 3 + 2);
  let o = 0;
  out[o++] = LBRACK;
  for (let i = 0; i < mask.length; i++) {
    if (i > 0) out[o++] = COMMA;
    const m = mask[i]!;
    if (m === -1) {
      out[o++] = 0x2d;
      out[o++] = 0x31;
    } else out[o++] = 48 + m;
  }
  out[o++] = RBRACK;
  return out.subarray(0, o);
}
