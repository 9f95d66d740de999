// The export path of the fast scanner (fastscan.ts): a timeline's token arrays are written as the
// JSON of the export row (tokens, ids, logprobs, mask: byte for byte what JSON.stringify writes of
// the full decoder's values) while the `content` object is read, into per-record output buffers
// that are reused from record to record. The token text comes first in what the loggers write
// (text, title, count, color); a column read before the text (whose length decides how many
// values each array has) keeps its element positions and is written once the content is read.
import { BAIL, BSLASH, COMMA, K_ESC, K_LIT, K_STR, LBRACE, LBRACK, Out, QUOTE, RBRACK, stringEnd, type Column } from './jsonbytes';
import { COLOR, COUNT, TEXT, TITLE, TokenColumns, putMask } from './tokencolumns';

/** The four arrays of one export row as JSON. */
export interface ExportArrays {
  tokens: Buffer;
  ids: Buffer;
  logprobs: Buffer;
  mask: Buffer;
}

/** Output buffers above this size are given up at the next record. */
const KEEP_BYTES = 16 << 20;

// The export arrays by the content column they come from: ids from count, logprobs from title, mask from color.
const W_IDS = COUNT,
  W_LOGPROBS = TITLE,
  W_MASK = COLOR;

export class ExportColumns extends TokenColumns {
  // One record's arrays, every timeline's back to back; the views handed out (ExportArrays) stay
  // valid until the next record is scanned for export.
  private readonly xText = new Out();
  private readonly xIds = new Out();
  private readonly xLogprobs = new Out();
  private readonly xMask = new Out();
  // The current timeline: where its arrays start, and which were written while read.
  private t0 = 0;
  private i0 = 0;
  private l0 = 0;
  private m0 = 0;
  private idsDone = false;
  private logprobsDone = false;
  private maskDone = false;
  /** While the titles read so far equal the token texts (ASTune's basic tracker: no logprobs). */
  private titleEq = true;
  private trainedSeen = 0;

  /** Starts a record: the previous record's arrays are overwritten from now on. */
  protected exportReset(): void {
    for (const out of [this.xText, this.xIds, this.xLogprobs, this.xMask]) {
      out.o = 0;
      // A huge record's room is not kept for the records after it.
      if (out.buf.length > KEEP_BYTES) out.buf = Buffer.allocUnsafe(1 << 16);
    }
  }

  /** Reads a timeline's `content` object at p, writing the export arrays; the position after it. */
  protected contentExport(p: number): number {
    this.t0 = this.xText.o;
    this.i0 = this.xIds.o;
    this.l0 = this.xLogprobs.o;
    this.m0 = this.xMask.o;
    this.idsDone = this.logprobsDone = this.maskDone = false;
    this.titleEq = true;
    this.trainedSeen = 0;
    return this.walkContent(
      p,
      (q, col, which) => (which === TEXT ? this.textArray(q) : this.text.present ? this.columnArray(q, col, which) : this.array(q, col)), // before the text: written at the end
    );
  }

  /** The token text array at p: positions kept, and copied as JSON (JSON.stringify's escapes). */
  private textArray(p: number): number {
    const b = this.b,
      col = this.text,
      out = this.xText;
    // An array's JSON is never longer than its source (separators shrink, canonical strings are
    // copied); a re-written escape makes room for itself.
    out.need(b.length - p + 2);
    let buf = out.buf;
    let o = out.o;
    buf[o++] = LBRACK;
    p = this.ws(p + 1);
    if (b[p] === RBRACK) {
      buf[o++] = RBRACK;
      out.o = o;
      return p + 1;
    }
    if (this.wasmOn) {
      const k = this.kernels!;
      const r = k.text(p, 0, true);
      o += k.copyOut(buf, o);
      k.positions(col, 0, k.n);
      col.n = this.textsKnown = k.n;
      if (r < 0) {
        buf[o++] = RBRACK;
        out.o = o;
        return ~r;
      }
      p = r;
    }
    const len = b.length;
    // The column's positions, written here rather than through push() (the hot loop of export).
    let n = col.n,
      cs = col.s,
      ce = col.e,
      ck = col.k;
    for (;;) {
      // Literals (the decoder stringifies them) and containers: the decoder.
      if (b[p] !== QUOTE) throw BAIL;
      if (n > 0) buf[o++] = COMMA;
      const o0 = o;
      buf[o++] = QUOTE;
      let i = p + 1;
      let esc = false;
      let d = b[i]!;
      while (d !== QUOTE) {
        if (i >= len) throw BAIL;
        if (d === BSLASH) {
          // The escaped byte is copied whatever it is (a quote too).
          esc = true;
          buf[o++] = d;
          d = b[++i]!;
        }
        buf[o++] = d;
        d = b[++i]!;
      }
      buf[o++] = QUOTE;
      if (n === cs.length) {
        col.n = n;
        col.grow();
        cs = col.s;
        ce = col.e;
        ck = col.k;
      }
      cs[n] = p + 1;
      ce[n] = i;
      ck[n] = esc ? K_ESC : K_STR;
      n++;
      if (esc && !this.canonical(p + 1, i)) {
        const re = Buffer.from(JSON.stringify(this.stringAt(p + 1, i, K_ESC)));
        out.o = o0;
        out.need(re.length + b.length - i + 2);
        buf = out.buf;
        o = o0 + re.copy(buf, o0);
      }
      p = this.sep(i + 1);
      if (p < 0) {
        col.n = n;
        buf[o++] = RBRACK;
        out.o = o;
        return ~p;
      }
    }
  }

