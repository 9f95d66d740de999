// Issue 22 items 13-14: the launch tree dies with its owner. A killed launcher does not leave a
// grandchild holding the session open; a killed adapter does not leave the launcher, debugpy's
// adapter or their children running (the watchdog ends their groups), companions spared.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { adapterJs, demoCopy, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { killLeft } from '../util/holdLaunch';
import { listProcesses } from '../../core/launch/processes';
import { companionFolder, readCompanions } from '../../core/launch/companions';

const python = ensureTestPython().python;

function client(): DebugClient {
  const dc = new DebugClient('node', adapterJs, 'agentjet');
  dc.defaultTimeout = 60_000;
  return dc;
}

/** A config whose workflow starts a grandchild in the launcher's own process group that inherits
 * its stdout (the pipe stays open when the launcher dies), then blocks. */
function slowConfig(w: DemoCopy, marker: string): string {
  writeFileSync(
    join(w.dir, `${marker}.py`),
    [
      'import subprocess, sys, time',
      'from ajet import Workflow',
      'class Slow(Workflow):',
      '    async def execute(self, workflow_task, tuner):',
      `        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300) # ${marker}"])`,
      '        print("slow workflow running", flush=True)',
      '        time.sleep(300)',
      '',
    ].join('\n'),
  );
  const conf = join(w.dir, `${marker}.yaml`);
  writeFileSync(
    conf,
    `ajet:\n  experiment_name: ${marker}\n  task_reader:\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n  rollout:\n    user_workflow: ${marker}.py->Slow\n  debug:\n    debug_first_n_tasks: 1\n    debug_vllm_port: ${w.port}\n`,
  );
  return conf;
}

const alive = async (marker: string) => (await listProcesses()).filter((p) => p.args.includes(marker) && !/\bps -eo\b/.test(p.args));

describe('the launch tree dies with its owner', { timeout: 180_000 }, () => {
  let w: DemoCopy;
  before(async () => {
    w = await demoCopy('aj-orphans-');
  });
  after(async () => {
    await w.dispose();
  });

  // Checked: without the fix no exited/terminated comes (the grandchild holds the pipe) and the
  // grandchild keeps running.
  test('issue 22 #13: SIGKILL of the launcher (Run Without Debugging): exited and terminated come, the grandchild is ended', async () => {
    const marker = 'ajorphan13';
    const dc = client();
    await dc.start();
    const outputs: DebugProtocol.OutputEvent[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e));
    const proc = dc.waitForEvent('process');
    try {
      await Promise.all([
        dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
        dc.launch({ config: slowConfig(w, marker), cwd: w.dir, python, env: { PYTHONPATH: standInBackbone }, noDebug: true }),
      ]);
      const launcher = ((await proc).body as DebugProtocol.ProcessEvent['body']).systemProcessId as number;
      await waitFor(() => outputs.some((o) => o.body.output.includes('slow workflow running')), 'the workflow to run', 30_000);
      assert.ok((await alive(marker)).length > 0, 'the grandchild runs');
      const ended = Promise.all([dc.waitForEvent('exited', 10_000), dc.waitForEvent('terminated', 10_000)]);
      process.kill(launcher, 'SIGKILL');
      await ended;
      await waitFor(async () => (await alive(marker)).length === 0, 'the grandchild to end', 10_000);
    } finally {
      await dc.stop();
      killLeft(await alive(marker));
    }
  });

  // Checked: without the watchdog the launcher and its grandchild run on under PID 1 (Run Without
  // Debugging; a debug run happened to end with debugpy's adapter here, kept as a guard).
  for (const noDebug of [true, false])
    test(`issue 22 #14: SIGKILL of the adapter (${noDebug ? 'run without debugging' : 'debug run'}): the launch tree ends; the companion stays`, async () => {
      const marker = `ajorphan14${noDebug ? 'n' : 'd'}`;
      const dc = client();
      await dc.start();
      const outputs: DebugProtocol.OutputEvent[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e));
      const adapter = (await listProcesses()).filter((p) => p.ppid === process.pid && p.args.includes('adapter.js')).at(-1);
      assert.ok(adapter, 'the adapter runs');
      let killed = false;
      try {
        await Promise.all([
          dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
          dc.launch({ config: slowConfig(w, marker), cwd: w.dir, python, env: { PYTHONPATH: standInBackbone }, noDebug }),
        ]);
        await waitFor(() => outputs.some((o) => o.body.output.includes('slow workflow running')), 'the workflow to run', 30_000);
        const before = await alive(w.dir);
        assert.ok(before.length > 0, 'the launch runs');
        const companions = readCompanions(companionFolder(w.dir, 'saved_experiments')).filter((c) => c.alive);
        process.kill(adapter.pid, 'SIGKILL');
        killed = true;
        const spare = new Set(companions.map((c) => c.pgid));
        const ours = async () => [...(await alive(w.dir)), ...(await alive(marker))].filter((p) => !spare.has(p.pgid));
        await waitFor(async () => (await ours()).length === 0, 'the launch tree to end', 15_000).catch(async (e: Error) =>
          assert.fail(`${e.message}: ${JSON.stringify(await ours())}`),
        );
        assert.ok(
          readCompanions(companionFolder(w.dir, 'saved_experiments')).some((c) => c.alive),
          'the companion is spared',
        );
      } finally {
        // A killed adapter answers nothing: stop() would wait forever.
        if (!killed) await dc.stop();
        killLeft(await alive(marker));
      }
    });
});
