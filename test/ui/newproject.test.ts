// A new user's first minutes, in the real VS Code with the packaged .vsix: a folder is open; the
// Swarm Servers view says what it is for and offers Add and Start (screenshot); New Project… with
// the default answers (Math agent, Enter, Enter) writes <folder>/math_agent/. VS Code in a browser
// (what this harness drives) asks whether to open the project or add it as a root, since adding a
// root there reloads the window into an untitled workspace; the user opens it, the window reloads
// on the project, its workflow shows and its .vscode/launch.json is read: 0 problems; a breakpoint
// in the template's workflow and F5 stop there at once. Then a config with errors: F5 is refused
// with the errors as a list (screenshot). The stand-in backbone (test/fixtures/backbone) plays
// `ajet`; debugpy comes from the tests' venv. (The desktop path, which adds the root without
// asking, is covered in the extension host: test/exthost/suites/60-newproject.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { standInBackbone } from '../util/debugWorkspace';
import { freePort } from '../util/net';
import { waitFor } from '../util/poll';
import { repoRoot } from '../util/paths';
import { listProcesses } from '../../core/launch/processes';
import { companionFolder, readCompanions, stopCompanions } from '../../core/launch/companions';

/** Problems counted by the status bar item ("Errors: 2, Warnings: 0"); undefined before it shows. */
async function problemCount(page: Page): Promise<number | undefined> {
  const label = await page.locator('[id="status.problems"]').first().getAttribute('aria-label');
  if (label === null) return undefined;
  return (label.match(/\d+/g) ?? []).reduce((n, x) => n + Number(x), 0);
}

/** Keeps a screenshot the README shows. */
function keep(shot: string, name: string): void {
  mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true });
  copyFileSync(shot, join(repoRoot, 'docs', 'images', name));
}

