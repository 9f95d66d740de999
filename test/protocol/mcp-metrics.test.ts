// `agentjet mcp` through the official MCP SDK's client over stdio: agentjet_compare_runs on two runs
// laid out as AgentJet + verl leave them (TensorBoard), and agentjet_metrics on a run whose logger is
// SwanLab (its run folders in saved_experiments/swanlog, built per SwanLab's own writer, see
// test/gen/swanlab.ts). Read-only hints; list arguments over the wire; refusals as tool errors.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcp } from '../util/mcpClient';
import { writeCompareRuns } from '../gen/compare';
import { writeSwanLabRun } from '../gen/swanlab';

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'aj-mcp-metrics-')));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('agentjet_compare_runs and agentjet_metrics (SwanLab) over MCP: read-only, lists as arguments, the comparison and the SwanLab keys', async () => {
  const ws = join(scratch, 'ws');
  writeCompareRuns(ws, [
    { name: 'exp_a', lr: 1e-6, steps: 8, reward: (s) => s / 8, valEvery: 4 },
    { name: 'exp_b', lr: 3e-6, steps: 8, reward: () => 0.25, valEvery: 4 },
  ]);
  const swan = join(ws, 'saved_experiments', 'exp_swan');
  mkdirSync(swan);
  writeFileSync(
    join(swan, 'yaml_backup.yaml'),
    'ajet:\n  project_name: proj\n  experiment_name: exp_swan\n  trainer_common:\n    logger: swanlab\n',
  );
  writeSwanLabRun(join(ws, 'saved_experiments', 'swanlog'), {
    version: 1,
    project: 'proj',
    experiment: 'exp_swan',
    points: Array.from({ length: 6 }, (_, s) => ({ key: 'critic/rewards/mean', step: s, value: s / 4, wallTime: 1.7e9 + s })),
  });
  const s = await connectMcp(ws, [], { AGENTJET_CACHE_DIR: join(scratch, 'cache'), AGENTJET_FACTS_CACHE: join(scratch, 'facts') });
  try {
    const { tools } = await s.client.listTools();
    const cmp = tools.find((x) => x.name === 'agentjet_compare_runs');
    assert.ok(cmp, tools.map((x) => x.name).join(', '));
    assert.equal(cmp.annotations?.readOnlyHint, true);
    assert.equal(cmp.annotations?.openWorldHint, false);
    assert.deepEqual((cmp.inputSchema.properties as Record<string, { type: string }>).paths!.type, 'array');

    const r = await s.call('agentjet_compare_runs', { paths: ['saved_experiments/exp_a', 'saved_experiments/exp_b'] });
    assert.equal(r.isError, false, r.text);
    const j = JSON.parse(r.text) as {
      config: { differences: Record<string, unknown[]> };
      metrics: Record<string, { ahead?: { final: string }; atStep?: number; valuesAtStep?: number[] }>;
    };
    assert.deepEqual(j.config.differences['ajet.trainer_common.optim.lr'], [1e-6, 3e-6]);
    assert.deepEqual(Object.keys(j.metrics), ['critic/rewards/mean', 'val-core/acc']);
    assert.deepEqual(j.metrics['critic/rewards/mean'], {
      ...j.metrics['critic/rewards/mean'],
      ahead: { final: 'exp_a', best: 'exp_a' },
      atStep: 8,
      valuesAtStep: [1, 0.25],
    });

    const bad = await s.call('agentjet_compare_runs', { paths: ['saved_experiments/exp_a'] });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /needs at least 2 items/);
    const out = await s.call('agentjet_compare_runs', { paths: ['saved_experiments/exp_a', '/etc'] });
    assert.equal(out.isError, true);
    assert.match(out.text, /outside the folder this server may read/);

    const m = await s.call('agentjet_metrics', { path: 'saved_experiments/exp_swan' });
    assert.equal(m.isError, false, m.text);
    const mj = JSON.parse(m.text) as {
      sources: { kind: string; path: string }[];
      keys: Record<string, { points: number; last: [number, number] }>;
    };
    assert.deepEqual(mj.sources, [{ kind: 'swanlab', path: 'saved_experiments/swanlog/run-20260526_090705-abc123' }]);
    assert.deepEqual(mj.keys['critic/rewards/mean'], { ...mj.keys['critic/rewards/mean'], points: 6, last: [5, 1.25] });
  } finally {
    await s.close();
  }
});
