// Byte-level JSON reading for the fast scanner (fastscan.ts): positions in a UTF-8 buffer, never
// the objects JSON.parse would build. Anything unusual throws BAIL so the caller can leave the
// payload to the full decoder.

export const QUOTE = 0x22,
  BSLASH = 0x5c,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACK = 0x5b,
  RBRACK = 0x5d,
  COMMA = 0x2c,
  COLON = 0x3a;

/** Thrown inside the scanner when the payload needs the full decoder. */
export class Bail extends Error {}
export const BAIL = new Bail('unusual payload');

/** Escape letters JSON allows after a backslash (`u` apart: it needs four hex digits). */
const ESCAPE_LETTER = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPE_LETTER[c.charCodeAt(0)] = 1;

/**
 * The length of the escape at b[i] (a backslash): 2, or 6 for \uXXXX. Anything JSON.parse refuses
 * throws BAIL, so that the decoder reports the record as it would anyway.
 */
export function escapeLen(b: Uint8Array, i: number): number {
  const c = b[i + 1]!;
  if (ESCAPE_LETTER[c] === 1) return 2;
  if (c === 0x75 && hexVal(b[i + 2]!) >= 0 && hexVal(b[i + 3]!) >= 0 && hexVal(b[i + 4]!) >= 0 && hexVal(b[i + 5]!) >= 0) return 6;
  throw BAIL;
}

/**
 * The index of the quote that closes the JSON string opening at `b[p]`, bit-inverted (negative)
 * when the string holds an escape (an invalid one bails). Small enough for V8 to inline in the
 * scanners' hot loops.
 */
export function stringEnd(b: Uint8Array, p: number): number {
  let i = p + 1;
  let esc = false;
  for (;;) {
    const d = b[i];
    if (d === QUOTE) return esc ? ~i : i;
    if (d === BSLASH) {
      esc = true;
      i += escapeLen(b, i);
      continue;
    }
    if (d === undefined) throw BAIL;
    i++;
  }
}

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Element kinds in the scratch arrays. */
export const K_STR = 1,
  K_ESC = 2,
  K_LIT = 3;

/** The elements of one array: start/end offsets (strings without their quotes) and kinds. */
export class Column {
  s = new Int32Array(4096);
  e = new Int32Array(4096);
  k = new Uint8Array(4096);
  n = 0;
  present = false;
  /** When false, only count elements (and note literals): positions are not needed. */
  keep = true;
  anyLit = false;
  push(s: number, e: number, k: number): void {
    if (this.n === this.s.length) this.grow();
    this.s[this.n] = s;
    this.e[this.n] = e;
    this.k[this.n] = k;
    this.n++;
  }
  /** Doubles the room for elements. */
  grow(): void {
    const more = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(a.length * 2);
      b.set(a);
      return b;
    };
    this.s = more(this.s, (n) => new Int32Array(n));
    this.e = more(this.e, (n) => new Int32Array(n));
    this.k = more(this.k, (n) => new Uint8Array(n));
  }
}

/** Reads JSON values out of the bytes `b` (set by the subclass per payload). */
export class JsonBytes {
  protected b: Buffer = Buffer.alloc(0);
  /** The last key read by key(): b[keyStart..keyEnd), without quotes. */
  protected keyStart = 0;
  protected keyEnd = 0;

  /**
   * Reads `"name":` at p, a key without escapes (an escaped key might spell one of ours: bail),
   * into keyStart/keyEnd; returns the position of the value.
   */
  protected key(p: number): number {
    const b = this.b;
    if (b[p] !== QUOTE) throw BAIL;
    const ks = p + 1;
    p = this.str(p);
    const ke = p - 1;
    if (this.hasEscape(ks, ke)) throw BAIL;
    this.keyStart = ks;
    this.keyEnd = ke;
    p = this.ws(p);
    if (b[p] !== COLON) throw BAIL;
    return this.ws(p + 1);
  }

  /**
   * After a member's value at p: the position of the comma or closing brace that follows
   * (whitespace skipped); anything else bails. After a comma the next key is at ws(p + 1).
   */
  protected afterMember(p: number): number {
    p = this.ws(p);
    if (this.b[p] !== COMMA && this.b[p] !== RBRACE) throw BAIL;
    return p;
  }

  /** The decoded string of a string element. */
  protected elementString(col: Column, i: number): string {
    return this.stringAt(col.s[i]!, col.e[i]!, col.k[i]!);
  }

  /** The decoded value of a scalar element (string or literal). */
  protected elementValue(col: Column, i: number): unknown {
    return this.valueAt(col.s[i]!, col.e[i]!, col.k[i]!);
  }

  /** The decoded string of the string element b[s..e) (without its quotes) of kind k. */
  protected stringAt(s: number, e: number, k: number): string {
    if (k === K_STR) return this.b.toString('utf8', s, e);
    return JSON.parse(this.b.toString('utf8', s - 1, e + 1)) as string;
  }

