// TFRecord framing and masked CRC-32C (core/metrics/framing.ts), and the event-folder reader over
// hostile input (core/metrics/tensorboard.ts): property tests against a bit-by-bit CRC-32C written
// here from the polynomial, round trips, every prefix (a record still being written), every
// single-bit flip (a damaged record), a record claiming 4 GB, a FIFO, a file that is not an event file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c, frameRecord, maskCrc, maskedCrc32c, scanRecords } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';
import { TensorBoardRun } from '../../core/metrics/tensorboard';
import { nodeFs } from '../../core/fs/seam';

/** CRC-32C one bit at a time (reflected polynomial 0x82F63B78): slow and obviously right. */
function bitwiseCrc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of data) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));
const payloads = fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 });

test('CRC-32C: the check value of "123456789" and the bitwise reference on any bytes; the mask as TensorFlow defines it', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
  fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), (d) => crc32c(d) === bitwiseCrc32c(d)));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), (x) => {
      const rot = ((x >>> 15) | ((x << 17) >>> 0)) >>> 0;
      return maskCrc(x) === (rot + 0xa282ead8) % 2 ** 32;
    }),
  );
  // The record of an empty event file's first header: known bytes from TensorFlow's writer.
  assert.equal(maskedCrc32c(new Uint8Array(8)), maskCrc(bitwiseCrc32c(new Uint8Array(8))));
});

test('framing: records round-trip with their offsets, wherever the buffer starts in the file', () => {
  fc.assert(
    fc.property(payloads, fc.integer({ min: 0, max: 1e9 }), (ps, base) => {
      const buf = concat(ps.map(frameRecord));
      const s = scanRecords(buf, base);
      assert.equal(s.stop, undefined);
      assert.equal(s.next, base + buf.length);
      assert.deepEqual(
        s.records.map((r) => Buffer.from(r.data)),
        ps.map((p) => Buffer.from(p)),
      );
      let off = base;
      for (let i = 0; i < ps.length; i++) {
        assert.equal(s.records[i]!.offset, off);
        off += 16 + ps[i]!.length;
      }
    }),
  );
});

test('framing: any prefix (a record still being written) gives the whole records before it and waits, never a damage', () => {
  fc.assert(
    fc.property(
      payloads.filter((p) => p.length > 0),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (ps, f) => {
        const buf = concat(ps.map(frameRecord));
        const cut = Math.floor(buf.length * f);
        const s = scanRecords(buf.subarray(0, cut));
        let whole = 0;
        let end = 0;
        while (whole < ps.length && end + 16 + ps[whole]!.length <= cut) end += 16 + ps[whole++]!.length;
        assert.equal(s.records.length, whole);
        assert.equal(s.next, end);
        assert.deepEqual(s.stop, end === cut ? undefined : { kind: 'partial' });
      },
    ),
  );
});

test('framing: any single flipped bit stops the scan at the record that holds it, with the check that failed', () => {
  fc.assert(
    fc.property(
      payloads.filter((p) => p.length > 0),
      fc.nat(),
      fc.integer({ min: 0, max: 7 }),
      (ps, where, bit) => {
        const buf = concat(ps.map(frameRecord));
        const at = where % buf.length;
        buf[at] = buf[at]! ^ (1 << bit);
        let i = 0;
        let start = 0;
        while (start + 16 + ps[i]!.length <= at) start += 16 + ps[i++]!.length;
        const s = scanRecords(buf);
        assert.equal(s.records.length, i, 'the records before it are read');
        const inHeader = at - start < 12;
        // A flipped length bit can make the record look longer than the buffer: the header CRC catches it first.
        assert.equal(s.stop?.kind, inHeader ? 'header-crc' : 'data-crc');
        assert.equal(s.next, start);
      },
    ),
  );
});

function tmp(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aj-tbu-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

function eventFile(steps: number, extra: [string, number][] = []): Buffer {
  const parts = [frameRecord(encodeScalarEvent({ step: 0, wallTime: 1000, fileVersion: 'brain.Event:2' }))];
  for (let s = 0; s < steps; s++)
    parts.push(frameRecord(encodeScalarEvent({ step: s, wallTime: 1000 + s, values: [['actor/kl', s / 4], ...extra] })));
  return concat(parts);
}

test('reader: any chunk size and any split of the appends give the same series as one read', async () => {
  const { dir, done } = tmp();
  try {
    const whole = eventFile(60, [['timing_s/gen', 2.5]]);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 12, max: 600 }),
        fc.array(fc.nat({ max: whole.length }), { maxLength: 5 }),
        async (chunk, cuts) => {
          const file = join(dir, 'events.out.tfevents.1.host');
          writeFileSync(file, '');
          const run = new TensorBoardRun(dir, nodeFs(), { chunkBytes: chunk });
          let at = 0;
          for (const c of [...cuts.sort((a, b) => a - b), whole.length]) {
            appendFileSync(file, whole.subarray(at, Math.max(at, c)));
            at = Math.max(at, c);
            await run.update();
          }
          const s = run.series();
          assert.deepEqual(
            s.map((x) => [x.tag, x.points.length]),
            [
              ['actor/kl', 60],
              ['timing_s/gen', 60],
            ],
          );
          assert.deepEqual(
            s[0]!.points.map((p) => p.value),
            Array.from({ length: 60 }, (_, i) => i / 4),
          );
          assert.deepEqual(run.issues(), []);
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    done();
  }
});

