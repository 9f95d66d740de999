// Search's first look at a timeline's raw token text (the JSON bytes of its `text` array): when
// the bytes cannot hold a match of the needle, the timeline is not joined and lowercased at all.
//
// Why a miss is certain. The needle is lower case, printable ASCII, without '"', '\' or '/'. The
// only non-ASCII characters whose toLowerCase() holds ASCII are U+0130 ('İ' -> "i̇") and U+212A
// (Kelvin sign -> "k"), and the only JSON escapes that give a needle's character are \uXXXX:
// without those in the bytes, each character of a match is its own byte (either case) in the
// raw text. Two neighbours of a match are then neighbours in one token (adjacent bytes), or the
// last character of a token and the first of a later one (that byte before a quote, and one
// after a quote, somewhere). A character of the needle missing from the bytes, or a pair of it
// with neither, is a miss for the timeline.

const QUOTE = 0x22;

interface Pair {
  /** Both bytes side by side, every case. */
  adjacent: Buffer[];
  /** The first byte before a quote, every case. */
  ends: Buffer[];
  /** The second byte after a quote, every case. */
  starts: Buffer[];
}

/** Raw bytes that, when present, leave a match possible whatever the rest says. */
const ESCAPE_U = Buffer.from('\\u');
const DOTTED_I = Buffer.from('\u0130');
const KELVIN = Buffer.from('\u212a');

function cases(c: number): number[] {
  return c >= 0x61 && c <= 0x7a ? [c, c - 32] : [c];
}

export class NeedleFilter {
  private readonly pairs: Pair[] = [];
  /** Each character of the needle as its bytes, every case (a byte search each: the cheap test first). */
  private readonly chars: number[][];
  private readonly watchI: boolean;
  private readonly watchK: boolean;

  private constructor(needle: string) {
    const codes = [...needle].map((ch) => ch.charCodeAt(0));
    this.watchI = codes.includes(0x69);
    this.watchK = codes.includes(0x6b);
    this.chars = [...new Set(codes)].map(cases);
    for (let i = 0; i + 1 < codes.length; i++) {
      const a = cases(codes[i]!),
        b = cases(codes[i + 1]!);
      this.pairs.push({
        adjacent: a.flatMap((x) => b.map((y) => Buffer.from([x, y]))),
        ends: a.map((x) => Buffer.from([x, QUOTE])),
        starts: b.map((y) => Buffer.from([QUOTE, y])),
      });
    }
  }

  /** A filter for `needle` (lower case), or undefined when it is not one the filter can rule out. */
  static for(needle: string): NeedleFilter | undefined {
    if (!needle) return undefined;
    for (let i = 0; i < needle.length; i++) {
      const c = needle.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === 0x5c || c === 0x2f || (c >= 0x41 && c <= 0x5a)) return undefined;
    }
    return new NeedleFilter(needle);
  }

  /** False when the token text in b[s, e) (the raw JSON of the text array) cannot hold the needle. */
  mayHold(b: Buffer, s: number, e: number): boolean {
    const r = b.subarray(s, e);
    if (this.bytesMayHold(r)) return true;
    // A miss by the bytes alone; escapes and the two special letters could still make a match
    // (looked for only now: a common needle is found without reading the whole text).
    return r.indexOf(ESCAPE_U) >= 0 || (this.watchI && r.indexOf(DOTTED_I) >= 0) || (this.watchK && r.indexOf(KELVIN) >= 0);
  }

  private bytesMayHold(r: Buffer): boolean {
    for (const c of this.chars) if (!c.some((x) => r.indexOf(x) >= 0)) return false;
    for (const p of this.pairs) {
      if (p.adjacent.some((x) => r.indexOf(x) >= 0)) continue;
      if (p.ends.some((x) => r.indexOf(x) >= 0) && p.starts.some((x) => r.indexOf(x) >= 0)) continue;
      return false;
    }
    return true;
  }
}
