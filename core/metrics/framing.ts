// TFRecord framing of TensorBoard event files, checked as TensorBoard's record reader checks it:
//   uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data
// A header or data CRC that does not match is a damaged record: TensorBoard's loader stops reading
// the file there (DataLossError ends its Load loop) and retries from the same offset on the next
// reload, so nothing after it in that file is ever shown. Too few bytes for the whole record is a
// record still being written: wait for it.
import { buf as crc32cBuf } from 'crc-32/crc32c';

/** CRC-32C (Castagnoli), unsigned: SheetJS's crc-32 package (slicing-by-16 tables). */
export function crc32c(data: Uint8Array): number {
  return crc32cBuf(data) >>> 0;
}

/** TensorFlow's mask: rotate right by 15 bits and add a constant, so CRCs of CRCs stay distinct. */
export function maskCrc(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

export function maskedCrc32c(data: Uint8Array): number {
  return maskCrc(crc32c(data));
}

/** A record longer than this is not taken (its length is still checked by the header CRC first). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export interface RecordSpan {
  /** Byte offset of the record's header in the file. */
  offset: number;
  data: Uint8Array;
}

export type FrameStop =
  /** Not enough bytes yet for the next record: wait (the writer is still writing it). */
  | { kind: 'partial' }
  | { kind: 'header-crc'; offset: number }
  | { kind: 'data-crc'; offset: number; length: number }
  /** The header's CRC matches but the length is past MAX_RECORD_BYTES. */
  | { kind: 'too-long'; offset: number; length: number };

export interface FrameScan {
  records: RecordSpan[];
  /** File offset of the first byte not consumed (the next record's header). */
  next: number;
  /** Why the scan stopped before the end of `buf` (absent: every byte consumed). */
  stop?: FrameStop;
}

/**
 * Walks the whole, checked records of `buf` (the file's bytes from offset `base`), calling `each`
 * with each record's data span (start and length in `buf`) and file offset, without copying.
 * Stops at the first damaged record, as TensorBoard does.
 */
export function walkRecords(
  buf: Uint8Array,
  base: number,
  each: (start: number, length: number, offset: number) => void,
): Omit<FrameScan, 'records'> {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 0;
  while (pos < buf.length) {
    const at = base + pos;
    if (buf.length - pos < 12) return { next: at, stop: { kind: 'partial' } };
    if (maskedCrc32c(buf.subarray(pos, pos + 8)) !== view.getUint32(pos + 8, true))
      return { next: at, stop: { kind: 'header-crc', offset: at } };
    const lo = view.getUint32(pos, true);
    const hi = view.getUint32(pos + 4, true);
    const length = hi * 0x100000000 + lo;
    if (length > MAX_RECORD_BYTES) return { next: at, stop: { kind: 'too-long', offset: at, length } };
    if (buf.length - pos < 12 + length + 4) return { next: at, stop: { kind: 'partial' } };
    if (maskedCrc32c(buf.subarray(pos + 12, pos + 12 + length)) !== view.getUint32(pos + 12 + length, true))
      return { next: at, stop: { kind: 'data-crc', offset: at, length } };
    each(pos + 12, length, at);
    pos += 16 + length;
  }
  return { next: base + pos };
}

/**
 * Splits `buf` (the file's bytes from offset `base`) into whole, checked records. Records are views
 * into `buf`. Stops at the first damaged record, as TensorBoard does.
 */
export function scanRecords(buf: Uint8Array, base = 0): FrameScan {
  const records: RecordSpan[] = [];
  const r = walkRecords(buf, base, (start, length, offset) => records.push({ offset, data: buf.subarray(start, start + length) }));
  return { records, ...r };
}

/** One framed record (for tests and fixtures). */
export function frameRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length >>> 0, true);
  view.setUint32(4, Math.floor(data.length / 0x100000000), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}
