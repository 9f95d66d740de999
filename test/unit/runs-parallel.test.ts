// `agentjet runs` inspects a large tree on two threads (core/runs/parallel.ts): the result must be
// the one a single thread gives, in the same order, whatever each experiment holds (statuses,
// locks of live and dead processes, exceptions, tracebacks, snapshots the scan declines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeRun, tempDir } from '../util/runtree';
import { listExperiments } from '../../core/runs/discover';
import { syncNodeFs } from '../../core/fs/seam';
import { inspectAll } from '../../core/runs/parallel';
import { resolvedSnapshot } from '../gen/snapshot';

test('two threads give what one thread gives, in order', async () => {
  const tmp = tempDir();
  try {
    const root = join(tmp.path, 'saved_experiments');
    for (let i = 0; i < 24; i++) {
      const name = `exp_${String(i).padStart(2, '0')}`;
      writeRun(root, {
        name,
        session: `2026_01_${String(1 + (i % 9)).padStart(2, '0')}_10_${String(i).padStart(2, '0')}`,
        ...(i % 4 === 0 ? { snapshot: resolvedSnapshot({ project: 'p', experiment: name, kb: 4, totalSteps: 2 }) } : {}),
        ...(i % 4 === 1 ? { snapshot: `ajet:\n  project_name: &a p\n  experiment_name: ${name}\n` } : {}),
        hosts: [
          {
            rollout: [
              [0, 0.5],
              [i % 3, 1],
            ],
            ...(i % 5 === 0 ? { lockPid: process.pid } : {}),
            ...(i % 5 === 1 ? { lockPid: 999_999_99 } : {}),
            ...(i % 6 === 0 ? { exceptions: ['boom'] } : {}),
            ...(i % 7 === 0 ? { regular: 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad\n' } : {}),
          },
        ],
      });
    }
    const fs = syncNodeFs();
    const { experiments } = await listExperiments(fs, root);
    assert.equal(experiments.length, 24);
    const one = await inspectAll(fs, experiments, { listingMemo: new Map(), localHost: 'gpu-node-0' }, 1);
    const report = { workerShares: 0 };
    const two = await inspectAll(fs, experiments, { listingMemo: new Map(), localHost: 'gpu-node-0' }, 2, 1, report);
    const three = await inspectAll(fs, experiments, { listingMemo: new Map(), localHost: 'gpu-node-0' }, 3, 1, report);
    // One share of the two-thread run and two of the three-thread run went to workers.
    assert.equal(report.workerShares, 3);
    assert.deepEqual(two, one);
    assert.deepEqual(three, one);
    assert.deepEqual(
      two.map((i) => i.entry.name),
      experiments.map((e) => e.name),
    );
    assert.ok(one.some((i) => i.status === 'running'));
    assert.ok(one.some((i) => i.status === 'failed'));
  } finally {
    tmp.dispose();
  }
});