test('New Project with the default answers: Open Folder opens the project, 0 problems, F5 stops at the breakpoint; a broken config is refused as a list', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'agentjet-ui-newproj-'));
  writeFileSync(join(ws, 'notes.md'), '# my folder\n');
  const project = join(ws, 'math_agent');
  const { python } = ensureTestPython();
  const wb = await openWorkbench({
    workspace: ws,
    env: { PYTHONPATH: standInBackbone },
    settings: { 'agentjet.pythonPath': python, 'debug.openDebug': 'openOnDebugBreak' },
  });
  const { page } = wb;
  try {
    // The Swarm Servers view with nothing known: the welcome text and its two buttons.
    await wb.activityItem('AgentJet').click();
    const swarmHeader = page.locator('.pane-header', { hasText: 'Swarm Servers' }).first();
    await swarmHeader.waitFor({ state: 'visible', timeout: 30_000 });
    if ((await swarmHeader.getAttribute('aria-expanded')) === 'false') await swarmHeader.click();
    // Room for it: the two views between fold up (a person would do the same to read it whole).
    for (const other of ['Companions', 'Paused Workers']) {
      const h = page.locator('.pane-header', { hasText: other }).first();
      if ((await h.getAttribute('aria-expanded')) === 'true') await h.click();
    }
    const swarmPane = page.locator('.pane', { has: swarmHeader }).first();
    await swarmPane.locator('.welcome-view-content .monaco-button', { hasText: 'Add Swarm Server…' }).first().waitFor({ timeout: 30_000 });
    await swarmPane.locator('.welcome-view-content .monaco-button', { hasText: 'Start Local Swarm Server…' }).first().waitFor();
    assert.match(await swarmPane.locator('.welcome-view-content').first().innerText(), /SwarmClient/);
    keep(await wb.screenshot('swarm-servers-welcome'), 'swarm-servers-welcome.png');

    // New Project… from the Runs view's welcome, every answer the default one.
    await page.locator('.welcome-view-content .monaco-button', { hasText: 'New Project…' }).first().click();
    const quick = page.locator('.quick-input-widget');
    await quick.locator('.quick-input-list .monaco-list-row', { hasText: 'Math agent' }).first().waitFor({ timeout: 30_000 });
    await wb.press('Enter'); // the first template: Math agent
    // The folder dialog starts at the open folder ("Create the project here").
    await quick.locator('input').waitFor({ state: 'visible' });
    await waitFor(async () => (await quick.innerText()).includes('Create the project here'), 'the folder dialog', 30_000, 100);
    await wb.press('Enter');
    await waitFor(async () => (await quick.locator('input').inputValue()) === 'math_agent', 'the name box with math_agent', 30_000, 100);
    await wb.press('Enter');

    // In a browser the extension asks: Open Folder reloads the window on the project, whose
    // workflow then shows.
    const ask = page.locator('.notification-toast', { hasText: 'Created the AgentJet project math_agent' }).first();
    await ask.waitFor({ timeout: 60_000 });
    await ask.locator('.monaco-button', { hasText: 'Open Folder' }).first().click();
    await waitFor(() => page.url().includes('math_agent'), 'the window to open the project folder', 60_000, 200);
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'config.yaml' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab[aria-label^="workflow.py"]').first().waitFor({ timeout: 60_000 });
    await page.locator('.notification-toast', { hasText: 'set a breakpoint in its workflow' }).first().waitFor({ timeout: 30_000 });
    assert.ok(existsSync(join(project, '.vscode', 'launch.json')));

    // A vLLM port of this test's own (another run on the machine may hold 18000).
    const port = await freePort();
    const configFile = join(project, 'config.yaml');
    const original = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, original.replace('debug_first_n_tasks: 2', `debug_first_n_tasks: 1\n    debug_vllm_port: ${port}`));

    // No problems, with the config open (module paths and data files resolve from the project).
    await wb.openFile('config.yaml');
    await page.locator('.monaco-editor .view-line', { hasText: 'user_workflow' }).first().waitFor({ timeout: 30_000 });
    let seen: number | undefined;
    await waitFor(
      async () => (seen = await problemCount(page)) === 0,
      () => `0 problems (status bar says ${String(seen)})`,
      60_000,
      200,
    );

    // A breakpoint on the first line of the workflow's execute, then F5.
    // Back to the workflow New Project opened.
    await page.locator('.tabs-container .tab[aria-label^="workflow.py"]').first().click();
    await page.locator('.monaco-editor .view-line', { hasText: 'async def execute' }).first().waitFor({ timeout: 30_000 });
    const lines = readFileSync(join(project, 'math_agent', 'workflow.py'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('async def execute(')) + 2; // 1-based: the first statement
    assert.ok(line > 1);
    await wb.press('Control+G');
    await page.keyboard.type(String(line));
    await wb.press('Enter');
    await wb.press('F9');
    await page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });
    await wb.press('F5');
    await page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 120_000 });
    const current = page.locator('.monaco-editor .line-numbers.active-line-number').first();
    assert.equal((await current.textContent())?.trim(), String(line), 'stopped on the breakpoint line');
    await wb.screenshot('newproject-f5-stopped');
    const toolbar = page.locator('.debug-toolbar').first();
    await wb.press('Shift+F5');
    await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
    const ours = async () => (await listProcesses()).filter((p) => p.args.includes(project) && !/_standin\.companion/.test(p.args));
    let left: { args: string }[] = [];
    await waitFor(
      async () => (left = await ours()).length === 0,
      () => `no launcher left after Stop: ${left.map((p) => p.args).join(' | ')}`,
      30_000,
      200,
    );

    // Two wrong class references: F5 is refused, the errors listed one per line.
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8')
        .replace('math_agent.workflow->MathWorkflow', 'math_agent.workflow->MathWorkflw')
        .replace('math_agent.judge->MathAnswerJudge', 'math_agent.judges->MathAnswerJudge'),
    );
    await wb.openFile('config.yaml');
    await waitFor(async () => ((await problemCount(page)) ?? 0) >= 2, 'the two errors in Problems', 60_000, 200);
    await wb.press('F5');
    const dialog = page.locator('.monaco-dialog-box').first();
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    const text = await dialog.innerText();
    assert.match(text, /AgentJet did not start: .*config\.yaml has 2 errors\./);
    assert.match(text, /• line \d+: .*MathWorkflw/);
    assert.match(text, /• line \d+: .*math_agent\.judges/);
    keep(await wb.screenshot('f5-refusal'), 'f5-refusal.png');
    await wb.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(await toolbar.isVisible(), false, 'nothing started');
  } catch (err) {
    await wb.screenshot('newproject-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
    await stopCompanions(readCompanions(companionFolder(project, 'saved_experiments')));
    rmSync(ws, { recursive: true, force: true });
  }
});
