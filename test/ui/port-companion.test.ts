// As a user with two AgentJet projects (issue 22 item 16): the first project's vLLM companion, left
// running by its launch (as AgentJet's launcher leaves it), holds the port the second project's
// config names. "Debug rollout" in the second project is refused with that companion named, and the
// message's "Stop It and Launch" ends the other companion's process group and launches. Real
// workbench, packaged .vsix, the REAL AgentJet launcher (agentjet-d20cce0, stubs as in debug.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { openWorkbench } from '../harness/workbench';
import { withUpstream } from '../util/upstream';
import { listProcesses } from '../../core/launch/processes';
import { companionsOf } from '../../core/launch/companions';
import { realAgentJetMissing, realWorkspace } from '../conformance/realAgentJet';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';

test(
  "a port held by another project's companion: the refusal names it, and Stop It and Launch frees the port and launches (screenshot)",
  withUpstream('agentjet-d20cce0', async (_dir, t) => {
    if (skipForEnvironment(t, realAgentJetMissing())) return;
    const first = await realWorkspace('agentjet-d20cce0', 'aj-ui-portA-');
    const second = await realWorkspace('agentjet-d20cce0', 'aj-ui-portB-');
    try {
      // The first project's rollout, from a shell: its launcher exits, its vLLM companion stays.
      const run = spawn(first.python, ['-m', 'ajet.launcher', '--conf', first.config, '--backbone', 'debug'], {
        cwd: first.dir,
        env: { ...process.env, PYTHONPATH: first.pythonPath },
        stdio: 'ignore',
      });
      await new Promise<void>((r) => run.once('exit', () => r()));
      const theirs = await waitFor(
        () => companionsOf(first.dir).find((c) => c.alive),
        "the first project's companion running",
        60_000,
        200,
      );
      // The second project's config names the same port.
      writeFileSync(
        second.config,
        readFileSync(second.config, 'utf8').replace(`debug_vllm_port: ${second.port}`, `debug_vllm_port: ${first.port}`),
      );
      const wb = await openWorkbench({
        workspace: second.dir,
        env: { PYTHONPATH: second.pythonPath },
        settings: { 'agentjet.pythonPath': second.python },
      });
      try {
        await wb.openFile('conformance.yaml');
        const lens = wb.page.locator('.codelens-decoration a', { hasText: 'Debug rollout' }).first();
        await lens.waitFor({ state: 'visible', timeout: 30_000 });
        await lens.click();
        // A refusal that lists its causes is a dialog (issue 43 item 7), its causes one per line.
        const toast = wb.page.locator('.monaco-dialog-box', { hasText: "AgentJet's own companion" }).first();
        await toast.waitFor({ state: 'visible', timeout: 60_000 });
        const text = await toast.innerText();
        assert.ok(text.includes(first.dir), `the message names the other project: ${text}`);
        assert.match(text, new RegExp(`kill -- -${theirs.pgid}`));
        const shot = await wb.screenshot('port-held-by-companion');
        assert.ok(existsSync(shot));
        const stopIt = toast.locator('.monaco-button', { hasText: 'Stop It and Launch' }).first();
        assert.equal(await toast.locator('.monaco-button', { hasText: /Reuse/ }).count(), 0, 'no reuse: AgentJet cannot share it');
        await stopIt.click();
        // The other companion's group ends; the launch starts and brings up its own companion.
        await waitFor(
          async () => !(await listProcesses()).some((p) => p.pgid === theirs.pgid && !/<defunct>\s*$/.test(p.args)),
          "the first project's companion group ended",
          30_000,
          200,
        );
        await waitFor(() => companionsOf(second.dir).some((c) => c.alive), "the second project's own companion", 120_000, 300);
        const toolbar = wb.page.locator('.debug-toolbar').first();
        await toolbar.waitFor({ state: 'visible', timeout: 60_000 }).catch(() => undefined);
        if (await toolbar.isVisible()) await wb.press('Shift+F5');
      } finally {
        await wb.close();
      }
    } finally {
      await first.dispose();
      await second.dispose();
      // Whatever the second launch left of its tree (its companion is stopped by dispose()).
      const left = (await listProcesses()).filter((p) => p.args.includes(second.dir) || p.args.includes(first.dir));
      for (const p of left) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
  }),
);
