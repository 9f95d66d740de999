// AssemblyScript: the kernels of stats and search (count a skipped column; join and lowercase the
// token texts); see kernels.ts.
import { LOWER, R_N, R_OUT, SEP_ERR, hexAny, ld, load16, posE, posS, sep, stopIn16 } from './memory';

/** Counts string elements from p (i before it); positions are not kept. */
export function count(p: i32, i: i32): i32 {
  for (;;) {
    if (ld(p) != 0x22) break;
    let q = p + 1;
    for (;;) {
      const k = stopIn16(load16(q));
      q += k;
      if (k == 16) continue;
      const c = ld(q);
      if (c != 0x5c || ld(q + 1) == 0) break;
      q += 2;
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

/**
 * For search: token texts 0..n-1 (positions from text()) decoded, ASCII-lowercased and joined
 * at `out`, their end offsets (i32, relative to out) at `ends`. Returns n, or the first token
 * it cannot take (an escape other than what Python writes, a character whose lower case is not
 * itself), for the JavaScript path.
 */
export function join(n: i32, out: usize, ends: usize): i32 {
  let o = out;
  for (let i = 0; i < n; i++) {
    const s = load<i32>(posS + (<usize>i << 2)),
      e = load<i32>(posE + (<usize>i << 2));
    let q = s;
    while (q < e) {
      let c = ld(q);
      if (c < 0x80) {
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
          if (v < 0) return i;
          store<u8>(o++, <u8>(v >= 65 && v <= 90 ? v + 32 : v));
          q += 2;
          continue;
        }
        store<u8>(o++, <u8>(c >= 65 && c <= 90 ? c + 32 : c));
        q++;
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
      if (!lowerStable(cp)) return i;
      for (let j = 0; j < len; j++) store<u8>(o++, <u8>ld(q + j));
      q += len;
    }
    store<i32>(ends + (<usize>i << 2), <i32>(o - out));
  }
  store<i32>(R_OUT, <i32>o);
  return n;
}
