// As a user: set a gutter breakpoint (F9) in Ray code that has no bp()/breakpoint() in it, run
// "Debug Training with Editor Breakpoints (Ray Workers)"; the Ray workers open listeners, the
// extension attaches to the rollout/reward workers as child sessions of the launch, and the editor
// stops at the breakpoint in a Ray task with its variables. Stop ends the launch and leaves nothing
// of it running. Real workbench, packaged .vsix, the REAL Ray (pip), in a loopback-only network
// namespace; the launched module is the Ray fixture's stand-in launcher
// (test/fixtures/ray-training/README.md). The run joins a two-node cluster whose second node keeps
// its logs apart (as another machine would), and the rollout and reward workers run there: the
// extension finds them only through the launch's console. (Workers found in local logs: the
// protocol test test/protocol/ray-breakpoints.test.ts and the bp() UI test test/ui/ray.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { findFile, findFiles } from '../util/findFile';
import { fixtureEnv, lineIn, rayFixture, outsideLoopbackNetns, startTwoNodeRay, testInLoopbackNetns } from '../util/rayLocal';

if (outsideLoopbackNetns()) {
  testInLoopbackNetns(__filename, 'UI: gutter breakpoints in Ray workers on the real Ray', 900_000);
} else {
  test(
    'a gutter breakpoint in a Ray task on another node (no debug call in the code) stops the editor there; Stop leaves nothing of the launch running',
    { timeout: 600_000 },
    async () => {
      const ws = mkdtempSync(join(tmpdir(), 'aj-ui-raybp-'));
      cpSync(rayFixture, ws, { recursive: true });
      const goDir = mkdtempSync('/tmp/ajr-go-');
      const go = join(goDir, 'go');
      const py = ensureTestPython().python;
      const cluster = startTwoNodeRay(py);
      const wb = await openWorkbench({
        workspace: ws,
        env: {
          ...fixtureEnv(),
          PYTHONPATH: ws,
          RAY_ADDRESS: cluster.address,
          AJ_RAY_PIN: 'far',
          AJ_RAY_PROGRAM: 'gutter',
          AJ_RAY_GO: go,
          AJ_RAY_ROLLOUTS: '1',
          RAY_USAGE_STATS_ENABLED: '0',
        },
        settings: { 'agentjet.pythonPath': py, 'debug.openDebug': 'openOnDebugBreak' },
      });
      const config = join(ws, 'ray_train.yaml');
      try {
        const line = lineIn(readFileSync(join(ws, 'train', 'gutter.py'), 'utf8'), '# gutter: rollout');
        await wb.openFile('ray_train.yaml');
        await wb.openFile('train/gutter.py');
        // The gutter breakpoint, as a user sets it: go to the line, F9.
        await wb.press('Control+G');
        await wb.page.keyboard.type(String(line));
        await wb.press('Enter');
        await wb.press('F9');
        await wb.page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 30_000 });

        await wb.runCommand('Debug Training with Editor Breakpoints (Ray Workers)');
        await wb.press('Control+Shift+D');
        // The rollout worker is attached as a child session (named after its tasks) and has the
        // editor's breakpoints: the extension logs it (the Call Stack list is virtual: rows below
        // the parent's threads are not in the DOM).
        const exception = wb.page.locator('.exception-widget').first();
        await waitFor(
          async () => {
            // A launch that stopped on an exception never attaches a worker: say so at once.
            if (await exception.isVisible()) throw new Error(`the launch stopped on an exception: ${await exception.innerText()}`);
            const log = findFile(wb.server.dataDir, (p) => p.endsWith('AgentJet.log'));
            return !!log && /ray: breakpoints set in Ray: [^\n]*rollout_task/.test(readFileSync(log, 'utf8'));
          },
          'the rollout worker attached as a child session with the breakpoints',
          300_000,
          300,
        );
        // It runs on the second node: no log of this machine's session says rollout_task.
        const here = findFiles(cluster.headTemp, (p) => /worker-.*\.(out|err)$/.test(p));
        assert.ok(
          here.every((f) => !readFileSync(f, 'utf8').includes(':task_name:rollout_task')),
          "the rollout worker's log is not on this machine",
        );
        // Now the task may go on to the line (the fixture's tasks wait for this file).
        writeFileSync(go, 'go');
        const stopped = wb.page.locator('.debug-top-stack-frame-line, .debug-focused-stack-frame-line').first();
        await stopped.waitFor({ state: 'visible', timeout: 120_000 });
        await wb.page.locator('.monaco-list-row', { hasText: 'task_id' }).first().waitFor({ state: 'visible', timeout: 60_000 });
        const current = wb.page.locator('.monaco-editor .line-numbers.active-line-number').first();
        assert.equal((await current.textContent())?.trim(), String(line), 'the editor is at the gutter breakpoint');
        // The call stack shows the task frame (the view fills in on its own: wait, do not sample).
        await wb.page.locator('.monaco-list-row', { hasText: 'score_of' }).first().waitFor({ state: 'visible', timeout: 30_000 });
        const shot = await wb.screenshot('ray-gutter-breakpoint');
        assert.ok(existsSync(shot));

        // Stop on the launch: the launcher and the job's workers (and their debugpy adapters) go; the
        // cluster, which is not the launch's, stays.
        await wb.press('Shift+F5');
        let left: string[] = [];
        await waitFor(
          async () =>
            (left = (await listProcesses())
              .filter((p) => (p.args.includes(config) || /ray::(rollout_task|RewardWorker)/.test(p.args)) && !/<defunct>\s*$/.test(p.args))
              .map((p) => p.args)).length === 0,
          () => `nothing of the launch left running; left: ${left.join(' | ')}`,
          120_000,
          300,
        );
        await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60_000 });
      } catch (e) {
        await wb.screenshot('ray-bp-failure').catch(() => undefined);
        // The extension's own log says what it attached and why not.
        const log = findFile(wb.server.dataDir, (p) => p.endsWith('AgentJet.log'));
        if (log) process.stderr.write(`--- ${log}\n${readFileSync(log, 'utf8').slice(-6000)}\n`);
        throw e;
      } finally {
        await wb.close();
        await cluster.dispose();
        rmSync(goDir, { recursive: true, force: true });
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );
}
