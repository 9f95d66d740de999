// Issue 43 items 1 and 5, as a user meets them in a folder without launch.json (the demo, one
// config, the stand-in backbone, a breakpoint in the workflow):
// - F5 from the workflow file: VS Code asks which debugger; "More AgentJet options..." lists the
//   folder's config once (it was listed twice: VS Code asks the dynamic provider once per launch it
//   knows, the folder's and the user settings', which has no folder).
// - Ctrl+F5 (Debug: Start Without Debugging) on the config runs to the end past the breakpoint;
// - F5 from the workflow file, choosing AgentJet, starts the folder's only config and pauses at that
//   same breakpoint (so the breakpoint binds, and the Ctrl+F5 check could fail).
// Screenshots: test-output/no-launchjson-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { demoCopy, lineOf, standInBackbone } from '../util/debugWorkspace';
import { waitFor } from '../util/poll';

/** The quick pick's rows, as their visible text. */
async function pickRows(page: Page): Promise<string[]> {
  return (await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts()).map((s) =>
    s.replace(/\s+/g, ' ').trim(),
  );
}

/** F5 with no launch.json and no debugger for the active file: VS Code's "Select debugger" pick; chooses `label`. */
async function pickDebugger(page: Page, label: string): Promise<void> {
  await page.keyboard.press('F5');
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.click();
}

test('no launch.json: F5 from the workflow lists the config once and starts it; Ctrl+F5 on the config runs past a breakpoint', async () => {
  const w = await demoCopy('aj-ui-nolaunch-');
  assert.ok(!existsSync(join(w.dir, '.vscode', 'launch.json')), 'the folder has no launch.json');
  const wb = await openWorkbench({
    workspace: w.dir,
    env: { PYTHONPATH: standInBackbone },
    settings: { 'agentjet.pythonPath': ensureTestPython().python, 'debug.openDebug': 'openOnDebugBreak' },
  });
  const { page } = wb;
  const toolbar = page.locator('.debug-toolbar').first();
  const paused = page.locator('.debug-top-stack-frame-line').first();
  try {
    const line = lineOf(w.workflow, 'answer = reply.choices');
    await wb.openFile('math_demo/workflow.py');
    await wb.press('Control+G');
    await page.keyboard.type(String(line));
    await wb.press('Enter');
    await wb.press('F9');
    await page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });

    // Item 5: "More AgentJet options..." lists each config of the folder once.
    await pickDebugger(page, 'More AgentJet options');
    const configRow = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', {
      hasText: 'AgentJet: debug math_agent.yaml',
    });
    await configRow.first().waitFor({ state: 'visible', timeout: 60_000 });
    await page
      .locator('.quick-input-widget .quick-input-progress.active')
      .first()
      .waitFor({ state: 'hidden', timeout: 30_000 })
      .catch(() => undefined);
    const rows = await pickRows(page);
    await wb.screenshot('no-launchjson-more-options');
    assert.equal(rows.filter((r) => r.includes('AgentJet: debug math_agent.yaml')).length, 1, `each config once: ${JSON.stringify(rows)}`);
    assert.equal(rows.filter((r) => /AgentJet: debug /.test(r)).length, 1, `the folder's one config: ${JSON.stringify(rows)}`);
    await wb.press('Escape');
    await page.locator('.quick-input-widget').first().waitFor({ state: 'hidden', timeout: 10_000 });

    // Item 1: Ctrl+F5 on the config runs without the debugger: both tasks pass the breakpoint's line.
    await wb.openFile('math_agent.yaml');
    await wb.press('Control+F5');
    // The stand-in launcher's last line: every task ran past the breakpoint's line.
    const lastTask = page.locator('.repl .monaco-list-row', { hasText: 'Debug rollout finished: 2 task(s)' }).first();
    await waitFor(
      async () => {
        if (await paused.isVisible()) throw new Error('Ctrl+F5 paused at the breakpoint: it debugged');
        return lastTask.isVisible();
      },
      "the run's end in the Debug Console (Ctrl+F5)",
      120_000,
      200,
    );
    assert.equal(await paused.isVisible(), false, 'Ctrl+F5 never paused');
    await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
    await wb.screenshot('no-launchjson-ctrl-f5');
    const toasts = await page.locator('.notification-toast').allInnerTexts();
    assert.deepEqual(
      toasts.filter((t) => /Open an AgentJet config/.test(t)),
      [],
      toasts.join(' | '),
    );

    // Item 5 (and the control of item 1): F5 from the workflow, AgentJet chosen, starts the one
    // config and pauses at the breakpoint.
    await wb.openFile('math_demo/workflow.py');
    await pickDebugger(page, 'AgentJet');
    await waitFor(
      async () => {
        const texts = await page.locator('.notification-toast').allInnerTexts();
        const refused = texts.find((t) => /Open an AgentJet config|Which AgentJet config/.test(t));
        if (refused) throw new Error(`F5 from the workflow did not start the folder's only config: ${refused}`);
        return paused.isVisible();
      },
      'F5 from the workflow to pause at the breakpoint',
      120_000,
      200,
    );
    const current = page.locator('.monaco-editor .line-numbers.active-line-number').first();
    assert.equal((await current.textContent())?.trim(), String(line), 'paused at the breakpoint line');
    await page
      .locator('.debug-call-stack .monaco-list-row, .debug-toolbar .monaco-select-box', { hasText: 'math_agent.yaml' })
      .first()
      .waitFor({ state: 'attached', timeout: 30_000 })
      .catch(() => undefined);
    await wb.screenshot('no-launchjson-f5-workflow');
    await wb.press('Shift+F5');
    await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
  } catch (err) {
    await wb.screenshot('no-launchjson-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
    await w.dispose();
  }
});