  /** A title, count or color array read after the text: its export array written as it is read. */
  private columnArray(p: number, col: Column, which: number): number {
    const out = which === W_IDS ? this.xIds : which === W_LOGPROBS ? this.xLogprobs : this.xMask;
    if (which === W_IDS) this.idsDone = true;
    else if (which === W_LOGPROBS) this.logprobsDone = true;
    else this.maskDone = true;
    out.need(1);
    out.buf[out.o++] = LBRACK;
    p = this.ws(p + 1);
    if (this.b[p] === RBRACK) return p + 1;
    // The loggers' usual elements in a kernel; from the first other one on, the general loop.
    const at = this.wasmOn ? this.columnKernel(p, col, which, out) : p;
    return at < 0 ? ~at : this.columnRest(at, col, which, out);
  }

  /** The kernel for an ids, logprobs or colour array from its first element p: ~(the index after it), or the element the general loop goes on from. */
  private columnKernel(p: number, col: Column, which: number, out: Out): number {
    const k = this.kernels!,
      n = this.text.n;
    let r: number;
    if (which === W_IDS) r = k.ids(p, n);
    else if (which === W_LOGPROBS) {
      r = k.logprobs(p, n, this.titleEq, this.textsKnown);
      this.titleEq = k.titleEq;
    } else {
      r = k.mask(p, n, true);
      this.trainedSeen += k.trained;
    }
    out.need(this.b.length - p + 1);
    out.o += k.copyOut(out.buf, out.o);
    col.n = k.n;
    return r;
  }

  /**
   * The general loop of columnArray from the element at p (col.n elements done): any scalar,
   * elements past the text's length counted but not written.
   */
  private columnRest(p: number, col: Column, which: number, out: Out): number {
    const b = this.b,
      n = this.text.n;
    for (;;) {
      const c = b[p];
      let s: number, e: number, k: number;
      if (c === QUOTE) {
        const end = stringEnd(b, p);
        s = p + 1;
        e = end < 0 ? ~end : end;
        k = end < 0 ? K_ESC : K_STR;
        p = e + 1;
      } else if (c === LBRACE || c === LBRACK || c === undefined) {
        throw BAIL;
      } else {
        s = p;
        p = this.literal(p);
        e = p;
        k = K_LIT;
      }
      const i = col.n++;
      if (i < n) {
        out.need(32);
        if (i > 0) out.buf[out.o++] = COMMA;
        if (which === W_MASK) {
          const m = this.maskOf(s, e, k);
          if (m === 1) this.trainedSeen++;
          out.o = putMask(out.buf, out.o, m);
        } else if (which === W_IDS) {
          this.idInto(out, s, e, k);
        } else {
          if (this.titleEq) this.titleEq = this.titleIsText(i, s, e, k);
          this.logprobInto(out, s, e, k);
        }
      }
      p = this.sep(p);
      if (p < 0) return ~p;
    }
  }

  /**
   * After an element: the index of the next element when a comma follows, ~(the index after
   * the array) when it ends; anything else throws Bail.
   */
  private sep(p: number): number {
    const b = this.b;
    let c = b[p];
    if (c === COMMA) {
      c = b[++p];
      if (c === 0x20) c = b[++p];
      return c !== undefined && c <= 0x20 ? this.ws(p) : p;
    }
    if (c === RBRACK) return ~(p + 1);
    p = this.ws(p);
    if (b[p] === COMMA) return this.ws(p + 1);
    if (b[p] === RBRACK) return ~(p + 1);
    throw BAIL;
  }

  /** Completes the current timeline's export arrays (n tokens); they and its trained tokens. */
  protected exportArrays(n: number): { json: ExportArrays; trained: number } {
    let trained: number;
    if (this.maskDone) {
      trained = this.trainedSeen;
      this.pad(this.xMask, this.color.n, n, MINUS_ONE);
    } else trained = this.maskInto(this.xMask, n);
    if (this.idsDone) this.pad(this.xIds, this.count.n, n, NULL);
    else this.idsInto(this.xIds, n);
    if (!this.logprobsDone) this.logprobsInto(this.xLogprobs, n);
    else if (this.titleEq && this.title.n === n && n > 0) {
      // The titles are the token texts: no logprobs (as logprobsInto decides).
      this.xLogprobs.o = this.l0;
      this.xLogprobs.need(1);
      this.xLogprobs.buf[this.xLogprobs.o++] = LBRACK;
      this.pad(this.xLogprobs, 0, n, NULL);
    } else this.pad(this.xLogprobs, this.title.n, n, NULL);
    const view = (out: Out, from: number) => out.buf.subarray(from, out.o);
    return {
      json: {
        tokens: view(this.xText, this.t0),
        ids: view(this.xIds, this.i0),
        logprobs: view(this.xLogprobs, this.l0),
        mask: view(this.xMask, this.m0),
      },
      trained,
    };
  }

  /** Ends an array written as read: `value` for elements from..n-1 the column did not have, then `]`. */
  private pad(out: Out, from: number, n: number, value: Buffer): void {
    out.need((n - from > 0 ? (n - from) * (value.length + 1) : 0) + 1);
    const buf = out.buf;
    let o = out.o;
    for (let i = from; i < n; i++) {
      if (i > 0) buf[o++] = COMMA;
      o += value.copy(buf, o);
    }
    buf[o++] = RBRACK;
    out.o = o;
  }
}

const NULL = Buffer.from('null'),
  MINUS_ONE = Buffer.from('-1');
