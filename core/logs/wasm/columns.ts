// AssemblyScript: the kernels of export (token texts, ids, logprobs, colours to masks); see kernels.ts.
import {
  HEX,
  MASKS,
  base,
  R_EQ,
  R_LEN,
  R_N,
  R_OUT,
  R_TRAINED,
  SEP_ERR,
  TABLE,
  canonicalEscape,
  isDigit,
  ld,
  load16,
  posE,
  posK,
  posS,
  sep,
  stopIn16,
} from './memory';
import { ibI, ibO, ibP, idBlocks } from './idblocks';

/** A kernel's exit: i elements taken, output up to o; r is what it returns. */
@inline function taken(i: i32, o: usize, r: i32): i32 {
  store<i32>(R_N, i);
  store<i32>(R_OUT, <i32>o);
  return r;
}

@external("env", "colorMask")
declare function colorMask(rgb: i32): i32;

/**
 * The token texts from element p (i texts read before it): their positions, and with `out`
 * non-zero their JSON copied there (a comma before each but the very first).
 */
export function text(p: i32, i: i32, out: usize): i32 {
  let o = out;
  const write = out != 0;
  for (;;) {
    if (ld(p) != 0x22) break;
    const mark = o;
    if (write) {
      if (i > 0) store<u8>(o++, 0x2c);
      store<u8>(o++, 0x22);
    }
    let q = p + 1;
    let esc = false;
    let ok = true;
    for (;;) {
      // 16 bytes at a time, copied whole (the output has room past its end); the string goes on
      // up to the first quote, backslash or NUL.
      const v = load16(q);
      const k = stopIn16(v);
      if (write) {
        v128.store(o, v);
        o += k;
      }
      q += k;
      if (k == 16) continue;
      const c = ld(q);
      if (c == 0x22) break;
      if (c == 0x5c) {
        const n = canonicalEscape(q);
        if (n == 0) {
          ok = false;
          break;
        }
        esc = true;
        if (write) {
          for (let j = 0; j < n; j++) store<u8>(o++, <u8>ld(q + j));
        }
        q += n;
        continue;
      }
      ok = false; // NUL
      break;
    }
    const next = !ok ? SEP_ERR : load<u32>(base + <usize>q) == 0x22202c22 ? q + 3 : sep(q + 1);
    if (next == SEP_ERR) {
      o = mark;
      break;
    }
    if (write) store<u8>(o++, 0x22);
    store<i32>(posS + (<usize>i << 2), p + 1);
    store<i32>(posE + (<usize>i << 2), q);
    store<u8>(posK + <usize>i, esc ? 2 : 1);
    i++;
    p = next;
    if (next < 0) break;
  }
  return taken(i, o, p);
}

/** Ids ("123": a canonical integer of up to 15 digits) for tokens i < n, as JSON numbers at `out`. */
export function ids(p: i32, n: i32, out: usize): i32 {
  let o = out;
  let i = 0;
  // After the blocks stop, this many elements one by one before they try again.
  let slow = 0;
  for (;;) {
    if (slow == 0 && n - i >= 13 && ld(p) == 0x22) {
      const r = idBlocks(p, i, n, o);
      o = ibO;
      i = ibI;
      if (r != -1) return taken(i, o, r);
      p = ibP;
      slow = 8;
    }
    if (slow > 0) slow--;
    if (i >= n || ld(p) != 0x22) break;
    const q0 = p + 1;
    const d = ld(q0);
    if (d == 48 ? ld(q0 + 1) != 0x22 : <u32>(d - 49) > 8) break;
    const mark = o;
    if (i > 0) store<u8>(o++, 0x2c);
    // The digits up to the first other byte, which must be the closing quote (at most 15 digits).
    const v = load16(q0);
    const digits = i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(10)));
    const k = ctz<i32>(~digits & 0xffff);
    v128.store(o, v);
    o += k;
    const q = q0 + k;
    // The usual separator `, ` and the next element's quote in one compare.
    const next = k >= 16 ? SEP_ERR : load<u32>(base + <usize>q) == 0x22202c22 ? q + 3 : ld(q) == 0x22 ? sep(q + 1) : SEP_ERR;
    if (next == SEP_ERR) {
      o = mark;
      break;
    }
    i++;
    p = next;
    if (next < 0) break;
  }
  return taken(i, o, p);
}

/** True when title b[s..e) equals token text i (both without escapes; known = texts with positions here). */
@inline function titleIsText(i: i32, known: i32, s: i32, e: i32): i32 {
  // 2: cannot tell here.
  if (i >= known || load<u8>(posK + <usize>i) != 1) return 2;
  const ts = load<i32>(posS + (<usize>i << 2)),
    te = load<i32>(posE + (<usize>i << 2));
  if (te - ts != e - s) return 0;
  for (let j = 0; j < e - s; j++) if (ld(ts + j) != ld(s + j)) return 0;
  return 1;
}

/**
 * The usual logprob, a "%.4f" decimal ("-0.1234") of at most 15 characters, at q (after the
 * quote), written at o as writeDecimal does (no trailing zeros; "-0" as "0") from a few masks
 * of one 16-byte load instead of a branch per character. Returns the output end and puts the
 * string's length in R_LEN; -1 (nothing written) for anything else, which the byte loop takes.
 */