  /** The decoded value of the scalar element b[s..e) of kind k. */
  protected valueAt(s: number, e: number, k: number): unknown {
    if (k === K_LIT) return JSON.parse(this.b.toString('latin1', s, e));
    return this.stringAt(s, e, k);
  }

  /** True when the escapes in b[s..e) are exactly those JSON.stringify writes. */
  protected canonical(s: number, e: number): boolean {
    const b = this.b;
    for (let i = s; i < e; i++) {
      if (b[i] !== BSLASH) continue;
      const c = b[i + 1];
      if (c === QUOTE || c === BSLASH || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) {
        i++;
        continue;
      }
      if (c === 0x75 && b[i + 2] === 0x30 && b[i + 3] === 0x30 && (b[i + 4] === 0x30 || b[i + 4] === 0x31)) {
        const h = hexVal(b[i + 5]!);
        const lowHex = b[i + 5]! < 0x41 || b[i + 5]! > 0x46;
        if (h >= 0 && lowHex) {
          const v = (b[i + 4] === 0x31 ? 16 : 0) + h;
          if (v !== 8 && v !== 9 && v !== 10 && v !== 12 && v !== 13) {
            i += 5;
            continue;
          }
        }
      }
      return false;
    }
    return true;
  }

  protected scalar(s: number, e: number): unknown {
    const b = this.b;
    if (b[s] === LBRACE || b[s] === LBRACK) return undefined;
    if (b[s] === QUOTE && !this.hasEscape(s + 1, e - 1)) return b.toString('utf8', s + 1, e - 1);
    return JSON.parse(b.toString('utf8', s, e)) as unknown;
  }

  protected strValue(s: number, end: number): string {
    if (!this.hasEscape(s + 1, end - 1)) return this.b.toString('utf8', s + 1, end - 1);
    return JSON.parse(this.b.toString('utf8', s, end)) as string;
  }

  protected hasEscape(s: number, e: number): boolean {
    // Keys and field values are short: a loop over them (indexOf from s went on past e, up to
    // the payload's next backslash, often its end).
    const b = this.b;
    if (e - s > 64) {
      const i = b.indexOf(BSLASH, s);
      return i >= 0 && i < e;
    }
    for (let i = s; i < e; i++) if (b[i] === BSLASH) return true;
    return false;
  }

  protected keyIs(s: number, e: number, name: string): boolean {
    if (e - s !== name.length) return false;
    for (let i = 0; i < name.length; i++) if (this.b[s + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  protected ws(p: number): number {
    const b = this.b;
    while (p < b.length && isWs(b[p]!)) p++;
    return p;
  }

  /** Position after the string starting at b[p] === '"' (an invalid escape bails). */
  protected str(p: number): number {
    const b = this.b;
    let i = p + 1;
    for (;;) {
      const d = b[i];
      if (d === QUOTE) return i + 1;
      if (d === BSLASH) {
        i += escapeLen(b, i);
        continue;
      }
      if (d === undefined) throw BAIL;
      i++;
    }
  }

  /** Position after the value starting at p. */
  protected skip(p: number): number {
    const b = this.b;
    const c = b[p];
    if (c === QUOTE) return this.str(p);
    if (c === LBRACE || c === LBRACK) {
      let depth = 0;
      let i = p;
      for (;;) {
        const d = b[i];
        // A non-ASCII byte outside a string is never JSON (nor is bad UTF-8, which stats do not check).
        if (d === undefined || d >= 0x80) throw BAIL;
        if (d === QUOTE) {
          i = this.str(i);
          continue;
        }
        if (d === LBRACE || d === LBRACK) depth++;
        else if (d === RBRACE || d === RBRACK) {
          depth--;
          if (depth === 0) return i + 1;
        }
        i++;
      }
    }
    return this.literal(p);
  }

  /** Position after a JSON literal (true, false, null or a number) at p; NaN and the like bail. */
  protected literal(p: number): number {
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

/** Growable output bytes. */
export class Out {
  buf: Buffer = Buffer.allocUnsafe(1 << 16);
  o = 0;
  need(n: number): void {
    if (this.o + n <= this.buf.length) return;
    let size = Math.max(this.buf.length * 2, 1024);
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
   * Out gives up) and starts again on `next` when it is large enough (a buffer handed over
   * earlier and given back), else on a fresh buffer of the same capacity: for large outputs that
   * move to another thread (transferred, not copied).
   */
  detach(next?: Buffer): Buffer {
    const r = this.buf.subarray(0, this.o);
    this.buf = next && next.length >= this.buf.length ? next : Buffer.allocUnsafeSlow(this.buf.length);
    this.o = 0;
    return r;
  }
}
