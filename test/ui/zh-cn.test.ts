// The workbench in Simplified Chinese (server --locale zh-cn, browser zh-CN): VS Code reads our
// package.nls.zh-cn.json, so command titles, view names and the walkthrough show in Chinese.
// The language server follows the display language (a config mistake's diagnostic and its hover in
// Chinese) and so do the webviews (the token log viewer's controls). Screenshots (with CJK glyphs
// from fonts-noto-cjk) go to test-output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { repoRoot } from '../util/paths';
import { WORKFLOW_TYPO, demoWorkspace } from '../util/demoWorkspace';
import { waitFor } from '../util/poll';
import { descriptionCatalogue } from '../../core/config/schemaDescriptions';

const zh = JSON.parse(readFileSync(join(repoRoot, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;
const zhCore = JSON.parse(readFileSync(join(repoRoot, 'core', 'l10n', 'zh-cn.json'), 'utf8')) as Record<string, string>;
const zhWebview = JSON.parse(readFileSync(join(repoRoot, 'core', 'l10n', 'webview.zh-cn.json'), 'utf8')) as Record<string, string>;

/** Types in the command palette and returns the visible row for the localised title. */
async function paletteRow(wb: Workbench, query: string, title: string) {
  await wb.typeInQuickInput('Control+Shift+P', `>${query}`);
  const row = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  return row;
}

test('with the display language zh-cn, AgentJet command titles, views, diagnostics and the token log viewer are in Chinese', async () => {
  // The demo with one mistake: a workflow class that does not exist.
  const { dir, workspace } = demoWorkspace('agentjet-ui-zh-', { typo: true });
  const wb = await openWorkbench({ locale: 'zh-CN', workspace });
  try {
    // Remote extensions are scanned after the workbench shows: wait for ours first.
    await wb.activityItem('AgentJet').waitFor({ state: 'visible', timeout: 60_000 });
    const title = zh['commands.agentjet.newProject.title']!;
    assert.equal(title, '新建项目…');
    const row = await paletteRow(wb, 'AgentJet: 新建', title);
    // The title is Chinese; VS Code shows the English original under it as the command's alias.
    assert.match((await row.textContent()) ?? '', /^AgentJet: 新建项目….*AgentJet: New Project…/);
    await paletteRow(wb, 'AgentJet: 检查', zh['commands.agentjet.checkEnvironment.title']!);
    const shot = await wb.screenshot('zh-cn-command-palette');
    assert.ok(existsSync(shot));
    await wb.page.keyboard.press('Escape');

    // The view container: view names from the manifest.
    await wb.activityItem('AgentJet').click();
    await wb.page
      .locator('.pane-header', { hasText: zh['views.agentjet.agentjet.runs.name']! })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await wb.page
      .locator('.pane-header', { hasText: zh['views.agentjet.agentjet.companions.name']! })
      .first()
      .waitFor({ state: 'visible' });
    await wb.openFile('math_agent.yaml');
    assert.ok(existsSync(await wb.screenshot('zh-cn-views')));

    // The language server's diagnostic and its hover, in Chinese (math_agent.yaml is open).
    await wb.hoverFirstError(WORKFLOW_TYPO);
    // Under the diagnostic, the key's own description (core/l10n/schema.zh-cn.json); Markdown drops the backticks.
    const workflowDoc = descriptionCatalogue()['ajet.rollout.user_workflow'];
    assert.ok(workflowDoc);
    const flat = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ');
    // VS Code draws the marker's part of the hover first and adds the language server's hover when
    // it answers: wait for the description to be in it.
    const hover = wb.page.locator('.monaco-hover:not(.hidden)', { hasText: WORKFLOW_TYPO }).first();
    const hoverText = await waitFor(
      async () => {
        const t = await hover.innerText().catch(() => '');
        return flat(t).includes(flat(workflowDoc['zh-cn'])) ? t : undefined;
      },
      'the key description in the hover',
      20_000,
      100,
    ).catch(async () => hover.innerText());
    // "{1} 中没有定义 `{0}`（其中的类：…）。" with the module file and the classes it has.
    assert.ok(zhCore['`{0}` is not defined in {1} (classes: {2}).']?.includes('中没有定义'));
    assert.match(hoverText, /workflow\.py 中没有定义 `MathWorkflo`（其中的类：[^）]*MathWorkflow[^）]*）。/);
    assert.doesNotMatch(hoverText, /is not defined in/);
    assert.match(hoverText, /class-ref\/missing-class/);
    assert.ok(flat(hoverText).includes(flat(workflowDoc['zh-cn'])), hoverText);
    assert.ok(!flat(hoverText).includes(flat(workflowDoc.en)), hoverText);
    assert.ok(existsSync(await wb.screenshot('zh-cn-diagnostic-hover')));
    await wb.page.keyboard.press('Escape');

    // The token log viewer: its controls, status and hints in Chinese.
    await wb.openFile('saved_experiments/math_demo_2node_20260105_0900/2026_01_05_09_00/gpu-node-0/rollout/rollout.json.log');
    const frame = await wb.webviewFrame('#root:has(.bar .title:text-is("rollout.json.log")) .viewport .row[data-pos]', 60_000);
    assert.equal(await frame.locator('html').getAttribute('lang'), 'zh-CN');
    const label = (en: string) => {
      const v = zhWebview[en];
      assert.ok(v, en);
      return v;
    };
    await frame.locator('header.bar button', { hasText: label('Open as text') }).waitFor({ state: 'visible' });
    await frame.locator('form.filters button', { hasText: label('Clear') }).waitFor({ state: 'visible' });
    assert.equal(await frame.locator('input[type=search]').getAttribute('placeholder'), label('Search token text…'));
    assert.equal(
      await frame
        .locator('select[aria-label="' + label('sort by') + '"] option')
        .first()
        .innerText(),
      label('file order'),
    );
    assert.match(await frame.locator('.summary .count').innerText(), /^\d+ 条记录$/);
    assert.match(await frame.locator('.detail .empty').innerText(), /^选择一条记录。/);
    assert.deepEqual((await frame.locator('.row.head .cell').allInnerTexts()).slice(1, 4), [
      label('step'),
      label('task / title'),
      label('reward'),
    ]);
    // Open a record: the timeline tools.
    await frame.locator('.viewport .row[data-pos]').first().click();
    await frame.locator('.tokens span[data-i]').first().waitFor({ state: 'visible', timeout: 20_000 });
    for (const b of ['Copy text', 'Copy JSON']) await frame.locator('.tools button', { hasText: label(b) }).waitFor({ state: 'visible' });
    assert.equal(await frame.locator('.tools select option[value=mask]').innerText(), label('Loss mask'));
    assert.match(await frame.locator('.tools').innerText(), new RegExp(`${label('whitespace')}[\\s\\S]*${label('group')}`));
    assert.ok(existsSync(await wb.screenshot('zh-cn-token-log')));

    // The walkthrough in Chinese (VS Code's own strings stay English without its language pack).
    await wb.runCommand('Welcome: Open Walkthrough...');
    const walkthrough = zh['walkthroughs.agentjet.firstRollout.title']!;
    await wb.page.locator('.quick-input-widget input').fill(walkthrough);
    await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: walkthrough }).first().click();
    const container = wb.page.locator('.gettingStartedContainer');
    for (const step of [
      'pickInterpreter',
      'checkEnvironment',
      'createProject',
      'debugRollout',
      'openTokenLog',
      'compareRuns',
      'startTraining',
    ]) {
      await container
        .locator('.getting-started-step', { hasText: zh[`walkthroughs.agentjet.firstRollout.steps.${step}.title`]! })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
    }
    await container.locator('.button-link, .monaco-button', { hasText: '选择解释器' }).first().waitFor({ state: 'visible' });
    assert.ok(existsSync(await wb.screenshot('zh-cn-walkthrough')));
  } catch (err) {
    await wb.screenshot('zh-cn-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
