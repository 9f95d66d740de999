// Decompression bombs for the hostile-input tests and measurements: a token log whose records are
// ordinary except one, whose `base64:<zlib>` payload is a few MB on disk but inflates to `inflated`
// bytes of JSON (one timeline of "a" tokens). Written through a streaming deflate, so a 5 GB bomb
// costs its compressed size in memory, never its inflated size. Nothing of this is committed as a
// binary file: tests and benches make what they need.
import { createDeflate, constants as zc } from 'node:zlib';
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

/** Writes `before` ordinary records, the bomb, then `after` ordinary records. */
export async function writeBombLog(path: string, inflated: number, before = 3, after = 3): Promise<BombLog> {
  const payload = await bombPayload(inflated);
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
