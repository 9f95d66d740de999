// Stalled runs against real processes: two AgentJet runs registered through the real beast-logger
// (test/conformance/drivers/runs_driver.py) log a few rollout steps half a second apart and keep
// their locks; one then stops writing, the other goes on stepping. With `--stall-minutes` set low,
// `agentjet runs` (the bundled CLI) says the first is stalled and the second progressing, and both
// stay "running".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { withUpstream } from '../util/upstream';
import { waitFor } from '../util/poll';
import { cliPath, startDriver, TREE, workspace, type HeldDriver } from './runs-harness';
import type { RunRow } from '../../cli/runs';

const STALL_MINUTES = '0.05'; // 3 s: several of the drivers' 0.5 s steps

function cli(ws: string, ...extra: string[]): { rows: RunRow[]; text: string } {
  const json = spawnSync(process.execPath, [cliPath(), 'runs', ws, '--format', 'json', '--stall-minutes', STALL_MINUTES, ...extra], {
    encoding: 'utf8',
  });
  if (json.status !== 0) throw new Error(`agentjet runs exited ${json.status}: ${json.stderr}`);
  const text = spawnSync(process.execPath, [cliPath(), 'runs', ws, '--stall-minutes', STALL_MINUTES, ...extra], { encoding: 'utf8' });
  return { rows: (JSON.parse(json.stdout) as { runs: RunRow[] }).runs, text: text.stdout };
}

async function stop(d: HeldDriver): Promise<void> {
  if (d.child.exitCode !== null || d.child.signalCode !== null) return;
  d.child.stdin!.end();
  await Promise.race([once(d.child, 'close'), new Promise((r) => setTimeout(r, 5000))]);
  if (d.child.exitCode === null) d.child.kill('SIGKILL');
}

test(
  'a live run that stops writing turns stalled; one that keeps stepping stays progressing (both "running")',
  withUpstream('beast-logger-6ba1ca5', (_dir, t) =>
    withUpstream(TREE.agentjet, async () => {
      const ws = workspace();
      const quiet = startDriver(ws.path, { version: 'agentjet', experiment: 'quiet_run', steps: 3, stepDelay: 0.5, end: 'hold' });
      const busy = startDriver(ws.path, {
        version: 'agentjet',
        experiment: 'busy_run',
        steps: 3,
        stepDelay: 0.5,
        end: 'hold',
        keepStepping: true,
      });
      try {
        await Promise.all([quiet.ready, busy.ready]);
        assert.match(quiet.output(), /DRIVER pid=/, quiet.output());
        assert.match(busy.output(), /DRIVER pid=/, busy.output());
        let last: RunRow[] = [];
        const byName = (rows: RunRow[], n: string) => rows.find((r) => r.experiment === n);
        const { rows, text } = await waitFor(
          () => {
            const r = cli(ws.path);
            last = r.rows;
            return byName(r.rows, 'quiet_run')?.health?.state === 'stalled' ? r : undefined;
          },
          () => `quiet_run to read stalled; last rows: ${JSON.stringify(last.map((r) => ({ e: r.experiment, s: r.status, h: r.health })))}`,
          60_000,
          250,
        );
        const q = byName(rows, 'quiet_run')!;
        const b = byName(rows, 'busy_run')!;
        assert.equal(q.status, 'running', 'the status stays true: the process is alive');
        assert.equal(b.status, 'running');
        assert.ok(q.health!.usualStepS! >= 0.3 && q.health!.usualStepS! < 5, `its steps took about 0.5 s: ${q.health!.usualStepS}`);
        assert.ok(q.health!.since && Date.parse(q.health!.since) <= Date.now());
        assert.ok(q.health!.idleS! >= 3, 'stalled only after stallMinutes of silence');
        assert.equal(b.health?.state, 'progressing', JSON.stringify(b.health));
        assert.ok((b.latestStep ?? 0) > 3, 'the busy run kept stepping');
        assert.match(text, /quiet_run: .*; stalled since \d\d:\d\d \(no step for \d+ s; its steps took \d+ s\)/);
        assert.doesNotMatch(text, /busy_run: .*stalled/);
        // The default (10 minutes) does not call it stalled yet.
        const json = spawnSync(process.execPath, [cliPath(), 'runs', ws.path, '--format', 'json'], { encoding: 'utf8' });
        const dflt = (JSON.parse(json.stdout) as { runs: RunRow[] }).runs.find((r) => r.experiment === 'quiet_run')!;
        assert.equal(dflt.health?.state, 'progressing');
        t.diagnostic(`quiet_run: ${q.health!.text}`);
      } finally {
        await Promise.all([stop(quiet), stop(busy)]);
        ws.dispose();
      }
    })(t),
  ),
);

test('--stall-minutes refuses what is not a positive number', () => {
  const ws = workspace();
  try {
    for (const bad of ['0', '-3', 'ten', '']) {
      const r = spawnSync(process.execPath, [cliPath(), 'runs', ws.path, '--stall-minutes', bad], { encoding: 'utf8' });
      assert.equal(r.status, 2, `${bad}: ${r.stderr}`);
      assert.match(r.stderr, /--stall-minutes (must be a positive number of minutes|needs a value)/);
    }
  } finally {
    ws.dispose();
  }
});
