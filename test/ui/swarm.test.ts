// As a user: a swarm server in the settings, its engine ROLLING with a batch half done by a real
// SwarmClient; the AgentJet container shows it in the Swarm Servers view, and clicking it opens the
// overwatch panel with progress, the per-task rewards and the verbose log. Real workbench, packaged
// .vsix, AgentJet 0.0.4's REAL swarm server (test/fixtures/swarm) inside a loopback-only network
// namespace (it binds 0.0.0.0). The screenshot is docs/images/swarm.png.
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';
import { loopbackOnly, netnsUnavailable, NETNS_ENV, rerunInNetns } from '../util/rayLocal';
import { UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { runSwarmClient, startEngine, startSwarmServer, swarmFixture, swarmTrees, SWARM_TREE } from '../util/swarmLocal';
import { lineOf } from '../util/debugWorkspace';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';

/** A swarm client as users write it (AgentJet's real SwarmClient, a workflow, one episode), in `dir`. */
function clientScript(dir: string, url: string): string {
  const trees = swarmTrees()!;
  const file = join(dir, 'my_swarm_client.py');
  writeFileSync(
    file,
    [
      'import sys',
      `sys.path.insert(0, ${JSON.stringify(swarmFixture)})`,
      'from common import client_standins, setup',
      `setup(${JSON.stringify(trees.agentjet)}, ${JSON.stringify(trees.beast)})`,
      'client_standins()',
      'import httpx',
      'from ajet.schema.task import Task, WorkflowOutput',
      'from ajet.tuner_lib.experimental.swarm_client import SwarmClient',
      '',
      '',
      'def workflow(task, base_url, api_key):',
      '    resp = httpx.post(f"{base_url}/chat/completions", json={"model": "any", "messages": [{"role": "user", "content": task.main_query}]},',
      '                      headers={"Authorization": f"Bearer {api_key}"}, timeout=30)',
      '    answer = resp.json()["choices"][0]["message"]["content"]',
      '    reward = 1.0 if "\\\\boxed{4}" in answer else 0.0  # BREAK',
      '    return WorkflowOutput(reward=reward, metadata={"answer": answer})',
      '',
      '',
      `client = SwarmClient(${JSON.stringify(url)})`,
      'task = Task(task_id="mine-0", main_query="2 + 2 = ?", metadata={"answer": "4"})',
      'episode_uuid, key = client.begin_episode(discard_episode_timeout=60)',
      'out = workflow(task, key.base_url, key.api_key)',
      'client.end_episode(task, episode_uuid, out)',
      '',
    ].join('\n'),
  );
  return file;
}

if (!swarmTrees()) {
  test('UI: swarm servers view', (t) => void skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} ${SWARM_TREE} missing; ${UPSTREAM_SKIP}`));
} else if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
  test('UI: swarm servers view and overwatch (re-run in a loopback-only network namespace)', { timeout: 600_000 }, async (t) => {
    if (skipForEnvironment(t, netnsUnavailable())) return;
    ensureTestPython();
    assert.equal((await rerunInNetns(__filename)).code, 0, 'the UI test passed inside the namespace (see its output above)');
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

  test(
    'a swarm client debugged from the editor has its episode marked in the overwatch panel, and the mark goes when the session ends',
    { timeout: 400_000 },
    async () => {
      const python = ensureTestPython().python;
      const server = await startSwarmServer(python);
      const engine = startEngine(python, server);
      const dir = mkdtempSync(join(tmpdir(), 'aj-ui-swcl-'));
      try {
        await engine.state('ENGINE.ROLLING', 5);
        assert.ok((await engine.send({ op: 'batch', method: 'rollout_until_finish_enough_tasks', tasks: 4, repeat: 2 })).ok);
        assert.equal((await engine.send({ op: 'register', n: 2 })).episodes?.length, 2);
        // Another client's episode first (a terminal somewhere else): it is in the pool, not marked.
        const other = await runSwarmClient(python, server.url, 1, 'other').done;
        assert.equal(other.code, 0, other.output.slice(-2000));
        const script = clientScript(dir, server.url);
        const line = lineOf(script, '# BREAK');

        const wb = await openWorkbench({
          workspace: dir,
          settings: { 'agentjet.pythonPath': python, 'agentjet.swarm.servers': [server.url], 'debug.openDebug': 'neverOpen' },
        });
        try {
          // The AgentJet container first (a folder with only a swarm client activates the extension from there).
          await wb.activityItem('AgentJet').click();
          await wb.page.locator('.pane-header', { hasText: 'Swarm Servers' }).first().waitFor({ state: 'visible', timeout: 60_000 });
          await wb.openFile('my_swarm_client.py');
          await wb.press('Control+G');
          await wb.page.keyboard.type(String(line));
          await wb.press('Enter');
          await wb.press('F9');
          await wb.page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });
          const lens = wb.page.locator('.codelens-decoration a', { hasText: 'Debug this swarm client' }).first();
          await lens.waitFor({ state: 'visible', timeout: 30_000 });
          await lens.click();
          // Stopped in the workflow: the episode is open on the server.
          await wb.page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 120_000 });

          // The container is still the sidebar's (clicking its icon again would hide the sidebar).
          const header = wb.page.locator('.pane-header', { hasText: 'Swarm Servers' }).first();
          if (!(await header.isVisible())) await wb.activityItem('AgentJet').click();
          await header.waitFor({ state: 'visible', timeout: 60_000 });
          if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
          for (const name of ['Runs', 'Companions', 'Paused Workers']) {
            const h = wb.page.locator('.pane-header', { hasText: name }).first();
            if ((await h.count()) && (await h.getAttribute('aria-expanded')) === 'true') await h.click();
          }
          await wb.page.locator('.monaco-list-row', { hasText: server.url }).first().waitFor({ state: 'visible', timeout: 60_000 });
          // The overwatch from the CodeLens above the client's SwarmClient(...) (the editor is still open on it).
          const open = wb.page.locator('.codelens-decoration a', { hasText: 'Open swarm overwatch' }).first();
          await open.waitFor({ state: 'visible', timeout: 30_000 });
          await open.click();
          const frame = await wb.webviewFrame('.sw-header', 60_000);
          // The panel names the editor's client and marks its running episode (and its client row).
          const named = frame.locator('.sw-editor-client', {
            hasText: /Launched from the editor: .*my_swarm_client\.py, client [0-9a-f]{8}…; 1 running episodes/,
          });
          await named.waitFor({ timeout: 60_000 });
          const pool = (await (await fetch(`${server.url}/get_current_batch_rollout_pool_information`)).json()) as {
            running_episode_details: Record<string, { client_uuid: string }> | null;
          };
          const running = Object.entries(pool.running_episode_details ?? {});
          assert.equal(running.length, 1, "one episode open: the debugged client's");
          const [episode, detail] = running[0]!;
          assert.notEqual(detail.client_uuid, other.clientUuid);
          assert.match((await named.textContent()) ?? '', new RegExp(`client ${detail.client_uuid.slice(0, 8)}…`));
          const mine = frame.locator('tr.sw-mine');
          await frame
            .locator('tr.sw-mine', { hasText: episode.slice(0, 8) })
            .first()
            .waitFor({ timeout: 30_000 });
          await frame.locator('tr.sw-mine', { hasText: detail.client_uuid }).first().waitFor({ timeout: 30_000 });
          // The other client's row is there, not marked.
          const otherRow = frame.locator('tr', { hasText: other.clientUuid }).first();
          await otherRow.waitFor({ timeout: 30_000 });
          assert.equal(await otherRow.getAttribute('class'), null);
          assert.equal(await frame.locator('tr.sw-mine', { hasText: other.clientUuid }).count(), 0);
          assert.ok((await mine.count()) >= 2);
          await frame.locator('tr.sw-mine .sw-badge', { hasText: 'editor' }).first().waitFor({ timeout: 10_000 });
          // The screenshot shows the marked rows: the Debug Console folded away, the panel scrolled to them.
          const bottom = wb.page.locator('.part.panel').first();
          if (await bottom.isVisible()) {
            await wb.runCommand('View: Hide Panel').catch(() => wb.press('Escape'));
            await bottom.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
          }
          // The panel redraws its tables on each poll: an element can go between finding and scrolling.
          const scrollTo = (what: string, loc: Locator) =>
            waitFor(
              async () =>
                loc.scrollIntoViewIfNeeded({ timeout: 2_000 }).then(
                  () => true,
                  () => false,
                ),
              what,
              20_000,
              100,
            );
          await scrollTo('the episodes heading', frame.locator('h3', { hasText: 'Episodes by client' }).first());
          await scrollTo('the marked episode row', frame.locator('tr.sw-mine', { hasText: episode.slice(0, 8) }).first());
          const shot = await wb.screenshot('swarm-editor-client');
          copyFileSync(shot, join(repoRoot, 'docs', 'images', 'swarm-editor-client.png'));

          // Stop: the session ends, and so does the mark (the server still holds the episode until its timeout).
          await wb.press('Shift+F5');
          await frame.locator('.sw-editor-client').first().waitFor({ state: 'detached', timeout: 60_000 });
          await waitFor(async () => (await mine.count()) === 0 || undefined, 'no marked row after the session ended', 30_000, 200);
          await frame
            .locator('td', { hasText: episode.slice(0, 8) })
            .first()
            .waitFor({ timeout: 10_000 });
          let left: string[] = [];
          await waitFor(
            async () =>
              (left = (await listProcesses()).filter((p) => p.args.includes(script)).map((p) => p.args)).length === 0 || undefined,
            () => `the client process ended with the session; left: ${left.join(' | ')}`,
            30_000,
            200,
          );
        } catch (e) {
          await wb.screenshot('swarm-editor-client-failure').catch(() => undefined);
          throw e;
        } finally {
          await wb.close();
        }
      } finally {
        await engine.dispose();
        await server.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
