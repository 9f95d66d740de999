// Show Stacks as a user reaches it: right-click a running run in the Runs view. The run is a real
// Python process (holding the run's logger lock) with a child whose own thread waits in a named
// function; py-spy sits beside the run's interpreter (the tests' venv, as `pip install py-spy`
// puts it). The report opens with the groups, and a frame's link opens the file at its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { runRow } from '../util/runRow';
import { findPySpy } from '../../core/stacks/pyspy';
import { skipForEnvironment } from '../util/envSkip';

const PROGRAM = [
  'import os, subprocess, sys, threading, time',
  '',
  'def child_waits_in_thread():',
  '    time.sleep(3600)',
  '',
  'def parent_waits_for_child(p):',
  '    os.waitpid(p.pid, 0)',
  '',
  "if sys.argv[1] == 'child':",
  "    threading.Thread(target=child_waits_in_thread, name='rollout-0', daemon=True).start()",
  '    time.sleep(3600)',
  'else:',
  "    with open(sys.argv[2], 'w') as f:",
  '        f.write(str(os.getpid()))',
  "    p = subprocess.Popen([sys.executable, __file__, 'child'])",
  '    parent_waits_for_child(p)',
  '',
].join('\n');

test('Show Stacks on a running run names where each process waits, and a frame opens its file at the line', async (t) => {
  const py = ensureTestPython();
  if (skipForEnvironment(t, py.kind === 'venv' && (await findPySpy({ PATH: '' }, [py.python])) ? undefined : "py-spy in the tests' venv"))
    return;
  const wb = await openWorkbench();
  const exp = join(wb.workspace, 'saved_experiments', 'stacks_ui_20260202_1200');
  const host = join(exp, '2026_02_02_12_00', hostname());
  mkdirSync(host, { recursive: true });
  writeFileSync(join(exp, 'yaml_backup.yaml'), 'ajet:\n  project_name: stacks_ui\n  experiment_name: stacks_ui_20260202_1200\n');
  const program = join(exp, 'stuck_run.py');
  writeFileSync(program, PROGRAM);
  const proc = spawn(py.python, [program, 'parent', join(host, '.logger_lock')], { stdio: 'ignore', detached: true });
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = runRow(runsPane, 'stacks_ui_20260202_1200', 'running');
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.rowsLoaded(runsPane);
    await wb.contextAction(row, 'Show Stacks');
    const editor = page.locator('.editor-group-container.active .monaco-editor');
    await editor
      .locator('.view-line', { hasText: 'waits in child_waits_in_thread' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await editor.locator('.view-line', { hasText: 'waits in parent_waits_for_child' }).first().waitFor({ state: 'visible' });
    // py-spy names the thread.
    await editor.locator('.view-line', { hasText: 'thread rollout-0' }).first().waitFor({ state: 'visible' });
    await wb.screenshot('stacks-report');
    // The frame line `child_waits_in_thread  <program>:4` is a link: Ctrl+click opens the file there.
    const frame = editor.locator('.view-line', { hasText: `child_waits_in_thread  ${program}:4` }).first();
    await frame.waitFor({ state: 'visible' });
    const link = frame.locator('span', { hasText: 'stuck_run.py:4' }).last();
    await link.click({ modifiers: ['Control'] });
    await page.locator('.tabs-container .tab.active', { hasText: 'stuck_run.py' }).waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.editor-group-container.active .monaco-editor .current-line').first().waitFor({ state: 'visible' });
    const lineNo = await page.locator('.editor-group-container.active .line-numbers.active-line-number').first().textContent();
    assert.equal(lineNo?.trim(), '4');
    await wb.screenshot('stacks-frame-opened');
  } finally {
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    await wb.close();
  }
});
