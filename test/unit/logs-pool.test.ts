// The whole-file pool on many cores: how many threads it takes by default (no fixed cap, bounded
// by free memory), how it sizes tasks for them, and that a pool wider than 4 threads gives the
// same results, in the same order, as the calling thread alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../util/paths';
import { LogIndex } from '../../core/logs/index';
import {
  MIN_TASK_BYTES,
  TASK_BYTES,
  WORKER_BUDGET_BYTES,
  defaultWorkers,
  hostThreadsDefault,
  maxWorkers,
  poolStats,
  setThreadCap,
  planTasks,
  runTasks,
  taskBytesFor,
} from '../../core/logs/pool';
import type { RecordFacts } from '../../core/logs/jobs';
import { randomLog } from '../util/tokenlogs';

const GB = 1024 ** 3;

test('the default is a thread per core, past 4 on a big machine, as free memory allows', () => {
  assert.equal(defaultWorkers(64, 64 * GB, undefined), 64);
  assert.equal(defaultWorkers(96, 512 * GB, ''), 96);
  assert.equal(defaultWorkers(2, 24 * GB, undefined), 2);
  // Free memory bounds it: 2 GB holds 8 workers at their budget.
  assert.equal(defaultWorkers(64, 2 * GB, undefined), Math.floor((2 * GB) / WORKER_BUDGET_BYTES));
  // Never none by default, even with no free memory reported.
  assert.equal(defaultWorkers(8, 0, undefined), 1);
  // The environment decides when it is a whole number.
  assert.equal(defaultWorkers(64, 64 * GB, '3'), 3);
  assert.equal(defaultWorkers(64, 64 * GB, '0'), 0);
  assert.equal(defaultWorkers(4, 64 * GB, 'many'), 4);
});

test('AGENTJET_LOG_WORKERS never starts more threads than the machine has room for (issue 39 R11)', () => {
  // 1024 on 2 cores started 421 threads and took 6 GB for the same output.
  assert.equal(defaultWorkers(2, 64 * GB, '1024'), 2);
  assert.equal(defaultWorkers(64, 2 * GB, '1024'), Math.floor((2 * GB) / WORKER_BUDGET_BYTES));
  assert.equal(defaultWorkers(8, 64 * GB, '8'), 8);
});

