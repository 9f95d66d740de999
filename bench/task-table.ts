// The dashboard's per-task table at scale: a run with 10,000 tasks (and one with 40,000) × 4
// rollouts, read as the dashboard reads it (RolloutCurves.refresh: facts on worker threads, the
// table fed in the same pass), then the host's answers to the page: the first page in each order
// (computed once per change), a page from the cached order, and a filter. Figures only.
//   npm run bench:tasktable
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RolloutCurves } from '../core/runs/curves';
import { TaskTable } from '../core/runs/taskTable';
import { TASK_SORT_KEYS } from '../core/protocol/dashboard';
import { frame } from '../test/gen/rollout';
import { payload } from '../test/util/smalllogs';

const ms = (t0: number) => (performance.now() - t0).toFixed(1);

async function run(tasks: number, rollouts: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-tasks-'));
  try {
    const log = join(dir, '2026_01_10_12_00', 'node-0', 'rollout', 'rollout.json.log');
    mkdirSync(join(log, '..'), { recursive: true });
    const parts: string[] = [];
    let at = Date.UTC(2026, 0, 10);
    for (let r = 0; r < rollouts; r++)
      for (let i = 0; i < tasks; i++)
        parts.push(
          frame(new Date((at += 10)), payload(r, `task-${i}`, ((i * 7 + r) % 11) / 10, [{ text: ['<|im_start|>', 'Hi', ' there'] }])),
        );
    writeFileSync(log, parts.join(''));
    const records = tasks * rollouts;

    let t0 = performance.now();
    const curves = new RolloutCurves(dir);
    await curves.refresh();
    const readMs = ms(t0);
    const table = curves.tasks;
    t0 = performance.now();
    table.rows();
    const rowsMs = ms(t0);
    const firstPage: string[] = [];
    for (const key of TASK_SORT_KEYS) {
      t0 = performance.now();
      table.query({ sort: key, desc: false, text: '', offset: 0, limit: 100 });
      firstPage.push(`${key} ${ms(t0)}`);
    }
    t0 = performance.now();
    table.query({ sort: 'meanReward', desc: false, text: '', offset: Math.floor(tasks / 2), limit: 100 });
    const cachedMs = ms(t0);
    t0 = performance.now();
    const f = table.query({ sort: 'meanReward', desc: false, text: '-12', offset: 0, limit: 100 });
    const filterMs = ms(t0);

    // The aggregation alone (no file reading), for its share of the read.
    const pure = new TaskTable();
    t0 = performance.now();
    for (let r = 0; r < rollouts; r++)
      for (let i = 0; i < tasks; i++) pure.add({ taskId: `task-${i}`, step: r, reward: 0.5, outcome: '0.5', time: r });
    const addMs = ms(t0);

    console.log(
      `${tasks} tasks × ${rollouts} rollouts (${records} records, ${(Buffer.byteLength(parts.join('')) / 1048576).toFixed(1)} MB):`,
    );
    console.log(`  read (curves + table, one pass): ${readMs} ms; table rows: ${table.size}`);
    console.log(`  aggregation alone: ${addMs} ms for ${records} records`);
    console.log(`  rows(): ${rowsMs} ms; first page by order (ms): ${firstPage.join(', ')}`);
    console.log(`  a page from a cached order: ${cachedMs} ms; filter "-12" (${f.total} match): ${filterMs} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await run(10_000, 4);
  await run(40_000, 4);
}

void main();
