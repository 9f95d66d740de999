// The viewer's first pass over a large log (the list rows from each record's first bytes) runs on
// the pool's worker threads, so the extension host's event loop only files the rows (issue 42
// item 3): the rows are the ones the asynchronous pass on the calling thread gives, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSession } from '../../core/logs/session';
import { TASK_BYTES, poolStats, setThreadCap } from '../../core/logs/pool';
import { writeRolloutLog } from '../gen/rollout';

test('summaries of a large log from worker threads equal those read on the calling thread, a corrupt record included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-summaries-'));
  const saved = process.env.AGENTJET_LOG_WORKERS;
  try {
    const file = join(dir, 'rollout.json.log');
    writeRolloutLog(file, { targetBytes: 3 * TASK_BYTES, seed: 7 });
    // A record whose payload is not base64: its row says why.
    appendFileSync(file, '2026-01-05 10:00:00.000 | INFO     | x:y:1 - \nbase64:@@@@\n');
    writeRolloutLog(file, { targetBytes: TASK_BYTES, seed: 8 }, 'a');
    const rows = async (workers: string): Promise<unknown[]> => {
      process.env.AGENTJET_LOG_WORKERS = workers;
      const s = new LogSession(file, { siblings: false });
      await s.update();
      let last = 0;
      await s.summarize({ progress: (done) => (last = done) });
      assert.equal(s.summarized, s.count);
      assert.equal(last, s.count, 'progress reaches the end');
      return Array.from({ length: s.count }, (_, i) => s.row(i));
    };
    const here = await rows('0');
    assert.equal(poolStats.lastThreads, 0);
    const off = await rows('2');
    assert.equal(poolStats.lastThreads, 2, 'read on worker threads');
    assert.deepEqual(off, here);
    assert.ok(
      here.some((r) => (r as { error?: string }).error),
      'the corrupt record has its error',
    );
    assert.ok(here.length > 50, `${here.length} records`);
    // Under the host's cap: one worker, the same rows.
    setThreadCap(1);
    try {
      assert.deepEqual(await rows(''), here);
      assert.equal(poolStats.lastThreads, 1);
    } finally {
      setThreadCap(undefined);
    }
  } finally {
    if (saved === undefined) delete process.env.AGENTJET_LOG_WORKERS;
    else process.env.AGENTJET_LOG_WORKERS = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
