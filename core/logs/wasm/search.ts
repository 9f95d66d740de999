// AssemblyScript: the kernels of stats and search (count a skipped column; join and lowercase the
// token texts); see kernels.ts.
import { LOWER, R_END, R_FIRST, R_N, R_OUT, SEP_ERR, base, escapeLen, hexAny, isWs, ld, load16, posS, sep, stopIn16 } from './memory';

/** Bits of the bytes of the 16 at p equal to c (bit k: byte k). */
@inline function eq16(v: v128, c: u8): u64 {
  return <u64>i8x16.bitmask(i8x16.eq(v, i8x16.splat(c)));
}

/** x with each bit the XOR of itself and every bit below it: 1 from an opening quote up to its closing one. */
@inline function prefixXor(x: u64): u64 {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/** Bits of the bytes of the 64 at v0..v3 that may follow a backslash as a 2-byte escape ("\/bfnrt). */
@inline function escapeLetters(v0: v128, v1: v128, v2: v128, v3: v128): u64 {
  return letters16(v0) | (letters16(v1) << 16) | (letters16(v2) << 32) | (letters16(v3) << 48);
}

@inline function letters16(v: v128): u64 {
  const m = v128.or(
    v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))), i8x16.eq(v, i8x16.splat(0x2f))),
    v128.or(
      v128.or(i8x16.eq(v, i8x16.splat(0x62)), i8x16.eq(v, i8x16.splat(0x66))),
      v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x6e)), i8x16.eq(v, i8x16.splat(0x72))), i8x16.eq(v, i8x16.splat(0x74))),
    ),
  );
  return <u64>i8x16.bitmask(m);
}

// Where blocks() stopped: the next element's start and the elements before it.
let blockAt: i32 = 0;
let blockN: i32 = 0;

/**
 * The usual array of strings, 64 bytes at a time: from element p (i before it), as long as every
 * block holds only whole or continued strings (no NUL, no backslash that follows a backslash)
 * separated by `,` or `, ` and the array ends with `"]`. Returns ~(index after `]`) when it read the
 * array to its end, else -1 with blockAt/blockN at the last element start the blocks vouch for (the
 * element loop takes over there). What it accepts is what the element loop would accept.
 */
function blocks(p: i32, i: i32): i32 {
  let q = p;
  // At an element start: outside every string.
  let inStr: u64 = 0;
  // Bits carried from the previous block: its last byte escaped, a closing quote, a comma.
  let escIn: u64 = 0,
    closeIn: u64 = 0,
    commaIn: u64 = 0,
    spaceIn: u64 = 0;
  let lastOpen = p,
    beforeLast = i;
  // The first element's opening quote needs no comma before it.
  let first: u64 = 1;
  for (;;) {
    const v0 = load16(q),
      v1 = load16(q + 16),
      v2 = load16(q + 32),
      v3 = load16(q + 48);
    // NUL or backslash anywhere in the block: one test for the 64 bytes (most blocks have neither).
    const z = i8x16.splat(0),
      b5c = i8x16.splat(0x5c);
    let bs: u64 = 0;
    if (
      v128.any_true(
        v128.or(
          v128.or(v128.or(i8x16.eq(v0, z), i8x16.eq(v0, b5c)), v128.or(i8x16.eq(v1, z), i8x16.eq(v1, b5c))),
          v128.or(v128.or(i8x16.eq(v2, z), i8x16.eq(v2, b5c)), v128.or(i8x16.eq(v3, z), i8x16.eq(v3, b5c))),
        ),
      )
    ) {
      const nul = eq16(v0, 0) | (eq16(v1, 0) << 16) | (eq16(v2, 0) << 32) | (eq16(v3, 0) << 48);
      if (nul != 0) break;
      bs = eq16(v0, 0x5c) | (eq16(v1, 0x5c) << 16) | (eq16(v2, 0x5c) << 32) | (eq16(v3, 0x5c) << 48);
    }
    // A run of backslashes: the element loop counts them.
    if ((bs & ((bs << 1) | escIn)) != 0) break;
    const escaped = (bs << 1) | escIn;
    // An escaped byte other than one of "\/bfnrt (a \u, an invalid escape): the element loop judges it.
    if (escaped != 0 && (escaped & ~escapeLetters(v0, v1, v2, v3)) != 0) break;
    const quote = (eq16(v0, 0x22) | (eq16(v1, 0x22) << 16) | (eq16(v2, 0x22) << 32) | (eq16(v3, 0x22) << 48)) & ~escaped;
    const str = prefixXor(quote) ^ inStr;
    const open = quote & str,
      close = quote & ~str;
    const outside = ~str & ~quote;
    const comma = (eq16(v0, 0x2c) | (eq16(v1, 0x2c) << 16) | (eq16(v2, 0x2c) << 32) | (eq16(v3, 0x2c) << 48)) & outside;
    const space = (eq16(v0, 0x20) | (eq16(v1, 0x20) << 16) | (eq16(v2, 0x20) << 32) | (eq16(v3, 0x20) << 48)) & outside;
    const b5d = i8x16.splat(0x5d);
    const rb = v128.any_true(v128.or(v128.or(i8x16.eq(v0, b5d), i8x16.eq(v1, b5d)), v128.or(i8x16.eq(v2, b5d), i8x16.eq(v3, b5d))))
      ? (eq16(v0, 0x5d) | (eq16(v1, 0x5d) << 16) | (eq16(v2, 0x5d) << 32) | (eq16(v3, 0x5d) << 48)) & outside
      : 0;
    // Up to the first `]` outside a string (the array's end), or the whole block.
    const end = ctz<u64>(rb);
    const lim: u64 = end >= 64 ? ~(<u64>0) : (<u64>1 << end) - 1;
    const endBit: u64 = end >= 64 ? 0 : <u64>1 << end;
    const after = (close << 1) | closeIn;
    const ok =
      // Outside the strings only commas and spaces before the end.
      (outside & lim & ~(comma | space)) == 0 &&
      // A comma right after a closing quote, a closing quote followed by a comma or the end.
      (comma & lim & ~after) == 0 &&
      ((after & (lim | endBit)) & ~(comma | endBit)) == 0 &&
      (endBit & ~after) == 0 &&
      // A space only right after a comma; an opening quote right after a comma or a comma and a space.
      (space & lim & ~((comma << 1) | commaIn)) == 0 &&
      (open & lim & ~((comma << 1) | commaIn | (space << 1) | spaceIn | first)) == 0;
    if (!ok) break;
    if (end < 64) {
      // The array ends here: every element opened before it is whole.
      blockN = i + <i32>popcnt<u64>(open & lim);
      return ~(q + <i32>end + 1);
    }
    // A closing quote in the last byte has its separator in the next block (checked through closeIn).
    const opens = <i32>popcnt<u64>(open);
    if (opens > 0) {
      const top = 63 - <i32>clz<u64>(open);
      lastOpen = q + top;
      beforeLast = i + opens - 1;
    }
    i += opens;
    inStr = (str >> 63) != 0 ? ~(<u64>0) : 0;
    escIn = bs >> 63;
    closeIn = close >> 63;
    commaIn = comma >> 63;
    spaceIn = space >> 63;
    first = 0;
    q += 64;
  }
  blockAt = lastOpen;
  blockN = beforeLast;
  return -1;
}

