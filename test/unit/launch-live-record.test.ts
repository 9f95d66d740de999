// Issue 43 item 2: a launch from the editor has a launch record from the moment it is prepared,
// rewritten on every event of its owner (core/launch/owner.ts), so the Runs view and `agentjet runs`
// say "running" (preparing, paused in the debugger since HH:MM, stopping) and then "stopped" or
// "finished", never "empty" while it runs. Real processes stand in for the launcher.
import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchOwner } from '../../core/launch/owner';
import { resolveAttributes } from '../../core/launch/attributes';
import { planLaunch } from '../../core/launch/lifecycle';
import { LaunchRecordKeeper } from '../../core/launch/record';
import { inspectExperiment, listExperiments } from '../../core/runs/discover';
import { nodeFs } from '../../core/fs/seam';
import { launchPhaseText } from '../../core/runs/format';
import { toRow } from '../../core/runs/list';
import { waitFor } from '../util/poll';

async function statusOf(root: string): Promise<{ names: string[]; status?: string; text?: string; rowText?: string }> {
  const fs = nodeFs();
  const { experiments } = await listExperiments(fs, root);
  const names = experiments.map((e) => e.name);
  if (!experiments[0]) return { names };
  const info = await inspectExperiment(fs, experiments[0]);
  const now = Date.now();
  const text = launchPhaseText(info.launch, now);
  const rowText = toRow(info, { now }).launch?.text;
  return { names, status: info.status, ...(text ? { text } : {}), ...(rowText ? { rowText } : {}) };
}

describe('the live launch record (issue 43 item 2)', () => {
  for (const end of ['stopped', 'finished'] as const)
    test(`prepared, running, paused, resumed, then ${end}: the run reads so at every step`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'aj-live-'));
      const root = join(dir, 'saved_experiments');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      try {
        const config = join(dir, 'sum_agent.yaml');
        writeFileSync(config, 'ajet:\n  experiment_name: sum_agent_live\n');
        const r = resolveAttributes({ config, cwd: dir, python: process.execPath });
        const planned = await planLaunch(r, { lint: false });
        assert.ok(planned.ok);
        const owner = new LaunchOwner({ watchdog: false });
        const keeper = new LaunchRecordKeeper();
        const written: string[] = [];
        keeper.beginLive(owner, r, planned.plan, 'debug', { written: (f) => written.push(f), error: (m) => assert.fail(m) });
        // Preparing: no launcher yet, the process preparing it (this one) lives.
        await waitFor(async () => (await statusOf(root)).status === 'running', 'a preparing launch reads running');
        assert.deepEqual(await statusOf(root), {
          names: ['sum_agent_live'],
          status: 'running',
          text: 'preparing the launch',
          rowText: 'preparing the launch',
        });
        await owner.step('preflight', () => undefined);
        keeper.command = [process.execPath, 'launcher'];
        keeper.startedAt = Date.now();
        owner.running();
        keeper.setPid(child.pid);
        await waitFor(async () => (await statusOf(root)).text === undefined, 'running: no phase words');
        assert.equal((await statusOf(root)).status, 'running');
        // A session folder without any log (what AgentJet makes first): still running, not "empty".
        const session = join(root, 'sum_agent_live', '2026_12_06_19_00', 'host1');
        mkdirSync(session, { recursive: true });
        assert.equal((await statusOf(root)).status, 'running');
        owner.setPaused(true, Date.now());
        await waitFor(
          async () => /^paused in the debugger since \d\d:\d\d$/.test((await statusOf(root)).text ?? ''),
          'paused in the debugger since HH:MM',
        );
        assert.equal((await statusOf(root)).status, 'running');
        owner.setPaused(false);
        await waitFor(async () => (await statusOf(root)).text === undefined, 'resumed');
        if (end === 'stopped') {
          owner.requestStop();
          await waitFor(async () => (await statusOf(root)).text === 'stopping', 'stopping');
          assert.equal((await statusOf(root)).status, 'running');
          child.kill('SIGTERM');
          keeper.exitCode = 143;
          keeper.exitSignal = 'SIGTERM';
          keeper.stopRequestedMs = owner.stopRequestedMs;
        } else {
          child.kill('SIGTERM');
          keeper.exitCode = 0;
        }
        await keeper.finish(
          r,
          planned.plan,
          child.pid,
          () => undefined,
          (m) => assert.fail(m),
        );
        const last = await statusOf(root);
        assert.equal(last.status, end);
        assert.equal(last.text, undefined);
        // One record, rewritten in place.
        assert.equal(
          readdirSync(join(root, 'sum_agent_live', '.agentjet-vscode', 'launches')).filter((f) => f.endsWith('.json')).length,
          1,
        );
        assert.ok(written.length >= 4, `written ${written.length} times`);
      } finally {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });

  test('the launcher names another folder: the record moves there, the expected one goes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-live-'));
    const root = join(dir, 'saved_experiments');
    try {
      const config = join(dir, 'sum_agent.yaml');
      writeFileSync(config, 'ajet:\n  experiment_name: read_yaml_name\n');
      const r = resolveAttributes({ config, cwd: dir, python: process.execPath });
      const planned = await planLaunch(r, { lint: false });
      assert.ok(planned.ok);
      const owner = new LaunchOwner({ watchdog: false });
      const keeper = new LaunchRecordKeeper();
      keeper.beginLive(owner, r, planned.plan, 'debug');
      await waitFor(async () => (await statusOf(root)).status === 'running', 'expected folder');
      const expected = (await statusOf(root)).names[0]!;
      assert.match(expected, /^sum_agent_\d{8}_\d{4}/);
      // The launcher made its own folder and said so.
      const real = join(root, 'sum_agent_20991231_235959_001');
      mkdirSync(real, { recursive: true });
      writeFileSync(join(real, 'yaml_backup.yaml'), 'ajet: {}\n');
      keeper.push(`Experiment Name: sum_agent_20991231_235959_001\nExperiment Yaml Dir: ${join(real, 'yaml_backup.yaml')}\n`, 'stdout', r);
      await waitFor(async () => (await statusOf(root)).names.join() === 'sum_agent_20991231_235959_001', 'the record moved');
      assert.equal((await statusOf(root)).status, 'running');
      // A refusal after that (nothing ran) leaves no record behind.
      await keeper.abandon(undefined);
      assert.deepEqual(readdirSync(real).sort(), ['yaml_backup.yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('stopped while being prepared: "stopped", not "empty" nor gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-live-'));
    const root = join(dir, 'saved_experiments');
    try {
      const config = join(dir, 'sum_agent.yaml');
      writeFileSync(config, 'ajet:\n  experiment_name: early_stop\n');
      const r = resolveAttributes({ config, cwd: dir, python: process.execPath });
      const planned = await planLaunch(r, { lint: false });
      assert.ok(planned.ok);
      const owner = new LaunchOwner({ watchdog: false });
      const keeper = new LaunchRecordKeeper();
      keeper.beginLive(owner, r, planned.plan, 'debug');
      owner.requestStop();
      await owner.end();
      await keeper.abandon(owner.stopRequestedMs);
      assert.equal((await statusOf(root)).status, 'stopped');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
