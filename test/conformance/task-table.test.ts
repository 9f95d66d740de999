// The dashboard's per-task table over a token log written by the real beast-logger (print_nested,
// loguru rotation), called as AgentJet's context tracker calls it (test/conformance/python/
// write_token_logs.py: empty, dotted, spaced and escaped task ids, outcome = str(success_rate)).
// Read as the dashboard reads a run: RolloutCurves over the folder, every rotated file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { upstream, withUpstream } from '../util/upstream';
import { RolloutCurves } from '../../core/runs/curves';

interface Written {
  step: number | null;
  task: string;
  outcome: string;
  reward: number;
}

test(
  "per-task table of a real beast-logger rollout log (rotated): every record in its task's row, rewards and success rate as written",
  withUpstream('beast-logger-6ba1ca5', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ajbl-tasks-'));
    try {
      const { python } = ensureTestPython();
      const r = spawnSync(
        python,
        [
          join(__dirname, 'python', 'write_token_logs.py'),
          upstream('beast-logger-6ba1ca5'),
          upstream('agentjet-d20cce0', 'ajet', 'utils', 'color_hsl.py'),
          dir,
          'agentjet',
          '40',
          '4 KB',
        ],
        { encoding: 'utf8', env: { ...process.env, LOGURU_COLORIZE: 'NO' } },
      );
      assert.equal(r.status, 0, r.stderr);
      const line = r.stdout.split('\n').find((l) => l.startsWith('EXPECTED '));
      assert.ok(line, r.stdout);
      const written = JSON.parse(line.slice(9)) as Written[];
      assert.ok(readdirSync(join(dir, 'rollout')).filter((n) => n.startsWith('rollout.json.') && n !== 'rollout.json.log').length >= 2);

      // Worker threads, small chunks: facts come back out of order, "last" must not follow them.
      const curves = new RolloutCurves(dir, { workers: 2 });
      assert.equal(await curves.refresh(), true);
      const rows = curves.tasks.rows();
      const want = new Map<string, Written[]>();
      for (const w of written) want.set(w.task, [...(want.get(w.task) ?? []), w]);
      assert.deepEqual(rows.map((x) => x.id).sort(), [...want.keys()].sort(), 'one row per task id written');
      for (const row of rows) {
        const ws = want.get(row.id)!;
        const rewards = ws.map((w) => w.reward);
        assert.equal(row.rollouts, ws.length, row.id);
        assert.ok(Math.abs(row.meanReward! - rewards.reduce((a, b) => a + b, 0) / rewards.length) < 1e-9, row.id);
        assert.equal(row.minReward, Math.min(...rewards));
        assert.equal(row.maxReward, Math.max(...rewards));
        assert.equal(row.lastReward, rewards[rewards.length - 1], 'the latest record, written last');
        const outcomes = ws.map((w) => Number(w.outcome));
        assert.ok(Math.abs(row.successRate! - outcomes.reduce((a, b) => a + b, 0) / outcomes.length) < 1e-9, row.id);
        assert.deepEqual(
          row.steps,
          [...new Set(ws.map((w) => w.step!))].sort((a, b) => a - b),
        );
      }
      // The worst task first, as the dashboard opens.
      const page = curves.tasks.query({ sort: 'meanReward', desc: false, text: '', offset: 0, limit: 500 });
      assert.equal(page.total, want.size);
      for (let i = 1; i < page.rows.length; i++) assert.ok(page.rows[i - 1]!.meanReward! <= page.rows[i]!.meanReward!);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);