@inline function simdDecimal(q: i32, o: usize): isize {
  const v = load16(q);
  const len = stopIn16(v);
  if (len >= 16 || len < 3 || ld(q + len) != 0x22) return -1;
  const lim = (1 << len) - 1;
  const digits = i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(10))) & lim;
  const dots = i8x16.bitmask(i8x16.eq(v, i8x16.splat(0x2e))) & lim;
  const neg = ld(q) == 0x2d ? 1 : 0;
  // One dot, a sign only in front, digits elsewhere.
  if (dots == 0 || (dots & (dots - 1)) != 0 || (~digits & lim) != (dots | neg)) return -1;
  const dot = ctz<i32>(dots);
  const intLen = dot - neg,
    fracLen = len - dot - 1;
  const lead = ld(q + neg);
  if (intLen < 1 || fracLen < 1 || (lead == 48 && intLen > 1) || intLen + fracLen > 15 || (lead == 48 && fracLen > 6)) return -1;
  // Up to the last fraction digit that is not 0; all zeros: up to the dot (an integer).
  const zeros = i8x16.bitmask(i8x16.eq(v, i8x16.splat(48)));
  const nz = lim & ~((2 << dot) - 1) & ~zeros;
  const end = nz != 0 ? 32 - clz<i32>(nz) : dot;
  v128.store(o, v);
  store<u8>(R_LEN, <u8>len);
  if (end == 2 && neg == 1 && lead == 48) {
    store<u8>(o, 48); // -0
    return o + 1;
  }
  return o + end;
}

/**
 * Logprobs for tokens i < n: "N/A" as null, decimals ("-0.1234") copied without trailing zeros
 * (JSON.stringify's shortest form; see writeDecimal in tokencolumns.ts for the rule). `eq`: the
 * titles so far equal the token texts (ASTune's tracker), tracked in R_EQ; `known`: how many
 * token texts have their positions here.
 */
export function logprobs(p: i32, n: i32, out: usize, eq: i32, known: i32): i32 {
  let o = out;
  let i = 0;
  for (;;) {
    if (i >= n || ld(p) != 0x22) break;
    if (eq == 0 && i > 0) {
      // A run of "N/A" each followed by `, "` (what the loggers write for tokens without a
      // logprob): 8 bytes compared at once, ",null" written at once.
      while (i < n && load<u64>(base + <usize>p) == 0x22202c22412f4e22) {
        store<u8>(o, 0x2c);
        store<u32>(o + 1, 0x6c6c756e);
        o += 5;
        p += 7;
        i++;
      }
      if (i >= n) break;
    }
    // Whether the titles still equal the texts, once this element is taken.
    let eqHere = eq;
    if (eq == 1) {
      let e = p + 1;
      while (ld(e) != 0x22 && ld(e) != 0x5c && ld(e) != 0) e++;
      if (ld(e) != 0x22) break;
      eqHere = titleIsText(i, known, p + 1, e);
      if (eqHere == 2) break;
    }
    const mark = o;
    if (i > 0) store<u8>(o++, 0x2c);
    const start = o;
    let q = p + 1;
    let d = ld(q);
    // "N/A" (one 4-byte compare, with the closing quote) before the decimal's masks.
    const na = load<u32>(base + <usize>q) == 0x22412f4e;
    const w = na ? -1 : simdDecimal(q, o);
    if (na) {
      store<u32>(o, 0x6c6c756e); // "null"
      o += 4;
      q += 3;
    } else if (w >= 0) {
      o = w;
      q += <i32>load<u8>(R_LEN);
    } else {
      if (d == 0x2d) {
        store<u8>(o++, <u8>d);
        d = ld(++q);
      }
      const i0 = q;
      if (d == 48) {
        store<u8>(o++, <u8>d);
        d = ld(++q);
      } else
        while (isDigit(d)) {
          store<u8>(o++, <u8>d);
          d = ld(++q);
        }
      const intLen = q - i0;
      let fracLen = 0;
      if (d == 0x2e) {
        const dot = o;
        store<u8>(o++, <u8>d);
        let keep = dot;
        d = ld(++q);
        while (isDigit(d)) {
          store<u8>(o++, <u8>d);
          if (d != 48) keep = o;
          d = ld(++q);
          fracLen++;
        }
        o = keep;
      }
      if (d != 0x22 || intLen == 0 || ld(q - 1) == 0x2e || intLen + fracLen > 15 || (ld(i0) == 48 && fracLen > 6)) {
        o = mark;
        break;
      }
      if (o - start == 2 && load<u8>(start) == 0x2d && load<u8>(start + 1) == 48) {
        store<u8>(start, 48);
        o = start + 1;
      }
    }
    const next = load<u32>(base + <usize>q) == 0x22202c22 ? q + 3 : sep(q + 1);
    if (next == SEP_ERR) {
      o = mark;
      break;
    }
    eq = eqHere;
    i++;
    p = next;
    if (next < 0) break;
    if (eq == 0 && w >= 0 && next == q + 3) {
      // A run of decimals of this one's shape (sign, digits before and after the dot), each
      // followed by `, "`: a logger's fixed format ("%.4f"). The next element is a constant
      // stride away, so finding it does not wait for this one's bytes (the loop above does: a
      // chain of loads and masks per element), and one compare per element checks the shape.
      const len = <i32>load<u8>(R_LEN);
      const v0 = load16(q - len);
      const lim = (1 << len) - 1;
      const digits0 = i8x16.bitmask(i8x16.lt_u(i8x16.sub(v0, i8x16.splat(48)), i8x16.splat(10))) & lim;
      const dot = ctz<i32>(i8x16.bitmask(i8x16.eq(v0, i8x16.splat(0x2e))));
      const neg = ld(q - len) == 0x2d ? 1 : 0;
      const intLen = dot - neg;
      // Past 6 fraction digits the 1e-6 rule looks at the value: the loop above takes those.
      if (len - dot - 1 <= 6) {
        const after = lim & ~((2 << dot) - 1);
        while (i < n && load<u32>(base + <usize>p + <usize>len + 1) == 0x22202c22) {
          const v = load16(p + 1);
          const digits = i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(10))) & lim;
          // Digits where the first had them, its sign and dot elsewhere.
          if (digits != digits0 || ((i8x16.bitmask(i8x16.eq(v, v0)) | digits) & lim) != lim) break;
          const lead = ld(p + 1 + neg);
          if (lead == 48 && intLen > 1) break;
          const nz = after & ~i8x16.bitmask(i8x16.eq(v, i8x16.splat(48)));
          store<u8>(o, 0x2c);
          v128.store(o + 1, v);
          if (nz != 0) o += 33 - clz<i32>(nz);
          else if (neg == 1 && intLen == 1 && lead == 48) {
            store<u8>(o + 1, 48); // -0
            o += 2;
          } else o += 1 + dot;
          i++;
          p += len + 4;
        }
      }
    }
  }
  store<i32>(R_EQ, eq);
  return taken(i, o, p);
}