/** Counts string elements from p (i before it); positions are not kept. */
export function count(p: i32, i: i32): i32 {
  // After the blocks stop, this many elements one by one before the blocks try again.
  let slow = 0;
  for (;;) {
    if (slow == 0 && ld(p) == 0x22) {
      const r = blocks(p, i);
      if (r != -1) {
        // ~(index after `]`): the whole array.
        store<i32>(R_N, blockN);
        return r;
      }
      p = blockAt;
      i = blockN;
      slow = 8;
    }
    if (slow > 0) slow--;
    if (ld(p) != 0x22) break;
    let q = p + 1;
    for (;;) {
      const k = stopIn16(load16(q));
      q += k;
      if (k == 16) continue;
      if (ld(q) != 0x5c) break;
      const n = escapeLen(q);
      if (n == 0) break;
      q += n;
    }
    if (ld(q) != 0x22) break;
    const next = sep(q + 1);
    if (next == SEP_ERR) break;
    i++;
    p = next;
    if (next < 0) break;
  }
  store<i32>(R_N, i);
  return p;
}

/**
 * True when toLowerCase() leaves the code point as it is: the engine's table for the BMP, and
 * the emoji and CJK extension planes (no case there; the unit test checks every code point).
 */
export function lowerStable(c: i32): bool {
  if (c < 0x10000) return ((load<u8>(LOWER + (<usize>c >> 3)) >> (<u8>c & 7)) & 1) != 0;
  return (c >= 0x1f000 && c <= 0x1faff) || (c >= 0x20000 && c <= 0x3ffff);
}

// Where joinToken() stopped: the token's closing quote, and the output end.
let jq: i32 = 0;
let jo: usize = 0;

/**
 * One token text from q (after its opening quote) up to its closing quote, decoded,
 * ASCII-lowercased and copied at o; jq and jo where it stopped. False at an escape other than what
 * Python writes or a character whose lower case is not itself (the JavaScript path decides).
 */
