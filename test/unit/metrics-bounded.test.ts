// Issue 40 item 5 through `agentjet metrics` itself (the reader's own tests are in metrics-framing
// and metrics-swanlab): a folder of 10,000 event files, a record that claims 4 GB, a file that is
// not an event file and a FIFO each get a clear, bounded answer (an exit status and a message that
// names the file), never a hang or a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../util/cliRun';
import { frameRecord, maskedCrc32c } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';
import { MAX_EVENT_FILES } from '../../core/metrics/tensorboard';

const event = (step: number) => frameRecord(encodeScalarEvent({ step, wallTime: 1e9 + step, values: [['critic/rewards/mean', step / 4]] }));

test('10,000 event files in one folder: the first 2,000 in name order are read, the rest reported; exit 0', async () => {
  const d = mkdtempSync(join(tmpdir(), 'aj-tb10k-'));
  try {
    for (let i = 0; i < 10_000; i++) writeFileSync(join(d, `events.out.tfevents.${String(i).padStart(5, '0')}.host`), event(i));
    const r = await runCli('metrics', [d, '--format', 'json']);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as { keys: Record<string, { points: number; last: { step: number } }>; issues: { message: string }[] };
    assert.equal(j.keys['critic/rewards/mean']!.points, MAX_EVENT_FILES);
    assert.equal(j.keys['critic/rewards/mean']!.last.step, MAX_EVENT_FILES - 1);
    assert.match(j.issues[0]!.message, /10000 event files; only the first 2000 were read/);
    assert.match(r.err, /10000 event files; only the first 2000 were read/);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a record claiming 4 GB, a file that is not an event file, a FIFO given directly: each a message naming it', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'aj-tbbad-'));
  try {
    const huge = Buffer.alloc(12);
    huge.writeUInt32LE(0, 0);
    huge.writeUInt32LE(1, 4);
    huge.writeUInt32LE(maskedCrc32c(huge.subarray(0, 8)), 8);
    mkdirSync(join(d, 'huge'));
    writeFileSync(join(d, 'huge', 'events.out.tfevents.1.h'), Buffer.concat([event(0), event(1), huge, Buffer.alloc(64)]));
    const h = await runCli('metrics', [join(d, 'huge'), '--format', 'json']);
    assert.equal(h.code, 0, h.err);
    assert.equal((JSON.parse(h.out) as { keys: Record<string, { points: number }> }).keys['critic/rewards/mean']!.points, 2);
    assert.match(h.err, /events\.out\.tfevents\.1\.h@\d+: a record claims 4294967296 bytes; the file is not read past it \(76 bytes\)/);

    mkdirSync(join(d, 'text'));
    writeFileSync(join(d, 'text', 'events.out.tfevents.2.t'), 'not an event file\n'.repeat(1000));
    const x = await runCli('metrics', [join(d, 'text', 'events.out.tfevents.2.t')]);
    assert.equal(x.code, 0, x.err);
    assert.match(x.err, /events\.out\.tfevents\.2\.t@0: not a TensorBoard event file/);

    const fifo = join(d, 'events.out.tfevents.3.fifo');
    if (spawnSync('mkfifo', [fifo]).status !== 0) {
      t.diagnostic('no mkfifo here: the FIFO case is not checked');
      return;
    }
    const f = await runCli('metrics', [fifo]);
    assert.equal(f.code, 1, f.err);
    assert.match(f.err, /events\.out\.tfevents\.3\.fifo: not a regular file/);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});
