// SwanLab's local run file, framed as SwanLab's own DataStore frames it (checked against SwanHubX/
// SwanLab v0.7.11 `swanlab/data/porter/datastore.py`, the version AgentJet 0.0.4 pins in
// requirements_stable_vllm.txt, and v0.9.7 `swanlab/sdk/internal/core_python/store/__init__.py`):
// LevelDB's log format with a file header of its own.
//   file header (7 bytes): ":SWL" | uint16 LE 0xE1D6 | uint8 version (1: JSON lines, 0.6.8-0.7.x; 2: protobuf Record, 0.8+; 0 of 0.6.2-0.6.7 is not read)
//   then 32 KB blocks of records: uint32 LE CRC-32 (zlib's, of the type byte then the data) |
//   uint16 LE length | uint8 type (1 full, 2 first, 3 middle, 4 last) | data
// A block whose space left is under 7 bytes is padded with zeros. A record whose CRC fails ends the
// reading of the file (SwanLab's readers stop there too); too few bytes for the next record, or a
// first chunk whose last has not arrived, is a record still being written: wait for it.
import { buf as crc32Buf } from 'crc-32';

export const SWL_HEADER_LEN = 7;
export const SWL_BLOCK = 32768;
export const SWL_MAGIC = 0xe1d6;
/** A logical record longer than this (chunks joined) is not taken: a scalar record is under 1 KB. */
export const SWL_MAX_RECORD = 16 * 1024 * 1024;

export const SWL_TYPE_CRC = [0, 1, 2, 3, 4].map((x) => crc32Buf(Uint8Array.of(x)));

export type SwlStop =
  | { kind: 'partial' }
  | { kind: 'not-swanlab'; offset: 0 }
  | { kind: 'version'; offset: 0; version: number }
  | { kind: 'crc'; offset: number }
  | { kind: 'bad-chunk'; offset: number }
  | { kind: 'too-long'; offset: number; length: number };

export interface SwlScan {
  version?: number;
  records: { offset: number; data: Uint8Array }[];
  /** File offset of the first byte not consumed: where the next read starts. */
  next: number;
  stop?: SwlStop;
}

/** The file header: its version, or why the bytes are not a SwanLab run file (undefined: not enough bytes yet). */
export function readSwlHeader(buf: Uint8Array): { version: number } | SwlStop | undefined {
  const ident = String.fromCharCode(...buf.subarray(0, 4));
  if (buf.length < SWL_HEADER_LEN) return ':SWL'.startsWith(ident) ? undefined : { kind: 'not-swanlab', offset: 0 };
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (ident !== ':SWL' || view.getUint16(4, true) !== SWL_MAGIC) return { kind: 'not-swanlab', offset: 0 };
  const version = buf[6]!;
  if (version !== 1 && version !== 2) return { kind: 'version', offset: 0, version };
  return { version };
}

/**
 * Splits `buf` (the file's bytes from offset `base`, base >= 7: after the header) into whole,
 * checked logical records (chunks joined). Stops at the first damaged chunk.
 */
export function scanSwl(buf: Uint8Array, base: number): SwlScan {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const records: SwlScan['records'] = [];
  let pos = 0;
  // The logical record being assembled: where it started (in buf) and its chunks.
  let startPos = -1;
  let parts: Uint8Array[] = [];
  let partLen = 0;
  const consumed = () => base + (startPos >= 0 ? startPos : pos);
  while (pos < buf.length) {
    const at = base + pos;
    const left = SWL_BLOCK - (at % SWL_BLOCK);
    if (left < SWL_HEADER_LEN) {
      if (buf.length - pos < left) return { records, next: consumed(), stop: { kind: 'partial' } };
      for (let i = 0; i < left; i++) if (buf[pos + i] !== 0) return { records, next: consumed(), stop: { kind: 'bad-chunk', offset: at } };
      pos += left;
      continue;
    }
    if (buf.length - pos < SWL_HEADER_LEN) return { records, next: consumed(), stop: { kind: 'partial' } };
    const crc = view.getUint32(pos, true);
    const len = view.getUint16(pos + 4, true);
    const type = buf[pos + 6]!;
    // The writer never lets a chunk cross its block, and uses types 1-4 only.
    if (type < 1 || type > 4 || SWL_HEADER_LEN + len > left) return { records, next: consumed(), stop: { kind: 'bad-chunk', offset: at } };
    if (buf.length - pos < SWL_HEADER_LEN + len) return { records, next: consumed(), stop: { kind: 'partial' } };
    const data = buf.subarray(pos + SWL_HEADER_LEN, pos + SWL_HEADER_LEN + len);
    if (crc32Buf(data, SWL_TYPE_CRC[type]) >>> 0 !== crc) return { records, next: consumed(), stop: { kind: 'crc', offset: at } };
    if (type === 1) {
      if (startPos >= 0) return { records, next: consumed(), stop: { kind: 'bad-chunk', offset: at } };
      records.push({ offset: at, data });
    } else if (type === 2) {
      if (startPos >= 0) return { records, next: consumed(), stop: { kind: 'bad-chunk', offset: at } };
      startPos = pos;
      parts = [data];
      partLen = len;
    } else {
      if (startPos < 0) return { records, next: consumed(), stop: { kind: 'bad-chunk', offset: at } };
      parts.push(data);
      partLen += len;
      if (partLen > SWL_MAX_RECORD)
        return { records, next: consumed(), stop: { kind: 'too-long', offset: base + startPos, length: partLen } };
      if (type === 4) {
        records.push({ offset: base + startPos, data: Buffer.concat(parts) });
        startPos = -1;
        parts = [];
        partLen = 0;
      }
    }
    pos += SWL_HEADER_LEN + len;
  }
  if (startPos >= 0) return { records, next: base + startPos, stop: { kind: 'partial' } };
  return { records, next: base + pos };
}