@inline function hx(p: i32): u32 {
  return <u32>load<u8>(HEX + <usize>ld(p));
}

/** The mask of "#rrggbb" at s (after the quote), or 2 when it is not that. */
@inline function hexMask(s: i32): i32 {
  if (ld(s) != 0x23) return 2;
  // By table, without a branch per digit (a mix of digits and letters mispredicts).
  const h1 = hx(s + 1),
    h2 = hx(s + 2),
    h3 = hx(s + 3),
    h4 = hx(s + 4),
    h5 = hx(s + 5),
    h6 = hx(s + 6);
  if ((h1 | h2 | h3 | h4 | h5 | h6) & 0x80) return 2;
  const v = <i32>((h1 << 20) | (h2 << 16) | (h3 << 12) | (h4 << 8) | (h5 << 4) | h6);
  let m = <i32>load<u8>(TABLE + <usize>v);
  if (m == 0) {
    m = colorMask(v) + 2;
    store<u8>(TABLE + <usize>v, <u8>m);
  }
  return m - 2;
}

/**
 * Masks from colours ("#rrggbb") for tokens i < n: with `out` non-zero written there as JSON
 * (1, 0 or -1); the trained ones (mask 1) counted in R_TRAINED.
 */
export function mask(p: i32, n: i32, out: usize): i32 {
  let o = out;
  const write = out != 0;
  let i = 0,
    trained = 0;
  for (;;) {
    if (i >= n || ld(p) != 0x22) break;
    // The usual element: `"#rrggbb"` then `, "` (8 + 4 bytes, one compare for the separator), its
    // mask from the slot of its 8 bytes; no branch on the colour (they change from token to token).
    while (i < n && load<u32>(base + <usize>p + 8) == 0x22202c22) {
      const v = load<u64>(base + <usize>p + 1);
      const slot = MASKS + (<usize>((v * 0x9e3779b97f4a7c15) >> 52) << 4);
      let m: i32;
      if (load<u64>(slot) == v) m = load<i32>(slot + 8);
      else {
        m = hexMask(p + 1);
        if (m == 2) break;
        store<u64>(slot, v);
        store<i32>(slot + 8, m);
      }
      if (write) o = putMask(o, i, m);
      trained += <i32>(m == 1);
      i++;
      p += 11;
    }
    if (i >= n || ld(p + 8) != 0x22) break;
    const m = hexMask(p + 1);
    if (m == 2) break;
    const next = sep(p + 9);
    if (next == SEP_ERR) break;
    if (write) o = putMask(o, i, m);
    trained += <i32>(m == 1);
    i++;
    p = next;
    if (next < 0) break;
  }
  store<i32>(R_TRAINED, trained);
  return taken(i, o, p);
}

/** Writes mask m of element i as JSON at o (a comma before all but the first); the end. */
@inline function putMask(o: usize, i: i32, m: i32): usize {
  if (i > 0) store<u8>(o++, 0x2c);
  if (m == -1) {
    store<u16>(o, 0x312d); // "-1"
    return o + 2;
  }
  store<u8>(o, <u8>(48 + m));
  return o + 1;
}
