// The dashboard's metrics reader on a worker thread (core/metrics/offThread.ts) against the
// in-process one (core/metrics/read.ts) on files tensorboardX writes: the same tags, points,
// sources, issues and dashboard summary, after a first read, after the writer appended to the file
// (the worker keeps its offsets) and after a restart into a second file; an aborted read ends the
// worker and the next read starts over with the same answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython, moduleVersion } from '../harness/python';
import { skipForEnvironment } from '../util/envSkip';
import { RunMetricsReader } from '../../core/metrics/read';
import { MetricsThread, OffThreadMetricsReader } from '../../core/metrics/offThread';
import { findMetricSources } from '../../core/metrics/find';
import { runMetricsInfo } from '../../core/metrics/view';
import { nodeFs } from '../../core/fs/seam';

const WRITE = String.raw`
import math, sys
from tensorboardX import SummaryWriter
d, first, last, suffix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
w = SummaryWriter(d, filename_suffix=suffix)
for s in range(first, last):
    w.add_scalar('actor/pg_loss', 1.0 / (s + 1) - 0.3, s)
    w.add_scalar('critic/score/mean', math.sin(s / 7.0), s)
    w.add_scalar('timing_s/gen', 3.25 + s * 0.01, s)
    w.add_scalar('timing_s/update_actor', 1.5, s)
    if s % 5 == 0:
        w.add_text('val/generations', 'step %d' % s, s)
w.close()
`;

function python(t: { skip: (m?: string) => void }): string | undefined {
  const { python } = ensureTestPython();
  return skipForEnvironment(t, moduleVersion(python, 'tensorboardX') ? undefined : "the tests' Python lacks tensorboardX")
    ? undefined
    : python;
}

function write(exe: string, script: string, dir: string, first: number, last: number, suffix: string): void {
  const r = spawnSync(exe, [script, dir, String(first), String(last), suffix], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
}

test('the worker-thread reader gives what the in-process reader gives, before and after an append and a restart', async (t) => {
  const exe = python(t);
  if (!exe) return;
  const root = mkdtempSync(join(tmpdir(), 'aj-tb-off-'));
  const thread = new MetricsThread();
  try {
    assert.ok(thread.onWorker, 'a worker script is found (the source under tsx)');
    const script = join(root, 'w.py');
    writeFileSync(script, WRITE);
    const full = join(root, 'full');
    mkdirSync(full);
    write(exe, script, full, 0, 80, '.a');
    const name = readdirSync(full).find((n) => n.includes('tfevents'))!;
    const bytes = readFileSync(join(full, name));
    const live = join(root, 'live');
    mkdirSync(live);
    // The writer is part way through: the file ends inside a record.
    writeFileSync(join(live, name), bytes.subarray(0, Math.floor(bytes.length * 0.6)));

    const sources = await findMetricSources(nodeFs(), live);
    assert.deepEqual(sources.tensorboard, [live]);
    const here = new RunMetricsReader(sources, nodeFs());
    const there = new OffThreadMetricsReader(sources, thread, { info: { run: live, looked: sources.looked } });
    const same = async (what: string, expectChange: boolean) => {
      const a = await here.update();
      const b = await there.update();
      assert.equal(b, a, `${what}: the same "changed"`);
      assert.equal(b, expectChange, `${what}: changed`);
      const want = here.result();
      assert.ok(want.series.length >= 4, `${what}: scalars read (${want.series.map((s) => s.tag).join(', ')})`);
      assert.deepEqual(there.result(), want, `${what}: the same tags, points, sources and issues`);
      assert.deepEqual(
        there.tags(),
        want.series.map((s) => s.tag),
      );
      assert.deepEqual(there.info(), runMetricsInfo(live, { ...want, looked: sources.looked }), `${what}: the same summary`);
      return want;
    };
    const first = await same('first read', true);
    const n0 = first.series.find((s) => s.tag === 'actor/pg_loss')!.points.length;
    assert.ok(n0 > 0 && n0 < 80, `a part of the steps (${n0})`);
    assert.equal(await there.update(), false, 'nothing appended: nothing changed');
    assert.equal(await here.update(), false);

    // The writer appends the rest.
    writeFileSync(join(live, name), bytes);
    const second = await same('after an append', true);
    assert.equal(second.series.find((s) => s.tag === 'actor/pg_loss')!.points.length, 80);

    // A restart writes a second file.
    write(exe, script, live, 60, 100, '.b');
    const third = await same('after a restart', true);
    assert.equal(third.series.find((s) => s.tag === 'actor/pg_loss')!.points.length, 80 + 40);

    // An aborted read ends the worker; the next read starts a new one from the start, same answer.
    const ac = new AbortController();
    const reading = there.update(ac.signal);
    ac.abort();
    await assert.rejects(reading, { name: 'CancelledError' });
    assert.equal(await there.update(), true, 'a new worker reads everything again');
    assert.deepEqual(there.result(), here.result(), 'the same after the restart of the worker');
  } finally {
    thread.dispose();
    rmSync(root, { recursive: true, force: true });
  }
});
