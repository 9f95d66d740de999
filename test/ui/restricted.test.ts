// Restricted Mode in the real VS Code, workspace trust on, as a stranger's folder is opened: the
// folder holds an AgentJet config and a `.venv/bin/python` that is a script leaving a marker. The
// user answers "No, I don't trust the authors". Nothing of the folder may run: not at start, not
// when the config is opened and checked (Problems, hover, completion), not by Check Environment.
// Then the user trusts the folder from our quick fix: the probe runs and the installed AgentJet
// judges the file, without a reload. Screenshots go to test-output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { findUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';

const CONFIG = [
  "# A config of the user's: a workflow in this folder, AgentJet's own EnvService judge.",
  'ajet:',
  '  project_name: trust_demo',
  '  model:',
  '    path: Qwen/Qwen2.5-1.5B-Instruct',
  '  task_reader:',
  '    type: env_service',
  '    env_service:',
  '      env_type: appworld',
  '      env_url: http://127.0.0.1:8080',
  '      env_action_preference: code',
  '  task_judge:',
  '    judge_protocol: ajet.task_judge.env_service_as_judge->EnvServiceJudge',
  '  rollout:',
  '    user_workflow: my_workflow->MyWorkflow',
  '',
  'defaults:',
  '  - ajet_default',
  '  - _self_',
  '',
].join('\n');
/** 1-based line and column of `judge_protocol`'s value, and of the `project_name` key. */
const REF_AT = ':13:21';
const KEY_AT = ':3:5';

const ran = (marker: string): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

async function goTo(page: Page, where: string): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(where);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

/** The hover at `where`, shown from the keyboard (Ctrl+K Ctrl+I), once it contains `hasText`. */
async function hoverAt(wb: Workbench, where: string, hasText: string | RegExp): Promise<string> {
  const { page } = wb;
  const hover = page.locator('.monaco-hover:not(.hidden)', { hasText }).first();
  return waitFor(
    async () => {
      await page.keyboard.press('Escape');
      await goTo(page, where);
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      const shown = await hover.waitFor({ state: 'visible', timeout: 4_000 }).then(
        () => true,
        () => false,
      );
      return shown ? hover.innerText() : undefined;
    },
    `a hover at ${where} containing ${String(hasText)}`,
    90_000,
    0,
  );
}

