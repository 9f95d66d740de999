// Search input from the scanned token texts: joined and lowercased bytes with token end offsets,
// or the strings when lowercasing is not byte-wise (the string path of search).
import { ExportColumns } from './exportcolumns';
import { isUtf8 } from 'node:buffer';
import { BAIL, K_STR, RBRACK } from './jsonbytes';
import { NeedleFilter } from './needlefilter';
import type { NeedleCount } from './kernels';

/** A timeline's token text for search (want.search). */
export interface SearchText {
  /**
   * Token texts joined and lowercased as UTF-8, with token end offsets; from the kernels, views of
   * their memory, valid until the scanner scans the next record.
   */
  joined?: Buffer;
  ends?: Int32Array;
  /** The matches of the scan's needle in `joined`, when the kernels counted them. */
  found?: NeedleCount;
  /** Token texts when not all ASCII (search falls back to the string path). */
  texts?: string[];
}

export class SearchColumns extends ExportColumns {
  private filterFor: string | undefined;
  private filter: NeedleFilter | undefined;
  /** The current timeline's text array: from its `[` to after its `]`. */
  protected textAt = 0;
  protected textEnd = 0;
  /** Timelines in a row that the filter let through. */
  private mayHoldRun = 0;

  /** Whether this payload's scan writes export output (fastscan's scanPayload sets it). */
  protected exportOn = false;
  /** Whether the current timeline's search goes through the filter (fastscan's item sets it). */
  protected filterOn = false;
  /** Whether the current timeline's texts are joined as they are read (joinText; fastscan's item sets it). */
  protected joinNow = false;
  /** The current timeline's texts joined by joinText, for searchText. */
  private pending: { joined: Buffer; ends: Int32Array; found?: NeedleCount } | undefined;

  /**
   * With joinNow: the text array at p (its `[`) joined as it is read, without counting it first;
   * the index after it, or undefined when not joined (no joinNow, an empty array, an element the
   * kernels leave to the JavaScript loops: it is counted and joined as usual).
   */
  protected joinText(p: number): number | undefined {
    this.pending = undefined;
    if (!this.joinNow || this.b[this.ws(p + 1)] === RBRACK) return undefined;
    const j = this.kernels!.joinUncounted(p, !this.exportOn);
    if (!j) return undefined;
    this.text.n = j.n;
    this.pending = j;
    return j.end;
  }

  /**
   * Search for `needle` (lower case): whether the raw-byte filter (needlefilter.ts) judges it
   * (filterOn), and whether the token texts are then only counted at first, to be read again
   * where the bytes may hold it (the return value).
   */
  protected countTextFirst(needle: string | undefined): boolean {
    if (needle !== this.filterFor) {
      this.filterFor = needle;
      this.filter = needle === undefined ? undefined : NeedleFilter.for(needle);
      this.kernels?.setNeedle(needle);
      this.mayHoldRun = 0;
    }
    this.filterOn = !!this.filter;
    // Where the needle is common (most timelines may hold it) the texts are read at once.
    return this.filterOn && this.mayHoldRun < MAY_HOLD_RUN;
  }

  /**
   * For search: the token texts joined and ASCII-lowercased, or the strings when not ASCII; an
   * empty text when the filter finds that the raw bytes cannot hold the needle.
   */
  protected searchText(tl: SearchText, n: number): void {
    const b = this.b,
      col = this.text,
      out = this.out;
    const joined = this.pending;
    this.pending = undefined;
    // The texts read as UTF-8 (the kernels decode them, the offsets count characters): bad bytes
    // there go to the decoder. Texts the filter rules out need no check: a bad byte is U+FFFD to
    // the decoder, never part of a match of an ASCII needle.
    if (joined || !this.filterOn) this.textUtf8();
    if (joined) {
      tl.joined = joined.joined;
      tl.ends = joined.ends;
      if (joined.found) {
        tl.found = joined.found;
        // A timeline without the needle: the next ones are counted first again.
        if (joined.found.matches === 0) this.mayHoldRun = 0;
      }
      return;
    }
    if (this.filterOn) {
      if (!this.filter!.mayHold(b, this.textAt, this.textEnd)) {
        this.mayHoldRun = 0;
        tl.joined = NO_TEXT;
        tl.ends = NO_ENDS;
        return;
      }
      this.mayHoldRun++;
      this.textUtf8();
    }
    if (!col.keep) {
      // Counted only: joined from the array's bytes by the kernels, or else the texts' positions
      // from a second read of the array (the same n texts).
      if (this.wasmOn && n > 0) {
        const j = this.kernels!.joinArray(this.textAt, n, !this.exportOn);
        if (j) {
          tl.joined = j.joined;
          tl.ends = j.ends;
          if (j.found) tl.found = j.found;
          return;
        }
      }
      col.keep = true;
      col.n = this.textsKnown = 0;
      this.array(this.textAt, col);
    }
    if (this.wasmOn && n > 0 && this.textsKnown === n) {
      // Views of the kernels' memory unless export output is written there too.
      const j = this.kernels!.join(n, !this.exportOn);
      if (j) {
        tl.joined = j.joined;
        tl.ends = j.ends;
        if (j.found) tl.found = j.found;
        return;
      }
    }
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

  /** Bails when the current timeline's text array is not valid UTF-8 (export checked the whole payload). */
  private textUtf8(): void {
    if (!this.exportOn && !isUtf8(this.b.subarray(this.textAt, this.textEnd))) throw BAIL;
  }

  protected searchStrings(tl: SearchText, n: number): void {
    this.out.o = 0;
    const texts = new Array<string>(n);
    for (let i = 0; i < n; i++) texts[i] = this.elementString(this.text, i);
    tl.texts = texts;
  }
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const NO_TEXT = Buffer.alloc(0);
/** After this many timelines in a row that may hold the needle, texts are read at once, not counted first. */
const MAY_HOLD_RUN = 8;
const NO_ENDS = new Int32Array(0);

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
