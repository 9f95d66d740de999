// AssemblyScript: the memory layout of the kernels and the byte-level helpers they share (see
// kernels.ts). The layout's addresses are exported so that the JavaScript side (core/logs/kernels.ts)
// reads them from the module instead of repeating them.
// Result slots (i32): elements taken (the column's count), output end, trained tokens, title = text.
export const RES: usize = 0;
export const R_N: usize = RES,
  R_OUT: usize = RES + 4,
  R_TRAINED: usize = RES + 8,
  R_EQ: usize = RES + 12,
  // The string length simdDecimal read (a byte).
  R_LEN: usize = RES + 16,
  // The offset of find()'s first match, -1 for none.
  R_FIRST: usize = RES + 20,
  // Where joinArray() of an array not counted yet ended (the index after its `]`).
  R_END: usize = RES + 24;
// Colour masks by 24-bit colour: mask + 2, 0 when not looked up yet (from JS, once per colour).
export const TABLE: usize = 1024;
// Bits of the code points below 0x10000 whose toLowerCase() is themselves, written from JS (the
// engine decides; Kernels.lowerTable), 8 KB.
export const LOWER: usize = TABLE + (1 << 24);
// Hex digit values by byte, 0x80 for bytes that are not hex digits (256 bytes, from JS).
export const HEX: usize = LOWER + 8192;
// Colour masks by the 8 bytes `#rrggbb"` of a colour element, direct-mapped by a hash: 4096
// slots of the 8 bytes (0: empty; a colour starts with '#') and the mask (i32), 16 bytes each.
export const MASKS: usize = HEX + 256;
// For each 8-bit mask, the indexes of its set bits in order (8 bytes each): the ids blocks' compaction.
export const COMPRESS: usize = MASKS + (4096 << 4);
// Where the memory of one payload starts (input, output, positions: laid out by kernels.ts in JS).
export const FREE: usize = COMPRESS + 2048;

/** Where the payload is, and the text positions of the current timeline (start, end, kind). */
export let base: usize = 0;
export let posS: usize = 0;
export let posE: usize = 0;
export let posK: usize = 0;

export function setInput(payload: usize, s: usize, e: usize, k: usize): void {
  base = payload;
  posS = s;
  posE = e;
  posK = k;
}

@inline export function ld(p: i32): i32 {
  return <i32>load<u8>(base + <usize>p);
}

@inline export function isWs(c: i32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

@inline export function isDigit(c: i32): bool {
  return <u32>(c - 48) <= 9;
}

/**
 * The index (0-15) of the first quote, backslash or NUL among the 16 bytes at p, or 16: one
 * SIMD step instead of a branch per byte (what costs is the mispredicted end of each string).
 * The payload is followed by enough zero bytes for the last load.
 */
@inline export function stopIn16(v: v128): i32 {
  const m = i8x16.bitmask(
    v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))), i8x16.eq(v, i8x16.splat(0))),
  );
  return ctz<i32>(m | 0x10000);
}

@inline export function load16(p: i32): v128 {
  return v128.load(base + <usize>p);
}

// Stops of sep(): an error is reported as this (the caller stops before the element).
export const SEP_ERR: i32 = 0x7fffffff;

/** After an element ending before p: the next element's index, ~(after `]`), or SEP_ERR. */
@inline export function sep(p: i32): i32 {
  let c = ld(p);
  if (c == 0x2c) {
    c = ld(++p);
    if (c == 0x20) c = ld(++p);
    while (isWs(c)) c = ld(++p);
    return p;
  }
  if (c == 0x5d) return ~(p + 1);
  while (isWs(c)) c = ld(++p);
  if (c == 0x2c) {
    c = ld(++p);
    while (isWs(c)) c = ld(++p);
    return p;
  }
  if (c == 0x5d) return ~(p + 1);
  return SEP_ERR;
}

@inline export function hexLow(c: i32): i32 {
  if (isDigit(c)) return c - 48;
  if (<u32>(c - 97) <= 5) return c - 87;
  return -1;
}

@inline export function hexAny(c: i32): i32 {
  if (isDigit(c)) return c - 48;
  if (<u32>(c - 97) <= 5) return c - 87;
  if (<u32>(c - 65) <= 5) return c - 55;
  return -256;
}

/** The length of the escape at p (a backslash) when JSON allows it: 2, or 6 for \\uXXXX; else 0. */
@inline export function escapeLen(p: i32): i32 {
  const c = ld(p + 1);
  if (c == 0x22 || c == 0x5c || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74) return 2;
  if (c == 0x75 && (hexAny(ld(p + 2)) | hexAny(ld(p + 3)) | hexAny(ld(p + 4)) | hexAny(ld(p + 5))) >= 0) return 6;
  return 0;
}

/**
 * The length of the escape at p (a backslash) when JSON.stringify writes it the same way (what
 * Python's json writes with ensure_ascii=False), else 0.
 */
@inline export function canonicalEscape(p: i32): i32 {
  const c = ld(p + 1);
  if (c == 0x22 || c == 0x5c || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74) return 2;
  if (c == 0x75 && ld(p + 2) == 0x30 && ld(p + 3) == 0x30) {
    const hi = ld(p + 4);
    const lo = hexLow(ld(p + 5));
    if ((hi == 0x30 || hi == 0x31) && lo >= 0) {
      const v = (hi == 0x31 ? 16 : 0) + lo;
      if (v != 8 && v != 9 && v != 10 && v != 12 && v != 13) return 6;
    }
  }
  return 0;
}
