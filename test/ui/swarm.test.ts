// As a user: a swarm server in the settings, its engine ROLLING with a batch half done by a real
// SwarmClient; the AgentJet container shows it in the Swarm Servers view, and clicking it opens the
// overwatch panel with progress, the per-task rewards and the verbose log. Real workbench, packaged
// .vsix, AgentJet 0.0.4's REAL swarm server (test/fixtures/swarm) inside a loopback-only network
// namespace (it binds 0.0.0.0). The screenshot is docs/images/swarm.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';
import { loopbackOnly, netnsUnavailable, NETNS_ENV, rerunInNetns } from '../util/rayLocal';
import { UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { runSwarmClient, startEngine, startSwarmServer, swarmTrees, SWARM_TREE } from '../util/swarmLocal';

if (!swarmTrees()) {
  test('UI: swarm servers view', (t) => t.skip(`${UPSTREAM_SKIP_TAG} ${SWARM_TREE} missing; ${UPSTREAM_SKIP}`));
} else if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
  test('UI: swarm servers view and overwatch (re-run in a loopback-only network namespace)', { timeout: 600_000 }, async (t) => {
    const why = netnsUnavailable();
    if (why) {
      t.skip(why);
      return;
    }
    ensureTestPython();
    assert.equal(await rerunInNetns(__filename), 0, 'the UI test passed inside the namespace (see its output above)');
  });
} else {
  test(
    'the Swarm Servers view shows a ROLLING server; its overwatch panel shows progress, rewards and the log',
    { timeout: 400_000 },
    async () => {
      const python = ensureTestPython().python;
      const server = await startSwarmServer(python);
      const engine = startEngine(python, server);
      try {
        await engine.state('ENGINE.ROLLING', 3);
        assert.ok((await engine.send({ op: 'batch', method: 'rollout_until_finish_enough_tasks', tasks: 4, repeat: 2 })).ok);
        assert.equal((await engine.send({ op: 'register', n: 4 })).episodes?.length, 4);
        const done = await runSwarmClient(python, server.url, 4).done;
        assert.equal(done.code, 0, done.output.slice(-2000));
        assert.equal((await engine.send({ op: 'wait_done', n: 4, timeout: 30 })).done, 4);

        const wb = await openWorkbench({ settings: { 'agentjet.swarm.servers': [server.url] } });
        try {
          await wb.activityItem('AgentJet').click();
          const header = wb.page.locator('.pane-header', { hasText: 'Swarm Servers' }).first();
          await header.waitFor({ state: 'visible', timeout: 60_000 });
          if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
          const row = wb.page.locator('.monaco-list-row', { hasText: server.url }).first();
          await row.waitFor({ state: 'visible', timeout: 60_000 });
          await wb.page.locator('.monaco-list-row', { hasText: 'ENGINE.ROLLING' }).first().waitFor({ state: 'visible', timeout: 30_000 });
          await wb.page.locator('.monaco-list-row', { hasText: '2 / 4' }).first().waitFor({ state: 'visible', timeout: 30_000 });
          await row.click();
          const frame = await wb.webviewFrame('.sw-header', 60_000);
          await frame.locator('.sw-header', { hasText: 'ENGINE.ROLLING' }).waitFor({ timeout: 30_000 });
          await frame.locator('td', { hasText: 'task-1' }).first().waitFor({ timeout: 30_000 });
          // The server keeps a verbose log line 30 s: push it now, as a live engine would.
          assert.ok((await engine.send({ op: 'log', tag: 'update_policy', message: 'collecting batch for step 3' })).ok);
          await frame.locator('td', { hasText: 'collecting batch for step 3' }).first().waitFor({ timeout: 30_000 });
          const text = (await frame.locator('body').textContent()) ?? '';
          assert.match(text, /global step 3/);
          assert.match(text, /0\.500 ± 0\.500/);
          // Room for the Swarm Servers view in the screenshot: fold the other views of the container.
          for (const name of ['Runs', 'Companions', 'Paused Workers']) {
            const h = wb.page.locator('.pane-header', { hasText: name }).first();
            if ((await h.count()) && (await h.getAttribute('aria-expanded')) === 'true') await h.click();
          }
          await wb.page.locator('.monaco-list-row', { hasText: 'Active clients' }).first().waitFor({ state: 'visible', timeout: 10_000 });
          const shot = await wb.screenshot('swarm');
          copyFileSync(shot, join(repoRoot, 'docs', 'images', 'swarm.png'));
        } catch (e) {
          await wb.screenshot('swarm-failure').catch(() => undefined);
          throw e;
        } finally {
          await wb.close();
        }
      } finally {
        await engine.dispose();
        await server.dispose();
      }
    },
  );
}
