// Issue 43 item 4, as a user meets it: a stranger's folder has a `.venv/bin/python` AND sets
// `agentjet.pythonPath` in its `.vscode/settings.json` (VS Code hides that restricted setting until
// the folder is trusted). In Restricted Mode, Check Environment must name the interpreter that
// trusting will run: the setting's, not the .venv's. Both interpreters are scripts that leave a
// marker when anything runs them: nothing runs before Trust; after Trust, Check Environment runs the
// named one and never the other. Screenshots: test-output/restricted-interpreter-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';

const CONFIG = ['ajet:', '  project_name: which_python', '  rollout:', '    user_workflow: my_workflow->MyWorkflow', ''].join('\n');

const ran = (marker: string): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/** A Python that notes each run in `marker`, then runs the tests' interpreter. */
function markingPython(path: string, marker: string, python: string): void {
  writeFileSync(
    path,
    `#!/bin/sh\nprintf 'start %s\\n' "$*" >> '${marker}'\n'${python}' "$@"\nrc=$?\nprintf 'end\\n' >> '${marker}'\nexit $rc\n`,
  );
  chmodSync(path, 0o755);
}

/** The environment report's text, from the webview whose text `accept` takes (an older report may still be open). */
async function reportText(wb: Workbench, accept: (text: string) => boolean, what: string): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      for (const frame of wb.page.frames() as Frame[]) {
        try {
          if ((await frame.locator('body.vscode-body h2').count()) === 0) continue;
          const text = await frame.locator('body.vscode-body').innerText({ timeout: 2_000 });
          last = text;
          if (accept(text)) return text;
        } catch {
          /* frame navigated away */
        }
      }
      return undefined;
    },
    () => `${what}; last report seen:\n${last.slice(0, 1500)}`,
    120_000,
    250,
  );
}

test('Restricted Mode: Check Environment names the folder setting’s interpreter, and that one runs after Trust (never the .venv)', async (t) => {
  const { python } = ensureTestPython();
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-ui-restricted-py-'));
  const workspace = join(dir, 'stranger');
  mkdirSync(join(workspace, '.venv', 'bin'), { recursive: true });
  mkdirSync(join(workspace, 'tools'), { recursive: true });
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  const venvMarker = join(dir, 'venv-python-ran.log');
  const toolsMarker = join(dir, 'tools-python-ran.log');
  const venvPython = join(workspace, '.venv', 'bin', 'python');
  const toolsPython = join(workspace, 'tools', 'python');
  markingPython(venvPython, venvMarker, python);
  markingPython(toolsPython, toolsMarker, python);
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    '{\n  // the folder\'s interpreter\n  "agentjet.pythonPath": "${workspaceFolder}/tools/python",\n}\n',
  );
  writeFileSync(join(workspace, 'which_python.yaml'), CONFIG);
  writeFileSync(join(workspace, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');

  const wb = await openWorkbench({ workspace, workspaceTrust: true });
  const { page } = wb;
  try {
    // VS Code 1.100 asks at once (the user says no); 1.139 opens the folder in Restricted Mode.
    const no = page.locator('.monaco-dialog-box .monaco-button', { hasText: "No, I don't trust the authors" }).first();
    const status = page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first();
    await waitFor(
      async () => {
        if (await no.isVisible()) await no.click();
        return status.isVisible();
      },
      'Restricted Mode',
      60_000,
      100,
    );

    // The config opened and checked (the extension is up), then Check Environment.
    await wb.openFile('which_python.yaml');
    await page
      .locator('.editor-group-container.active .monaco-editor [class*="squiggly-"]')
      .first()
      .waitFor({ state: 'attached', timeout: 90_000 });
    await wb.runCommand('AgentJet: Check Environment');
    const before = await reportText(wb, (s) => /Restricted Mode: this folder is not trusted/.test(s), 'the Restricted Mode report');
    assert.ok(before.includes(`${toolsPython} -c`), `names the setting's interpreter:\n${before}`);
    assert.ok(!before.includes(venvPython), `does not name the .venv's:\n${before}`);
    await wb.screenshot('restricted-interpreter-report');
    assert.equal(ran(venvMarker) + ran(toolsMarker), '', 'nothing of the folder ran in Restricted Mode');

    // Trust, as from the status bar item: VS Code's trust editor, its Trust button.
    await wb.runCommand('Workspaces: Manage Workspace Trust');
    const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trustButton.waitFor({ state: 'visible', timeout: 30_000 });
    await trustButton.click();
    await status.waitFor({ state: 'detached', timeout: 30_000 });
    const modal = page.locator('.monaco-modal-editor-block').first();
    if (await modal.isVisible()) {
      await modal
        .locator('[aria-label^="Close"]')
        .first()
        .click({ timeout: 10_000 })
        .catch(async () => {
          t.diagnostic('no Close in the trust modal; Escape');
          await page.keyboard.press('Escape');
        });
      await modal.waitFor({ state: 'hidden', timeout: 30_000 });
    }

    // Trusted: Check Environment runs the interpreter it named.
    await wb.runCommand('AgentJet: Check Environment');
    const after = await reportText(
      wb,
      (s) => !/Restricted Mode: this folder is not trusted/.test(s) && s.includes(toolsPython),
      'the trusted report naming the setting’s interpreter',
    );
    await waitFor(() => ran(toolsMarker).includes('start '), "the setting's interpreter to run", 60_000, 200);
    await wb.screenshot('restricted-interpreter-trusted');
    assert.ok(!after.includes(venvPython), `the trusted report does not name the .venv's:\n${after}`);
    // Every run of either script is over before looking at which ran.
    await waitFor(
      () => [venvMarker, toolsMarker].every((m) => (ran(m).match(/^start /gm)?.length ?? 0) === (ran(m).match(/^end$/gm)?.length ?? 0)),
      'the runs to end',
      60_000,
      100,
    );
    assert.equal(ran(venvMarker), '', `the .venv's python ran although the report named ${toolsPython}:\n${ran(venvMarker)}`);
  } catch (err) {
    await wb.screenshot('restricted-interpreter-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