test('agentjet log says when it caps the worker threads it was asked for (issue 39 R11)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-r11-'));
  try {
    const file = join(dir, 'rollout.json.log');
    writeFileSync(file, randomLog(7, 20));
    const cap = maxWorkers();
    for (const [args, env, via] of [
      [['--workers', '1024'], {}, '--workers'],
      [[], { AGENTJET_LOG_WORKERS: '1024' }, 'AGENTJET_LOG_WORKERS'],
    ] as const) {
      const r = spawnSync(
        process.execPath,
        [join(repoRoot, 'dist', 'cli.js'), 'log', 'stats', file, '--no-cache', '--lang', 'en', ...args],
        {
          encoding: 'utf8',
          env: { ...process.env, ...env },
        },
      );
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`1024 worker threads asked for \\(${via}\\); this machine has room for ${cap}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tasks get smaller on many threads so each has about eight, never under 1 MB', () => {
  const MB = 1024 * 1024;
  assert.equal(taskBytesFor(400 * MB, 1), TASK_BYTES);
  assert.equal(taskBytesFor(400 * MB, 2), TASK_BYTES);
  assert.equal(taskBytesFor(400 * MB, 32), Math.floor((400 * MB) / 256));
  assert.equal(taskBytesFor(400 * MB, 256), MIN_TASK_BYTES);
  assert.equal(taskBytesFor(0, 8), MIN_TASK_BYTES);
  for (const workers of [1, 3, 7, 16, 48, 128])
    for (const mb of [1, 10, 100, 1000]) {
      const b = taskBytesFor(mb * MB, workers);
      assert.ok(b >= MIN_TASK_BYTES && b <= TASK_BYTES, `${mb} MB on ${workers}: ${b}`);
      // Past the smallest size, there are at least eight tasks a thread.
      if (b > MIN_TASK_BYTES) assert.ok((mb * MB) / b >= 8 * workers - 1e-9, `${mb} MB on ${workers}: ${b}`);
    }
});

test("the extension host's cap (agentjet.logs.hostThreads): a quarter of the cores, 1 to 2, and the work off the calling thread", async () => {
  assert.deepEqual(
    [1, 2, 4, 7, 8, 16, 128].map((c) => hostThreadsDefault(c)),
    [1, 1, 1, 1, 2, 2, 2],
  );
  const dir = mkdtempSync(join(tmpdir(), 'ajpool-cap-'));
  try {
    const file = join(dir, 'rollout.json.log');
    writeFileSync(file, randomLog(7, 120));
    const ix = new LogIndex(file, { siblings: false });
    await ix.update();
    const tasks = planTasks(ix, 0, ix.count, 2048);
    const facts = async (opts: { workers?: number } = {}) => {
      const out: RecordFacts[] = [];
      await runTasks(tasks, { kind: 'facts' }, (r) => void (r.kind === 'facts' && out.push(...r.facts)), {
        ...opts,
        minBytesForWorkers: 0,
      });
      return out;
    };
    const inline = await facts({ workers: 0 });
    setThreadCap(1);
    try {
      assert.equal(defaultWorkers(128, 512 * GB, undefined), 1, 'a GPU node: one thread, not 128');
      assert.equal(defaultWorkers(128, 512 * GB, '64'), 1, 'the cap holds over AGENTJET_LOG_WORKERS');
      assert.deepEqual(await facts(), inline);
      assert.equal(poolStats.lastThreads, 1, 'one worker thread, not the calling thread');
      assert.deepEqual(await facts({ workers: 8 }), inline);
      assert.equal(poolStats.lastThreads, 1, 'the cap holds over a caller asking for more');
    } finally {
      setThreadCap(undefined);
    }
    assert.equal(defaultWorkers(128, 512 * GB, undefined), 128, 'lifted: every core again');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The nice values of this process's threads (Linux: each thread has its own). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((t) => {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test(
  'under the host cap the workers run below normal priority, the calling thread does not (Linux)',
  { skip: process.platform !== 'linux' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-nice-'));
    try {
      const file = join(dir, 'rollout.json.log');
      writeFileSync(file, randomLog(11, 60));
      const ix = new LogIndex(file, { siblings: false });
      await ix.update();
      const tasks = planTasks(ix, 0, ix.count, 2048);
      const seen = async (): Promise<number[]> => {
        let nices: number[] = [];
        await runTasks(tasks, { kind: 'facts' }, () => void (nices = threadNices()), { workers: 1, minBytesForWorkers: 0 });
        return nices;
      };
      const mine = threadNices()[0];
      setThreadCap(1);
      try {
        const capped = await seen();
        assert.ok(
          capped.some((n) => n > mine!),
          `a worker below normal priority: ${capped.join(' ')}`,
        );
        assert.equal(threadNices()[0], mine, 'the calling thread keeps its priority');
      } finally {
        setThreadCap(undefined);
      }
      const uncapped = await seen();
      assert.ok(
        uncapped.every((n) => n === mine),
        `the CLI's workers at normal priority: ${uncapped.join(' ')}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('a pool of 8 threads gives the facts of the calling thread, in file order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajpool-'));
  try {
    const file = join(dir, 'rollout.json.log');
    writeFileSync(file, randomLog(31, 240));
    const ix = new LogIndex(file, { siblings: false });
    await ix.update();
    // Small tasks so that every one of the 8 threads has several.
    const tasks = planTasks(ix, 0, ix.count, 2048);
    assert.ok(tasks.length >= 24, `tasks: ${tasks.length}`);
    const run = async (workers: number) => {
      const out: RecordFacts[] = [];
      const firsts: number[] = [];
      await runTasks(
        tasks,
        { kind: 'facts' },
        (r, t) => {
          firsts.push(t.first);
          if (r.kind === 'facts') out.push(...r.facts);
        },
        { workers, minBytesForWorkers: 0 },
      );
      return { out, firsts };
    };
    const inline = await run(0);
    const wide = await run(8);
    assert.equal(inline.out.length, ix.count);
    assert.deepEqual(
      wide.firsts,
      tasks.map((t) => t.first),
    );
    assert.deepEqual(wide.out, inline.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
