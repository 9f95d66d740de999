// AssemblyScript: the usual ids array (`"123", "45", ...`) 64 bytes at a time for ids() (columns.ts):
// every byte of a window classified at once, the elements it vouches for written with their
// digits and commas kept and the rest dropped (no per-element chain of loads and branches).
import { COMPRESS, load16 } from './memory';

let compressReady = false;

/** The table of kept-lane indexes per 8-bit mask (once per instance). */
function initCompress(): void {
  for (let m = 0; m < 256; m++) {
    let k: usize = 0;
    for (let b = 0; b < 8; b++)
      if (((m >> b) & 1) != 0) {
        store<u8>(COMPRESS + (<usize>m << 3) + k, <u8>b);
        k++;
      }
  }
  compressReady = true;
}

@inline function eq64(v0: v128, v1: v128, v2: v128, v3: v128, c: u8): u64 {
  const s = i8x16.splat(c);
  return (
    <u64>i8x16.bitmask(i8x16.eq(v0, s)) |
    (<u64>i8x16.bitmask(i8x16.eq(v1, s)) << 16) |
    (<u64>i8x16.bitmask(i8x16.eq(v2, s)) << 32) |
    (<u64>i8x16.bitmask(i8x16.eq(v3, s)) << 48)
  );
}

@inline function digits16(v: v128): u64 {
  return <u64>i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(10)));
}

/** The bytes of v whose bit is set in m (16 bits), stored from o in order; the new end. */
@inline function compress16(v: v128, m: i32, o: usize): usize {
  const lo = m & 0xff,
    hi = (m >> 8) & 0xff;
  const il = i64x2.splat(load<u64>(COMPRESS + (<usize>lo << 3)));
  store<u64>(o, i64x2.extract_lane(i8x16.swizzle(v, il), 0));
  o += <usize>popcnt<i32>(lo);
  const ih = i8x16.add(i64x2.splat(load<u64>(COMPRESS + (<usize>hi << 3))), i8x16.splat(8));
  store<u64>(o, i64x2.extract_lane(i8x16.swizzle(v, ih), 0));
  return o + <usize>popcnt<i32>(hi);
}

// Where idBlocks() stopped: the next element, the elements before it, the output end.
export let ibP: i32 = 0;
export let ibI: i32 = 0;
export let ibO: usize = 0;

/**
 * From element p (i before it, its opening quote at p; at least 13 elements left before n), the
 * usual elements `"digits"` (a canonical integer of up to 15 digits) separated by `, `: written at
 * o as ids() writes them (a comma before each but the very first). Returns ~(index after `]`) when
 * the array ends within them, else -1 with ibP/ibI/ibO at the first element it does not vouch for.
 */
export function idBlocks(p: i32, i: i32, n: i32, o: usize): i32 {
  if (!compressReady) initCompress();
  let q = p;
  // Each window's elements are written with the comma after each: the comma before the first
  // one here, and none after the last one at a stop (the element loop writes it).
  if (i > 0) store<u8>(o++, 0x2c);
  while (n - i >= 13) {
    const v0 = load16(q),
      v1 = load16(q + 16),
      v2 = load16(q + 32),
      v3 = load16(q + 48);
    const Q = eq64(v0, v1, v2, v3, 0x22),
      C = eq64(v0, v1, v2, v3, 0x2c),
      S = eq64(v0, v1, v2, v3, 0x20),
      Z = eq64(v0, v1, v2, v3, 0x30),
      RB = eq64(v0, v1, v2, v3, 0x5d);
    const D = digits16(v0) | (digits16(v1) << 16) | (digits16(v2) << 32) | (digits16(v3) << 48);
    // No backslash can be in a window that passes: a quote after a digit closes, any other opens.
    const close = Q & (D << 1),
      open = Q & ~close;
    let runs = D & (D >> 1);
    runs &= runs >> 2;
    runs &= runs >> 4;
    runs &= runs >> 8;
    const bad =
      ~(Q | D | C | S | RB) |
      // A digit after a digit or an opening quote; a digit after the opening quote; no leading zero.
      (D & ~((D << 1) | (open << 1))) |
      ((open << 1) & ~D) |
      ((((open << 1) & Z) << 1) & D) |
      // A closing quote, then `, ` and an opening quote (or the array's end); what else follows a
      // digit or a comma makes a later byte bad, before the next opening quote.
      ((close << 1) & ~(C | RB)) |
      (C & ~(close << 1)) |
      (S & ~(C << 1)) |
      ((S << 1) & ~open) |
      (open & ~(<u64>1) & ~(S << 1)) |
      // 16 digits or more.
      runs;
    const endAt = ctz<u64>((close << 1) & RB);
    const endBit: u64 = endAt >= 64 ? 0 : (<u64>1) << endAt;
    const firstBad = ctz<u64>(bad & ~endBit);
    if (endAt < 64 && firstBad > endAt) {
      // The array ends here: every element before it is whole.
      const lim: u64 = ((<u64>1) << endAt) - 1;
      o = writeKept(v0, v1, v2, v3, (D | C) & lim, o);
      ibI = i + <i32>popcnt<u64>(open & lim);
      ibO = o;
      return ~(q + <i32>endAt + 1);
    }
    // Up to the last opening quote before the first bad byte.
    const below: u64 = firstBad >= 64 ? ~(<u64>0) : ((<u64>1) << firstBad) - 1;
    const opens = open & below;
    const last = 63 - <i32>clz<u64>(opens);
    if (last <= 0) break;
    const lim: u64 = ((<u64>1) << last) - 1;
    o = writeKept(v0, v1, v2, v3, (D | C) & lim, o);
    i += <i32>popcnt<u64>(opens & lim);
    q += last;
  }
  // The comma before the next element is the element loop's.
  if (i > 0) o--;
  ibP = q;
  ibI = i;
  ibO = o;
  return -1;
}

@inline function writeKept(v0: v128, v1: v128, v2: v128, v3: v128, k: u64, o: usize): usize {
  o = compress16(v0, <i32>(k & 0xffff), o);
  o = compress16(v1, <i32>((k >> 16) & 0xffff), o);
  o = compress16(v2, <i32>((k >> 32) & 0xffff), o);
  return compress16(v3, <i32>(k >> 48), o);
}
