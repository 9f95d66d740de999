// Every zlib payload of a log is inflated here, with a bound on what it may inflate to: a record
// of a few MB can hold a "decompression bomb" (gigabytes of repeated tokens). zlib stops as soon
// as the output passes the bound, so memory stays at the bound whatever the payload claims.
import { inflateSync, constants as zc } from 'node:zlib';
import { getHeapStatistics } from 'node:v8';
import { constants as bufferConstants } from 'node:buffer';

/** Default bound on one record's inflated payload. */
export const DEFAULT_MAX_RECORD_MB = 64;

/**
 * What turning a record into rows costs per inflated byte, with room to spare: a 128 MB record of
 * one-character tokens peaked at 1.5 GB (the string, the parsed JSON, one object per token).
 */
export const DECODE_COST_FACTOR = 24;

let honourable: number | undefined;

/**
 * The largest record this process can decode without running out of heap: its V8 heap limit over
 * the decode cost, and never more than V8's longest string. A bound above it is not honoured (a
 * 2 GB record under a 3000 MB bound ended the process with a V8 fatal error).
 */
export function honourableRecordBytes(): number {
  // The heap limit is fixed for the life of the process: asked once (it was asked per record).
  if (honourable !== undefined) return honourable;
  const byHeap = Math.floor(getHeapStatistics().heap_size_limit / DECODE_COST_FACTOR);
  const mb = Math.floor(Math.min(byHeap, bufferConstants.MAX_STRING_LENGTH) / (1024 * 1024));
  return (honourable = Math.max(1, mb) * 1024 * 1024);
}

/**
 * The bound in bytes: AGENTJET_MAX_RECORD_MB (the CLI's --max-record-mb sets it for its workers
 * too), at most what this process can honour.
 */
export function maxRecordBytes(): number {
  const v = Number(process.env.AGENTJET_MAX_RECORD_MB);
  const mb = Number.isFinite(v) && v > 0 ? Math.min(v, 4096) : DEFAULT_MAX_RECORD_MB;
  return Math.min(Math.floor(mb * 1024 * 1024), honourableRecordBytes());
}

/** The marker all "too large" errors start with (callers add where the record is). */
export const TOO_LARGE = 'record too large';

export class RecordTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(
      `${TOO_LARGE}: its payload inflates to more than ${formatMb(limit)} (the limit per record; raise it with --max-record-mb or AGENTJET_MAX_RECORD_MB)`,
    );
    this.name = 'RecordTooLargeError';
  }
}

function formatMb(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

function isTooLarge(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/**
 * Inflates a whole zlib stream; throws RecordTooLargeError past `limit` bytes of output (zlib
 * stops there), and zlib's own error for corrupt data.
 */
export function inflateBounded(raw: Uint8Array, limit = maxRecordBytes()): Buffer {
  try {
    // Output chunks of about the inflated size: zlib's default 16 KB chunk means a dozen calls and
    // a concatenating copy for a usual record (a quarter of the inflation's time).
    return inflateSync(raw, { maxOutputLength: limit, chunkSize: inflateChunk(raw.length, limit) });
  } catch (err) {
    if (isTooLarge(err)) throw new RecordTooLargeError(limit);
    throw err;
  }
}

/** An output chunk for `n` deflated bytes: room for 6x (token logs inflate about 4.5x), 64 KB at least, at most the bound. */
export function inflateChunk(n: number, limit: number): number {
  return Math.max(zc.Z_MIN_CHUNK, Math.min(limit, Math.max(64 * 1024, n * 6)));
}

const PREFIX_CHUNK = (want: number) => Math.min(16 * 1024, Math.max(1024, want));

/**
 * The first bytes of what a (possibly cut) zlib stream inflates to, at most about `want` of them:
 * for summaries, which need only the start of the JSON. The input is fed in growing slices so a
 * bomb in the first bytes costs at most a slice's worth of output (deflate expands ~1000x at most).
 */
export function inflatePrefix(raw: Uint8Array, want: number): Buffer {
  const cap = Math.max(want * 4, 1 << 20);
  let slice = Math.min(raw.length, 1024);
  let last: Buffer | undefined;
  for (;;) {
    try {
      // Output chunks about the size wanted: zlib's default 16 KB chunk, allocated per call, costs
      // three times the inflation of a small record (the runs listing reads thousands of titles).
      last = inflateSync(raw.subarray(0, slice), { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: cap, chunkSize: PREFIX_CHUNK(want) });
    } catch (err) {
      if (!isTooLarge(err)) throw err;
      if (last) return last;
      // Even the first slice is too much: a smaller one.
      if (slice <= 64) throw new RecordTooLargeError(cap);
      slice = Math.max(64, slice >> 3);
      continue;
    }
    if (last.length >= want || slice >= raw.length) return last;
    slice = Math.min(raw.length, slice * 4);
  }
}