@inline function joinToken(q: i32, o: usize): bool {
  for (;;) {
    // 16 bytes at a time up to the first quote, backslash or non-ASCII byte: ASCII-lowercased and
    // stored whole (the output has room past its end), kept up to that byte.
    const v = load16(q);
    const up = v128.and(i8x16.lt_u(i8x16.sub(v, i8x16.splat(65)), i8x16.splat(26)), i8x16.splat(0x20));
    v128.store(o, v128.or(v, up));
    const stop = ctz<i32>(
      i8x16.bitmask(
        v128.or(v128.or(v128.or(v, i8x16.eq(v, i8x16.splat(0x5c))), i8x16.eq(v, i8x16.splat(0x22))), i8x16.eq(v, i8x16.splat(0))),
      ) | 0x10000,
    );
    o += stop;
    q += stop;
    if (stop == 16) continue;
    const c = ld(q);
    if (c == 0x22) break;
    // A NUL: in the string (the JavaScript path takes it) or the end of the payload.
    if (c == 0) return false;
    if (c == 0x5c) {
      const x = ld(q + 1);
      let v = -1;
      if (x == 0x22 || x == 0x5c || x == 0x2f) v = x;
      else if (x == 0x6e) v = 10;
      else if (x == 0x74) v = 9;
      else if (x == 0x72) v = 13;
      else if (x == 0x62) v = 8;
      else if (x == 0x66) v = 12;
      else if (x == 0x75 && ld(q + 2) == 0x30 && ld(q + 3) == 0x30 && <u32>(ld(q + 4) - 48) <= 7) {
        const lo = hexAny(ld(q + 5));
        if (lo >= 0) v = ((ld(q + 4) - 48) << 4) | lo;
        if (v >= 0) {
          store<u8>(o++, <u8>(v >= 65 && v <= 90 ? v + 32 : v));
          q += 6;
          continue;
        }
      }
      if (v < 0) return false;
      store<u8>(o++, <u8>(v >= 65 && v <= 90 ? v + 32 : v));
      q += 2;
      continue;
    }
    // A UTF-8 sequence (valid: the payload was checked): copied when its lower case is itself.
    let len = 2,
      cp = c & 0x1f;
    if (c >= 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else if (c >= 0xe0) {
      len = 3;
      cp = c & 0x0f;
    }
    for (let j = 1; j < len; j++) cp = (cp << 6) | (ld(q + j) & 0x3f);
    if (!lowerStable(cp)) return false;
    for (let j = 0; j < len; j++) store<u8>(o++, <u8>ld(q + j));
    q += len;
  }
  jq = q;
  jo = o;
  return true;
}

/**
 * For search: token texts 0..n-1 (positions from text()) decoded, ASCII-lowercased and joined
 * at `out`, their end offsets (i32, relative to out) at `ends`. Returns n, or the first token
 * it cannot take (an escape other than what Python writes, a character whose lower case is not
 * itself), for the JavaScript path.
 */
export function join(n: i32, out: usize, ends: usize): i32 {
  let o = out;
  for (let i = 0; i < n; i++) {
    // A token's closing quote is at its end position (a quote inside it is escaped).
    if (!joinToken(load<i32>(posS + (<usize>i << 2)), o)) return i;
    o = jo;
    store<i32>(ends + (<usize>i << 2), <i32>(o - out));
  }
  store<i32>(R_OUT, <i32>o);
  return n;
}

/**
 * join() straight from the text array at p (its `[`, not empty), whose n strings count() has read
 * (no positions needed): n, or -1 when anything is not as join() would take it (the caller reads
 * the positions and joins them). With n < 0, the strings are not counted yet: up to the array's
 * end, their count (R_END: the index after `]`), or -1 at anything else.
 */
export function joinArray(p: i32, n: i32, out: usize, ends: usize): i32 {
  let o = out;
  let q = p + 1;
  while (isWs(ld(q))) q++;
  for (let i = 0; n < 0 || i < n; i++) {
    if (ld(q) != 0x22 || !joinToken(q + 1, o)) return -1;
    o = jo;
    store<i32>(ends + (<usize>i << 2), <i32>(o - out));
    const next = load<u32>(base + <usize>jq) == 0x22202c22 ? jq + 3 : sep(jq + 1);
    if (next == SEP_ERR) return -1;
    if (n < 0) {
      if (next < 0) {
        store<i32>(R_END, ~next);
        n = i + 1;
        break;
      }
    } else if ((next < 0) != (i == n - 1)) return -1;
    q = next;
  }
  store<i32>(R_OUT, <i32>o);
  return n;
}

/**
 * For search: the matches of the needle at `nd` (len > 0 bytes) in [s, e), counted as
 * Buffer.indexOf finds them one after the other (without overlaps), the first one's offset from s
 * in R_FIRST (-1 for none). Candidates are where the needle's first and last bytes both match, 16
 * starts at a time. Reads up to len + 15 bytes past e.
 */
export function find(s: i32, e: i32, nd: i32, len: i32): i32 {
  const vf = i8x16.splat(load<u8>(<usize>nd)),
    vl = i8x16.splat(load<u8>(<usize>(nd + len - 1)));
  let count = 0,
    first = -1;
  let q = s;
  const last = e - len;
  while (q <= last) {
    let m = i8x16.bitmask(v128.and(i8x16.eq(v128.load(<usize>q), vf), i8x16.eq(v128.load(<usize>(q + len - 1)), vl)));
    // Only starts up to the last one that fits.
    if (last - q < 15) m &= (1 << (last - q + 1)) - 1;
    let next = q + 16;
    while (m != 0) {
      const c = q + ctz<i32>(m);
      let j = 1;
      while (j < len - 1 && load<u8>(<usize>(c + j)) == load<u8>(<usize>(nd + j))) j++;
      if (j >= len - 1) {
        count++;
        if (first < 0) first = c - s;
        // The next match starts after this one.
        next = c + len;
        break;
      }
      m &= m - 1;
    }
    q = next;
  }
  store<i32>(R_FIRST, first);
  return count;
}
