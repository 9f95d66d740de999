// Issue 43 items 2 and 3, as a user sees them: F5 on the real AgentJet launcher (agentjet-d20cce0),
// paused at a breakpoint in the workflow (the launcher's child process), then Stop; once with the
// AgentJet sidebar shown, once with it hidden while the Stop is made. At each moment the Runs view's
// row and `agentjet runs` say the same words: "running" with "paused in the debugger since HH:MM"
// while paused, "stopped" after the Stop, never "empty". Screenshots: test-output/launch-states-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { lineOf } from '../util/debugWorkspace';
import { withUpstream } from '../util/upstream';
import { realAgentJetMissing, realWorkspace } from '../conformance/realAgentJet';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';
import { repoRoot } from '../util/paths';
import { runRow } from '../util/runRow';

interface CliRun {
  experiment: string;
  status: string;
  launch?: { phase: string; text?: string };
}

/** What `agentjet runs` says of the first `conformance_*` run that `pick` accepts. */
function cliRun(dir: string, pick: (r: CliRun) => boolean = () => true): CliRun | undefined {
  const out = execFileSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'runs', dir, '--format', 'json', '--lang', 'en'], {
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { runs: CliRun[] }).runs.find((r) => r.experiment.startsWith('conformance_') && pick(r));
}

/** The Runs row of run `name` whatever its status. */
function runsRow(page: Page, name: string): Locator {
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
  return runRow(pane, name);
}

async function rowWords(page: Page, name: string): Promise<{ label: string; description: string } | undefined> {
  const row = runsRow(page, name);
  if (!(await row.isVisible())) return undefined;
  const label = ((await row.locator('.label-name').textContent()) ?? '').trim();
  const description = ((await row.locator('.label-description').textContent()) ?? '').trim();
  return { label, description };
}

/**
 * Waits until the row and the CLI agree on `status` (and, when given, the launch's words) for the
 * launch's run (the `conformance_*` run `pick` accepts); returns its name.
 */
async function agree(
  wb: Workbench,
  dir: string,
  pick: (r: CliRun) => boolean,
  status: string,
  phase: RegExp | undefined,
  what: string,
): Promise<string> {
  let seen = '';
  let name = '';
  await waitFor(
    async () => {
      const cli = cliRun(dir, pick);
      if (cli) name = cli.experiment;
      const row = cli && (await rowWords(wb.page, cli.experiment));
      seen = `row ${JSON.stringify(row)}, cli ${JSON.stringify(cli)}`;
      if (!cli || !row || cli.status !== status || !row.label.startsWith(`${status} · `)) return false;
      if (!phase) return cli.launch?.text === undefined && !/paused|preparing|stopping/.test(row.description);
      // The same words in both.
      return !!cli.launch?.text && phase.test(cli.launch.text) && row.description.startsWith(cli.launch.text);
    },
    () => `${what}: ${seen}`,
    90_000,
    250,
  );
  return name;
}

test(
  'F5 to Stop: the Runs view and agentjet runs read running, paused in the debugger, then stopped, with the sidebar shown and hidden',
  withUpstream('agentjet-d20cce0', async (_dir, t) => {
    if (skipForEnvironment(t, realAgentJetMissing())) return;
    const w = await realWorkspace('agentjet-d20cce0', 'aj-ui-states-');
    const wb = await openWorkbench({
      workspace: w.dir,
      env: { PYTHONPATH: w.pythonPath },
      settings: { 'agentjet.pythonPath': w.python, 'debug.openDebug': 'neverOpen' },
    });
    const { page } = wb;
    const toolbar = page.locator('.debug-toolbar').first();
    const sidebar = page.locator('.part.sidebar').first();
    try {
      const line = lineOf(w.workflow, '# BREAK HERE');
      await wb.openFile('workflow.py');
      await wb.press('Control+G');
      await page.keyboard.type(String(line));
      await wb.press('Enter');
      await wb.press('F9');
      await page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });
      await wb.activityItem('AgentJet').click();
      await page.locator('.pane-header', { hasText: 'Runs' }).first().waitFor({ state: 'visible', timeout: 30_000 });

      // 1. Sidebar shown: F5 on the config, paused at the breakpoint in the workflow.
      await wb.openFile('conformance.yaml');
      await wb.press('F5');
      await page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 180_000 });
      const running = (r: CliRun) => r.status === 'running';
      const first = await agree(wb, w.dir, running, 'running', /^paused in the debugger since \d\d:\d\d$/, 'paused at the breakpoint');
      await wb.screenshot('launch-states-paused');
      await wb.press('Shift+F5');
      await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
      await agree(wb, w.dir, (r) => r.experiment === first, 'stopped', undefined, 'after Stop, sidebar shown');
      await wb.screenshot('launch-states-stopped');

      // 2. The same with the sidebar hidden when the Stop is made: shown again, the row is true at once.
      await wb.openFile('conformance.yaml');
      await wb.press('F5');
      await page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 180_000 });
      // The second launch: a folder of its own, or the first one again within the same minute.
      const second = await agree(wb, w.dir, running, 'running', /^paused in the debugger since \d\d:\d\d$/, 'paused again');
      await wb.press('Control+B');
      await sidebar.waitFor({ state: 'hidden', timeout: 10_000 });
      await wb.press('Shift+F5');
      await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
      const isSecond = (r: CliRun) => r.experiment === second;
      await waitFor(() => cliRun(w.dir, isSecond)?.status === 'stopped', 'agentjet runs says stopped', 60_000, 250);
      await wb.press('Control+B');
      await sidebar.waitFor({ state: 'visible', timeout: 10_000 });
      // No 20-50 s of "empty": the row reads stopped within the time a redraw takes.
      let row: Awaited<ReturnType<typeof rowWords>>;
      await waitFor(
        async () => (row = await rowWords(page, second))?.label.startsWith('stopped · ') ?? false,
        () => `the row after a hidden Stop: ${JSON.stringify(row)}`,
        5_000,
        100,
      );
      await wb.screenshot('launch-states-hidden-stop');
      assert.equal(cliRun(w.dir, isSecond)?.status, 'stopped');
    } catch (err) {
      await wb.screenshot('launch-states-failure');
      throw err;
    } finally {
      await wb.close();
      await w.dispose();
    }
  }),
);