test('reader: a SessionLog.START after the first purges the later steps (file_version 2), as TensorBoard does', async () => {
  const { dir, done } = tmp();
  try {
    const ev = (step: number, v: number) => frameRecord(encodeScalarEvent({ step, wallTime: step, values: [['x', v]] }));
    const start = (step: number) => frameRecord(encodeScalarEvent({ step, wallTime: step, sessionStart: true }));
    const head = frameRecord(encodeScalarEvent({ step: 0, wallTime: 0, fileVersion: 'brain.Event:2' }));
    writeFileSync(
      join(dir, 'events.out.tfevents.1'),
      concat([head, start(0), ev(1, 1), ev(2, 2), ev(3, 3), start(2), ev(2, 20), ev(3, 30)]),
    );
    const run = new TensorBoardRun(dir, nodeFs());
    await run.update();
    assert.deepEqual(
      run.series()[0]!.points.map((p) => [p.step, p.value]),
      [
        [1, 1],
        [2, 20],
        [3, 30],
      ],
    );
    // No file version (old writers): an out-of-order step purges that tag's later steps.
    const d2 = join(dir, 'old');
    execFileSync('mkdir', [d2]);
    writeFileSync(join(d2, 'events.out.tfevents.2'), concat([ev(1, 1), ev(2, 2), ev(3, 3), ev(2, 22)]));
    const old = new TensorBoardRun(d2, nodeFs());
    await old.update();
    assert.deepEqual(
      old.series()[0]!.points.map((p) => [p.step, p.value]),
      [
        [1, 1],
        [2, 22],
      ],
    );
  } finally {
    done();
  }
});

test('reader: a record claiming 4 GB, a FIFO, a file that is not an event file: bounded answers with a message', async () => {
  const { dir, done } = tmp();
  try {
    // A header whose CRC is right but whose length is 4 GB: not allocated, reported.
    const huge = Buffer.alloc(12);
    huge.writeUInt32LE(0, 0);
    huge.writeUInt32LE(1, 4);
    huge.writeUInt32LE(maskedCrc32c(huge.subarray(0, 8)), 8);
    writeFileSync(join(dir, 'events.out.tfevents.1.a'), Buffer.concat([eventFile(3), huge, Buffer.alloc(100)]));
    writeFileSync(join(dir, 'events.out.tfevents.2.b'), 'this is a text file, not an event file\n'.repeat(10));
    execFileSync('mkfifo', [join(dir, 'events.out.tfevents.3.fifo')]);
    writeFileSync(join(dir, 'notes.txt'), 'ignored: no "tfevents" in the name');
    const run = new TensorBoardRun(dir, nodeFs());
    await run.update();
    assert.deepEqual(
      run.series().map((s) => [s.tag, s.points.length]),
      [['actor/kl', 3]],
    );
    const msgs = run.issues().map((i) => `${i.file.slice(dir.length + 1)}@${i.at ?? ''}: ${i.message}`);
    assert.equal(msgs.length, 3, msgs.join('\n'));
    assert.match(
      msgs.find((m) => m.includes('.1.a'))!,
      /claims 4294967296 bytes/,
    );
    assert.match(
      msgs.find((m) => m.includes('.2.b'))!,
      /@0: not a TensorBoard event file/,
    );
    assert.match(
      msgs.find((m) => m.includes('fifo'))!,
      /not a regular file/,
    );
  } finally {
    done();
  }
});

test('reader: more event files than the bound: the first ones in name order are read and the rest reported', async () => {
  const { dir, done } = tmp();
  try {
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `events.out.tfevents.${String(i).padStart(2, '0')}`), eventFile(1));
    const run = new TensorBoardRun(dir, nodeFs(), { maxFiles: 5 });
    await run.update();
    assert.equal(run.series()[0]!.points.length, 5);
    assert.match(run.issues()[0]!.message, /12 event files; only the first 5/);
  } finally {
    done();
  }
});

test('reader: a well-framed record that is not an Event (one whose field claims more bytes than the record holds) is skipped and counted; the next is read', async () => {
  const { dir, done } = tmp();
  try {
    const good = (s: number) => frameRecord(encodeScalarEvent({ step: s, wallTime: 1000 + s, values: [['actor/kl', s]] }));
    // Field 5 (summary), length-delimited, claiming 100 bytes in a 2-byte record: read within the
    // record it fails; read over the whole chunk it would run into the next record's bytes.
    const overrun = frameRecord(Uint8Array.of(0x2a, 100));
    const garbage = frameRecord(Uint8Array.of(0xff, 0xff, 0xff));
    const file = concat([good(0), overrun, good(1), garbage, good(2)]);
    writeFileSync(join(dir, 'events.out.tfevents.1.x'), file);
    for (const chunkBytes of [undefined, 40]) {
      const run = new TensorBoardRun(dir, nodeFs(), chunkBytes ? { chunkBytes } : {});
      await run.update();
      assert.deepEqual(
        run.series()[0]!.points.map((p) => p.step),
        [0, 1, 2],
      );
      const issue = run.issues()[0]!;
      assert.match(issue.message, /2 records are not TensorBoard events; skipped/);
      assert.equal(issue.at, good(0).length);
    }
  } finally {
    done();
  }
});
