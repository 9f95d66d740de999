// As a user: in a project whose Ray code calls AgentJet's bp("ROLLOUT"), click the CodeLens "Debug
// training with this tag"; the launch runs with RAY_DEBUG=1 and --debug ROLLOUT, a real Ray worker
// pauses, the extension finds it in the session logs and attaches as a child session; the editor
// shows the bp line with its variables; Continue resumes it and the run ends. Real workbench,
// packaged .vsix, the REAL Ray (pip), inside a loopback-only network namespace. The launched module
// is the Ray fixture's STAND-IN launcher (test/fixtures/ray-training/README.md; AgentJet's real
// training needs GPUs) with AgentJet's REAL bp() (ajet/utils/vsdb.py of the upstream tree).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { fixtureEnv, killRayProcesses, lineIn, rayFixture, outsideLoopbackNetns, testInLoopbackNetns } from '../util/rayLocal';

if (outsideLoopbackNetns()) {
  testInLoopbackNetns(__filename, 'UI: debug training with a bp() tag on the real Ray', 900_000);
} else {
  test(
    'Debug training with this tag: a Ray worker pauses at bp("ROLLOUT"), the editor shows it with variables, Continue resumes',
    { timeout: 600_000 },
    async () => {
      const ws = mkdtempSync(join(tmpdir(), 'aj-ui-ray-'));
      cpSync(rayFixture, ws, { recursive: true });
      const rayTemp = mkdtempSync('/tmp/ajr-');
      const py = ensureTestPython().python;
      const wb = await openWorkbench({
        workspace: ws,
        env: { PYTHONPATH: ws, ...fixtureEnv(), AJ_RAY_TEMP: rayTemp, RAY_DEDUP_LOGS: '0', RAY_USAGE_STATS_ENABLED: '0' },
        settings: { 'agentjet.pythonPath': py, 'debug.openDebug': 'openOnDebugBreak', 'agentjet.ray.autoAttach': true },
      });
      const config = join(ws, 'ray_train.yaml');
      try {
        const src = readFileSync(join(ws, 'train', 'rollout.py'), 'utf8');
        const line = lineIn(src, '    bp("ROLLOUT")');
        // AgentJet activates on its configs; then the Python file gets the bp() lens.
        await wb.openFile('ray_train.yaml');
        await wb.openFile('train/rollout.py');
        const lens = wb.page.locator('.codelens-decoration a', { hasText: 'Debug training with this tag' }).first();
        await lens.waitFor({ state: 'visible', timeout: 60_000 });
        await lens.click();

        // The child session stops; the editor shows the bp("ROLLOUT") line (AgentJet's helper frame above it is deemphasized).
        await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'visible', timeout: 180_000 });
        const stopped = wb.page.locator('.debug-focused-stack-frame-line, .debug-top-stack-frame-line').first();
        await stopped.waitFor({ state: 'visible', timeout: 180_000 });
        await wb.showVariable('trajectory', 60_000);
        const current = wb.page.locator('.monaco-editor .line-numbers.active-line-number').first();
        assert.equal((await current.textContent())?.trim(), String(line), 'the editor is at the bp("ROLLOUT") line');
        // The Variables and Call Stack views fill in on their own: wait for the rows, do not sample them.
        await wb.showVariable('reward');
        await wb.page.locator('.monaco-list-row', { hasText: 'rollout' }).first().waitFor({ state: 'visible', timeout: 30_000 }); // the rollout frame
        // The Paused workers view lists it.
        const shot = await wb.screenshot('ray-paused-at-bp-tag');
        assert.ok(existsSync(shot));

        // Continue: the worker resumes, the task returns and the launch ends by itself.
        await wb.press('F5');
        let alive = (await listProcesses()).filter((p) => p.args.includes(config));
        await waitFor(
          async () => (alive = (await listProcesses()).filter((p) => p.args.includes(config))).length === 0,
          () => `the launcher to finish after Continue; left: ${alive.map((p) => p.args).join(' | ')}`,
          120_000,
          300,
        );
        await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60_000 });
      } catch (e) {
        await wb.screenshot('ray-failure').catch(() => undefined);
        throw e;
      } finally {
        await wb.close();
        await killRayProcesses(rayTemp);
        rmSync(rayTemp, { recursive: true, force: true });
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );
}
