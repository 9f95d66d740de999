// The token log viewer as a user drives it in the real workbench (packaged .vsix): open a log,
// filter, open a timeline, hover a token (screenshot), reload and find the same state, and follow
// a file this test process appends to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { Frame } from 'playwright-core';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { fixtures } from '../gen';
import { findFile } from '../util/findFile';
import { agentjetRecord } from '../util/tokenlogs';

const record = (step: number, task: string, words: string[]) => agentjetRecord(step, task, words);

async function viewer(wb: Workbench, file: string): Promise<Frame> {
  await wb.openFile(relative(wb.workspace, file));
  // The frame of this file's viewer (another viewer may still be loaded in a background tab).
  return wb.webviewFrame(`#root:has(.bar .title:text-is("${basename(file)}")) .viewport .row[data-pos]`, 60_000);
}

test('open a token log, filter, open a timeline, hover a token, reload, follow appends', async () => {
  const wb = await openWorkbench();
  try {
    const rollout = findFile(join(wb.workspace, 'saved_experiments'), (p) => p.endsWith('rollout.json.log'))!;
    assert.ok(rollout);
    let frame = await viewer(wb, rollout);
    const all = await frame.locator('.viewport .row[data-pos]').count();
    assert.ok(all > 1);
    await frame.locator('#stepMin').fill('1');
    await frame.locator('#stepMax').fill('1');
    // Every listed row is from step 1.
    await frame.waitForFunction(
      () => {
        const rows = Array.from(document.querySelectorAll('.viewport .row[data-pos]'));
        return (
          document.querySelector('.viewport')?.getAttribute('aria-busy') === 'false' &&
          rows.length > 0 &&
          rows.every((r) => r.children[1]?.textContent === '1')
        );
      },
      undefined,
      { timeout: 20_000 },
    );
    await frame.locator('.viewport .row[data-pos]').first().click();
    await frame.locator('.tokens span[data-i]').first().waitFor({ state: 'visible', timeout: 20_000 });
    const trained = frame.locator('.tokens span.m1').first();
    await trained.hover();
    const card = frame.locator('.hovercard:not(.hidden)');
    await card.waitFor({ state: 'visible', timeout: 10_000 });
    const hoverText = await card.innerText();
    assert.match(hoverText, /logprob -?\d/);
    assert.match(hoverText, /mask 1 \(trained\)/);
    await wb.screenshot('logs-hover');
    await frame.locator('select[aria-label="colour mode"]').selectOption('heat');
    const tinted = frame.locator('.tokens span.heat, .tokens span.likely').first();
    await tinted.waitFor({ state: 'visible', timeout: 10_000 });
    // The tint comes from the token's --tint (set through the CSSOM, which the nonce CSP allows) and the shared stylesheets.
    const background = await tinted.evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.doesNotMatch(background, /^(transparent|rgba\(0, 0, 0, 0\))$/, `a heat-map token is tinted (${background})`);
    await wb.screenshot('logs-heatmap');
    await frame.locator('select[aria-label="colour mode"]').selectOption('mask');
    await frame.locator('#grp').check();
    await frame.locator('.group .col').first().waitFor({ state: 'visible', timeout: 20_000 });
    await wb.screenshot('logs-group');
    await frame.locator('#grp').uncheck();
    // Keyboard: focus the tokens, jump to the next trained segment.
    await frame.locator('.tokens').focus();
    await wb.page.keyboard.press('n');
    await frame.locator('.tokens span.cursor').waitFor({ state: 'visible', timeout: 10_000 });
    const selectedTitle = await frame.locator('.record-head h2').innerText();

    // Reload the window: the editor comes back with its filter and record.
    await wb.runCommand('Developer: Reload Window');
    await wb.page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
    frame = await wb.webviewFrame('.record-head h2', 60_000);
    await frame.waitForFunction((t) => document.querySelector('.record-head h2')?.textContent === t, selectedTitle, { timeout: 30_000 });
    assert.equal(await frame.locator('#stepMin').inputValue(), '1');
    await wb.screenshot('logs-restored');

    // Hostile token text (HTML, </span>, control characters) shows literally.
    const hostileSrc = join(fixtures().logs, 'hostile.json.log');
    const hostile = join(wb.workspace, 'hostile', 'hostile.json.log');
    mkdirSync(join(wb.workspace, 'hostile'), { recursive: true });
    copyFileSync(hostileSrc, hostile);
    frame = await viewer(wb, hostile);
    await frame.locator('input[type=search]').fill('<script>');
    // The list is aria-busy until the search has run over the whole file.
    await frame.waitForFunction(
      () =>
        document.querySelector('.viewport')?.getAttribute('aria-busy') === 'false' &&
        document.querySelectorAll('.viewport .row[data-pos]').length > 0,
      undefined,
      { timeout: 30_000 },
    );
    await frame.locator('.viewport .row[data-pos]').first().click();
    const tok = frame.locator('.tokens span.cursor');
    await tok.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await tok.innerText(), /<script>/);
    assert.equal(await frame.locator('#root script, #root img').count(), 0);
    await tok.hover();
    await wb.screenshot('logs-hostile');

    // Follow a file another process (this test) appends to.
    const liveDir = join(wb.workspace, 'live');
    mkdirSync(liveDir, { recursive: true });
    const live = join(liveDir, 'live.json.log');
    writeFileSync(live, record(0, 'aaa0001', ['<|im_start|>', 'user', ' hi', ' there', '\n']));
    frame = await viewer(wb, live);
    await frame.locator('#follow').check();
    for (let i = 2; i <= 4; i++) appendFileSync(live, record(1, `bbb000${i}`, ['<|im_start|>', 'user', ` answer ${i}`, '\n']));
    await frame.waitForFunction(() => document.querySelectorAll('.viewport .row[data-pos]').length === 4, undefined, { timeout: 20_000 });
    await frame.waitForFunction(() => document.querySelector('.record-head h2')?.textContent?.includes('bbb0004'), undefined, {
      timeout: 20_000,
    });
    await wb.screenshot('logs-follow');
  } catch (err) {
    await wb.screenshot('logs-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
  }
});