test('Restricted Mode runs nothing of the folder (start, Problems, hover, completion, Check Environment); Trust runs the probe without a reload (screenshots)', async (t) => {
  const tree = findUpstream('agentjet-c68c154');
  if (!tree) {
    t.skip(`${UPSTREAM_SKIP_TAG} agentjet-c68c154 missing; ${UPSTREAM_SKIP}`);
    return;
  }
  const { python } = ensureTestPython();
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-ui-restricted-'));
  const workspace = join(dir, 'stranger');
  // AgentJet 0.0.4 installed outside the folder; the folder's .venv reaches it through PYTHONPATH.
  const site = join(dir, 'site');
  mkdirSync(site);
  cpSync(join(tree, 'ajet'), join(site, 'ajet'), { recursive: true });
  cpSync(join(tree, 'pyproject.toml'), join(site, 'pyproject.toml'));
  const marker = join(dir, 'venv-python-ran.log');
  mkdirSync(join(workspace, '.venv', 'bin'), { recursive: true });
  const venvPython = join(workspace, '.venv', 'bin', 'python');
  writeFileSync(
    venvPython,
    // Leaves a marker each time anything runs it (and when that run ends), and behaves as a Python with AgentJet installed.
    `#!/bin/sh\nprintf 'start %s\\n' "$*" >> '${marker}'\nPYTHONPATH='${site}' '${python}' "$@"\nrc=$?\nprintf 'end\\n' >> '${marker}'\nexit $rc\n`,
  );
  chmodSync(venvPython, 0o755);
  writeFileSync(join(workspace, 'trust_demo.yaml'), CONFIG);
  writeFileSync(join(workspace, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');

  const wb = await openWorkbench({ workspace, workspaceTrust: true });
  const { page } = wb;
  try {
    // VS Code 1.100 asks at once and the user says no; VS Code 1.139 in a browser opens the folder
    // in Restricted Mode without asking (its banner says so). Either way the folder is not trusted.
    const no = page.locator('.monaco-dialog-box .monaco-button', { hasText: "No, I don't trust the authors" }).first();
    const banner = page.locator('.monaco-workbench .banner', { hasText: 'Restricted Mode' }).first();
    let bannerSince: number | undefined;
    await waitFor(
      async () => {
        if (await no.isVisible()) {
          await no.click();
          return true;
        }
        // The banner alone, for a second on end: no question is coming.
        if (!(await banner.isVisible())) bannerSince = undefined;
        else if (bannerSince === undefined) bannerSince = Date.now();
        else if (Date.now() - bannerSince > 1_000) return true;
        return false;
      },
      'the trust question, or the Restricted Mode banner',
      60_000,
      100,
    );
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 30_000 });

    // The config opened and checked: the reference to AgentJet's own judge says, as information,
    // that installed packages wait for trust.
    await wb.openFile('trust_demo.yaml');
    const info = page.locator('.editor-group-container.active .monaco-editor .squiggly-info').first();
    await info.waitFor({ state: 'attached', timeout: 90_000 });
    assert.equal(await page.locator('.editor-group-container.active .monaco-editor .squiggly-error').count(), 0);
    const refHover = await hoverAt(wb, REF_AT, 'Trust this folder…');
    assert.match(refHover, /ajet\.task_judge\.env_service_as_judge` was not checked/);
    assert.match(refHover, /Trust this folder…/);
    const keyHover = await hoverAt(wb, KEY_AT, 'Judged by');
    assert.match(keyHover, /Judged by bundled facts of AgentJet/);
    assert.match(keyHover, /Installed packages are checked once you trust this folder/);
    await page.keyboard.press('Escape');

    // Completion of a class reference at the start of its value (the server lists the folder's
    // modules, read as text); nothing is edited.
    await goTo(page, ':15:20');
    const item = page.locator('.suggest-widget .monaco-list-row', { hasText: 'my_workflow' }).first();
    await waitFor(
      async () => {
        await page.keyboard.press('Control+Space');
        return item.waitFor({ state: 'visible', timeout: 3_000 }).then(
          () => true,
          () => false,
        );
      },
      'the my_workflow completion',
      60_000,
      0,
    );
    await page.keyboard.press('Escape');

    // Problems lists the note as information, not as an error.
    await page.keyboard.press('Control+Shift+M');
    const row = page
      .locator('.markers-panel .monaco-tl-row', { hasText: 'installed packages are checked once you trust this folder' })
      .first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await page.locator('.markers-panel .marker-icon.codicon-error, .markers-panel .codicon-error').count(), 0);
    await hoverAt(wb, REF_AT, 'once you trust this folder');
    const shot = await wb.screenshot('restricted-mode');
    assert.ok(existsSync(shot));
    await page.keyboard.press('Escape');

    // Check Environment: says what it would run and offers Trust; runs nothing.
    await wb.runCommand('AgentJet: Check Environment');
    const report = await wb.webviewFrame('body.vscode-body h2', 60_000);
    await report.locator('h2', { hasText: 'Workspace trust' }).first().waitFor({ state: 'visible' });
    const body = await report.locator('body.vscode-body').innerText();
    assert.match(body, /Restricted Mode: this folder is not trusted/);
    assert.ok(body.includes(`${venvPython} -c`), body);
    assert.match(body, /Trust this folder…/);
    await page.locator('.notification-toast', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(existsSync(await wb.screenshot('restricted-mode-check-environment')));

    // Every other feature that starts with the window has had its chance by now (the report is
    // up, the server has checked the folder): the script never ran.
    assert.equal(ran(marker), '', `the untrusted folder's .venv/bin/python ran:\n${ran(marker)}`);

    // Trust from the note's quick fix: VS Code's trust editor, its Trust button.
    await page.locator('.tabs-container .tab', { hasText: 'trust_demo.yaml' }).first().click();
    await goTo(page, REF_AT);
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Trust this folder…' }).first();
    await fix.waitFor({ state: 'visible', timeout: 30_000 });
    // Chosen from the keyboard (the menu's pointer guard swallows a click this soon after it opens).
    await waitFor(
      async () => {
        if (await page.locator('.action-widget .monaco-list-row.focused', { hasText: 'Trust this folder…' }).count()) return true;
        await page.keyboard.press('ArrowDown');
        return false;
      },
      'the Trust quick fix focused',
      15_000,
      0,
    );
    await page.keyboard.press('Enter');
    const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trustButton.waitFor({ state: 'visible', timeout: 30_000 });
    await trustButton.click();
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'detached', timeout: 30_000 });
    // VS Code 1.139 shows the trust editor as a modal over the window: the user closes it.
    const modal = page.locator('.monaco-modal-editor-block').first();
    if (await modal.isVisible()) {
      const close = modal.locator('[aria-label^="Close"]').first();
      await close.click({ timeout: 10_000 }).catch(async () => {
        t.diagnostic(`no Close in the modal: ${(await modal.innerHTML()).slice(0, 2000)}`);
        await page.keyboard.press('Escape');
      });
      await modal.waitFor({ state: 'hidden', timeout: 30_000 });
    }

    // Without a reload: the probe runs, and the installed AgentJet judges the file.
    await waitFor(() => ran(marker).includes('-c'), 'the probe of the trusted .venv', 60_000, 200);
    await page.locator('.tabs-container .tab', { hasText: 'trust_demo.yaml' }).first().click();
    const trusted = await hoverAt(wb, KEY_AT, `Judged by AgentJet 0.0.4 at ${join(site, 'ajet')}`);
    assert.doesNotMatch(trusted, /once you trust this folder/);
    await page
      .locator('.editor-group-container.active .monaco-editor .squiggly-info')
      .first()
      .waitFor({ state: 'detached', timeout: 60_000 });
    assert.ok(existsSync(await wb.screenshot('restricted-mode-trusted')));
    // Every run of the folder's python is over before the folder is removed.
    await waitFor(
      () => (ran(marker).match(/^start /gm)?.length ?? 0) === (ran(marker).match(/^end$/gm)?.length ?? 0),
      () => `the .venv python's runs to end:\n${ran(marker)}`,
      60_000,
      100,
    );
  } catch (err) {
    await wb.screenshot('restricted-mode-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
