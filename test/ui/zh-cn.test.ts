// The workbench in Simplified Chinese (server --locale zh-cn, browser zh-CN): VS Code reads our
// package.nls.zh-cn.json, so command titles, view names and the walkthrough show in Chinese.
// Screenshots (with CJK glyphs from fonts-noto-cjk) go to test-output/. Extend this file with the
// localised diagnostic hover and the token log viewer once their strings are swept (CONTRIBUTING.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { repoRoot } from '../util/paths';

const zh = JSON.parse(readFileSync(join(repoRoot, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;

/** Types in the command palette and returns the visible row for the localised title. */
async function paletteRow(wb: Workbench, query: string, title: string) {
  await wb.page.keyboard.press('Control+Shift+P');
  const input = wb.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${query}`);
  const row = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  return row;
}

test('with the display language zh-cn, AgentJet command titles and views are in Chinese', async () => {
  const wb = await openWorkbench({ locale: 'zh-CN' });
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
    await wb.page.locator('.pane-header', { hasText: zh['views.agentjet.agentjet.runs.name']! }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await wb.page.locator('.pane-header', { hasText: zh['views.agentjet.agentjet.companions.name']! }).first().waitFor({ state: 'visible' });
    await wb.openFile('math_agent.yaml');
    assert.ok(existsSync(await wb.screenshot('zh-cn-views')));

    // The walkthrough in Chinese (VS Code's own strings stay English without its language pack).
    await wb.runCommand('Welcome: Open Walkthrough...');
    const walkthrough = zh['walkthroughs.agentjet.firstRollout.title']!;
    await wb.page.locator('.quick-input-widget input').fill(walkthrough);
    await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: walkthrough }).first().click();
    const container = wb.page.locator('.gettingStartedContainer');
    for (const step of ['pickInterpreter', 'checkEnvironment', 'createProject', 'debugRollout', 'openTokenLog', 'compareRuns', 'startTraining']) {
      await container.locator('.getting-started-step', { hasText: zh[`walkthroughs.agentjet.firstRollout.steps.${step}.title`]! }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    await container.locator('.button-link, .monaco-button', { hasText: '选择解释器' }).first().waitFor({ state: 'visible' });
    assert.ok(existsSync(await wb.screenshot('zh-cn-walkthrough')));
  } catch (err) {
    await wb.screenshot('zh-cn-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
  }
});
