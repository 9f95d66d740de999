// Decompression bombs for the hostile-input tests and measurements: a token log whose records are
// ordinary except one, whose `base64:<zlib>` payload is a few MB on disk but inflates to `inflated`
// bytes of JSON (one timeline of "a" tokens). Written through a streaming deflate, so a 5 GB bomb
// costs its compressed size in memory, never its inflated size. Nothing of this is committed as a
// binary file: tests and benches make what they need.
import { createDeflate, deflateRawSync, constants as zc } from 'node:zlib';
import { closeSync, openSync, writeSync } from 'node:fs';
import { frame } from './rollout';

export interface BombLog {
  path: string;
  /** Record number of the bomb. */
  bombIndex: number;
  /** Byte offset of the bomb's header line. */
  bombOffset: number;
  records: number;
  /** Inflated size of the bomb's JSON payload. */
  inflated: number;
}

const when = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i));

/** An ordinary record with `n` tokens (the ones around the bomb). */
export function plainRecord(i: number, n = 3): string {
  const text = Array.from({ length: n }, (_, k) => `t${k}`);
  return frame(when(i), {
    header: `step ${i} reward 0.5 task t${i}`,
    nested_json: {
      [`t${i}.success.0`]: {
        content: { text, title: text.map(() => '-0.5'), count: text.map((_, k) => String(k)), color: text.map(() => '#09ABCF') },
        len_response_ids: n,
      },
    },
  });
}

/** zlib bytes of a JSON record whose token array inflates to about `inflated` bytes. */
export async function bombPayload(inflated: number): Promise<Buffer> {
  const head = Buffer.from('{"header": "step 7 reward 1 task bomb", "nested_json": {"bomb.success.0": {"content": {"text": [');
  const tail = Buffer.from('"a"]}}}}');
  const unit = Buffer.from('"a", '.repeat(1 << 18)); // 1.25 MB
  const out: Buffer[] = [];
  const z = createDeflate({ level: zc.Z_BEST_COMPRESSION, memLevel: 9 });
  z.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<void>((res, rej) => {
    z.on('end', res);
    z.on('error', rej);
  });
  const write = (b: Buffer) => (z.write(b) ? Promise.resolve() : new Promise<void>((r) => z.once('drain', () => r())));
  await write(head);
  let left = inflated - head.length - tail.length;
  while (left > 0) {
    const b = left >= unit.length ? unit : unit.subarray(0, left - (left % 5));
    if (b.length === 0) break;
    await write(b);
    left -= b.length;
  }
  await write(tail);
  z.end();
  await done;
  return Buffer.concat(out);
}

const ADLER_BASE = 65521;

function adler32(b: Uint8Array): number {
  let a = 1,
    c = 0;
  for (let i = 0; i < b.length;) {
    const end = Math.min(b.length, i + 5552);
    for (; i < end; i++) {
      a += b[i]!;
      c += a;
    }
    a %= ADLER_BASE;
    c %= ADLER_BASE;
  }
  return ((c << 16) | a) >>> 0;
}

/** zlib's adler32_combine: the checksum of A followed by B, from theirs and B's length. */
function adler32Combine(a1: number, a2: number, len2: number): number {
  const rem = len2 % ADLER_BASE;
  let s1 = a1 & 0xffff;
  let s2 = (rem * s1) % ADLER_BASE;
  s1 += (a2 & 0xffff) + ADLER_BASE - 1;
  s2 += ((a1 >>> 16) & 0xffff) + ((a2 >>> 16) & 0xffff) + ADLER_BASE - rem;
  if (s1 >= ADLER_BASE) s1 -= ADLER_BASE;
  if (s1 >= ADLER_BASE) s1 -= ADLER_BASE;
  if (s2 >= ADLER_BASE * 2) s2 -= ADLER_BASE * 2;
  if (s2 >= ADLER_BASE) s2 -= ADLER_BASE;
  return ((s2 << 16) | s1) >>> 0;
}

/**
 * The same bomb as bombPayload, made in a fraction of the time for gigabytes: the repeated piece
 * is compressed once, ending in a full flush (no reference reaches back past it), and its bytes
 * are repeated; the zlib header and the Adler-32 of the whole are computed, so it is a valid stream.
 */
export function bombPayloadFast(inflated: number): Buffer {
  const head = Buffer.from('{"header": "step 7 reward 1 task bomb", "nested_json": {"bomb.success.0": {"content": {"text": [');
  const tail = Buffer.from('"a"]}}}}');
  const unit = Buffer.from('"a", '.repeat(1 << 18));
  const n = Math.max(0, Math.floor((inflated - head.length - tail.length) / unit.length));
  const flush = { level: zc.Z_BEST_COMPRESSION, memLevel: 9, finishFlush: zc.Z_FULL_FLUSH };
  const headZ = deflateRawSync(head, flush);
  const unitZ = deflateRawSync(unit, flush);
  const tailZ = deflateRawSync(tail, { level: zc.Z_BEST_COMPRESSION });
  let sum = adler32(head);
  const unitSum = adler32(unit);
  for (let i = 0; i < n; i++) sum = adler32Combine(sum, unitSum, unit.length);
  sum = adler32Combine(sum, adler32(tail), tail.length);
  const check = Buffer.alloc(4);
  check.writeUInt32BE(sum);
  return Buffer.concat([Buffer.from([0x78, 0xda]), headZ, ...Array<Buffer>(n).fill(unitZ), tailZ, check]);
}

/** Writes `before` ordinary records, the bomb, then `after` ordinary records (`fast`: bombPayloadFast). */
export async function writeBombLog(path: string, inflated: number, before = 3, after = 3, fast = false): Promise<BombLog> {
  const payload = fast ? bombPayloadFast(inflated) : await bombPayload(inflated);
  const fd = openSync(path, 'w');
  let offset = 0;
  const put = (s: string | Buffer) => {
    const b = typeof s === 'string' ? Buffer.from(s) : s;
    writeSync(fd, b);
    offset += b.length;
  };
  try {
    for (let i = 0; i < before; i++) put(plainRecord(i));
    const bombOffset = offset;
    const header = frame(when(before), { header: 'x' }).split('\n')[0]!;
    put(`${header}\nbase64:`);
    put(payload.toString('base64'));
    put('\n');
    for (let i = 0; i < after; i++) put(plainRecord(before + 1 + i));
    return { path, bombIndex: before, bombOffset, records: before + 1 + after, inflated };
  } finally {
    closeSync(fd);
  }
}
