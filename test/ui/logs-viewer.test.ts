// The token log viewer on a log that mixes token records with tables the real beast-logger wrote
// (issue 15, items 1-5): table records listed by kind and title, wrapped table cells shown whole,
// search counts and progress with the active filters named, a prominent empty-filter notice that
// clears the detail pane, resizable columns with full-value tooltips and one number format.
import { test } from 'node:test';
import type { Frame, Locator } from 'playwright-core';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { deflateSync } from 'node:zlib';
import { openWorkbench } from '../harness/workbench';
import { waitFor } from '../util/poll';
import { ensureTestPython } from '../harness/python';
import { findUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { skipForEnvironment } from '../util/envSkip';

const HEADER = (s: number) =>
  `2026-01-05 10:00:${String(s).padStart(2, '0')}.000 | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \n`;
const TASK = (i: number) => `openai_gsm8k_test_question_${String(i).padStart(4, '0')}_long_task_identifier`;
const REWARDS = [0, 1, 0.5, 1, 0, 0.25];
const EXPECTED =
  '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 12 * 7? Think step by step and answer with a number.';

function tokenRecord(i: number): string {
  const words = [
    '<|im_start|>',
    'user',
    ` question ${i}`,
    ' about',
    ' apples',
    '\n',
    '<|im_start|>',
    'assistant',
    ` The`,
    ` answer`,
    ` is`,
    ` ${i * 7}`,
    '.',
  ];
  const reward = REWARDS[i]!;
  const payload = {
    header: `[1] Task ${TASK(i % 2)} (Reward ${reward.toFixed(3)})`,
    color: '#337711',
    content: '',
    attach: '',
    nested: true,
    nested_json: {
      [`${TASK(i % 2)}.${reward >= 1 ? '1.0' : '0.0'}.${i}.0`]: {
        outcome: reward >= 1 ? '1.0' : '0.0',
        len_prompt_ids: 6,
        len_response_ids: words.length - 6,
        len_input_ids: words.length,
        raw_reward: String(reward),
        step_reward: String(reward),
        step_advantage: '0.25',
        content: {
          text: words,
          title: words.map((_, k) => (k < 6 ? 'N/A' : '-0.1000')),
          count: words.map((_, k) => String(1000 + k)),
          color: words.map((_, k) => (k < 6 ? '#d98510' : '#09abcf')),
        },
      },
    },
  };
  return HEADER(i) + 'base64:' + deflateSync(Buffer.from(JSON.stringify(payload))).toString('base64') + '\n';
}

// The real beast-logger writes the table records, as AgentJet calls it (multiagent_tracking.py, trainer_verl.py).
const PY = String.raw`
import json, os, sys
sys.path.insert(0, sys.argv[1])
from beast_logger import register_logger, print_dict
register_logger(mods=['mixed'], base_log_path=sys.argv[2])
print_dict({'expected_prompt_text': sys.argv[3], 'current_prompt_text': sys.argv[3].replace('12 * 7', '12 * 8')}, mod='mixed', header='Prompt text mismatch, Please report a github issue')
print_dict({'target dataset name': '/data/datasets/gsm8k/test-00000-of-00001.parquet', 'pass_n': 1, 'num_pass_n_tasks(pass@1)': 7, 'TGC@1': 0.175, 'mean_reward': 0.2375}, narrow=True, header='gsm8k_test', mod='mixed')
`;

/** Whether `text` fits whole in column `nth` of the first token record row (measured with a hidden copy of the cell). */
/**
 * Where `l` is on screen. The list draws its rows anew (a follow-up read, a column fit), and an
 * element found just before a redraw is gone when measured (Playwright then answers null): ask
 * again until a drawn one answers.
 */
function boxOf(l: Locator, what: string): Promise<{ x: number; y: number; width: number; height: number }> {
  return waitFor(() => l.boundingBox(), `${what} to be on screen`, 10_000);
}

function textFits(frame: Frame, nth: number, text: string): Promise<{ fits: boolean; need: number; have: number }> {
  return frame
    .locator(`.viewport .row:not(.other-kind) .cell:nth-child(${nth})`)
    .first()
    .evaluate((cell, text) => {
      const probe = cell.cloneNode() as HTMLElement;
      probe.textContent = text;
      probe.style.position = 'absolute';
      probe.style.visibility = 'hidden';
      cell.parentElement!.append(probe);
      const need = probe.scrollWidth;
      probe.remove();
      return { fits: need <= cell.clientWidth, need, have: cell.clientWidth };
    }, text);
}

test('token log viewer: tables, non-token rows, search counts, empty filter, columns', async (t) => {
  const beast = findUpstream('beast-logger-6ba1ca5');
  if (!beast) {
    skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} beast-logger-6ba1ca5 missing; ${UPSTREAM_SKIP}`);
    return;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-ui-beast-'));
  const { python } = ensureTestPython();
  const py = spawnSync(python, ['-c', PY, beast, tmp, EXPECTED], {
    encoding: 'utf8',
    env: { ...process.env, LOGURU_COLORIZE: 'NO' },
    timeout: 120_000,
  });
  assert.equal(py.status, 0, py.stderr.slice(-2000));
  const tables = readFileSync(join(tmp, 'mixed', 'mixed.json.log'), 'utf8');
  rmSync(tmp, { recursive: true, force: true });

  const wb = await openWorkbench();
  try {
    const { page } = wb;
    const dir = join(wb.workspace, 'viewer');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'mixed.json.log');
    writeFileSync(file, [0, 1, 2].map(tokenRecord).join('') + tables + [3, 4, 5].map(tokenRecord).join(''));
    await wb.openFile(relative(wb.workspace, file));
    const frame = await wb.webviewFrame('#root:has(.bar .title:text-is("mixed.json.log")) .viewport .row[data-pos]', 60_000);
    await frame.waitForFunction(
      () =>
        document.querySelectorAll('.viewport .row[data-pos]').length === 8 &&
        document.querySelectorAll('.viewport .row .kind').length === 2 &&
        Array.from(document.querySelectorAll('.viewport .row:not(.other-kind) .cell:nth-child(7)')).every((c) => c.textContent !== ''),
      undefined,
      { timeout: 30_000 },
    );

    // Item 2: the table records have a row of their own kind: kind, title, time; no token columns.
    const tableRows = frame.locator('.viewport .row.other-kind');
    assert.equal(await tableRows.count(), 2);
    assert.equal(await tableRows.nth(0).locator('.kind').innerText(), 'table');
    assert.match(await tableRows.nth(0).locator('.wide').innerText(), /Prompt text mismatch/);
    assert.match(await tableRows.nth(0).locator('.time').innerText(), /^\d\d:\d\d:\d\d$/);
    // Issue 23 item 7: among token records a table row's time is not under the "tokens" header.
    const tokensHead = await boxOf(frame.locator('.row.head .cell').nth(6), 'the tokens header');
    const timeBox = await boxOf(tableRows.nth(0).locator('.time'), "the first table row's time");
    assert.ok(timeBox.x + timeBox.width <= tokensHead.x, `time ${timeBox.x}..${timeBox.x + timeBox.width} under tokens ${tokensHead.x}`);
    // Item 5: one number format for rewards, the full value in tooltips.
    const rewards = await frame.locator('.viewport .row:not(.other-kind) .cell:nth-child(4)').allInnerTexts();
    assert.deepEqual([...rewards].sort(), ['0.000', '0.000', '0.250', '0.500', '1.000', '1.000']);
    const taskCell = frame.locator('.viewport .row:not(.other-kind)').first().locator('.cell:nth-child(3)');
    assert.equal(
      (await taskCell.getAttribute('title'))?.split('\n')[0],
      TASK(0),
      'the tooltip holds the whole task id (then the record title)',
    );
    // Every column and its whole header fit the list as it opens (headers read "rewa…", "outc…" before).
    const cut = await frame.locator('.row.head .cell').evaluateAll((cells) =>
      cells
        .filter((c) => {
          const label = c.firstChild instanceof Text ? c : (c.querySelector('span') ?? c);
          const pane = c.closest('.list')!.getBoundingClientRect();
          return label.scrollWidth > label.clientWidth + 1 || c.getBoundingClientRect().right > pane.right + 1;
        })
        .map((c) => c.textContent),
    );
    assert.deepEqual(cut, [], 'headers cut or outside the list');
    // The tokens cell holds a long context's counts whole ("3,443 (2,2…" was cut on a real log).
    const tokensFit = await textFits(frame, 7, '99,999 (99,999)');
    assert.ok(tokensFit.fits, `tokens column ${tokensFit.have}px for ${tokensFit.need}px`);
    // Issue 23 item 7: the step column holds a long training's step whole ("123,…" before).
    const stepFit = await textFits(frame, 2, '123,456');
    assert.ok(stepFit.fits, `step column ${stepFit.have}px for ${stepFit.need}px`);
    await wb.screenshot('logs-viewer-list-default');
    // Columns resize: drag the task column's grip to the right.
    const head = frame.locator('.row.head .cell').nth(2);
    const before = (await boxOf(head, 'the task header')).width;
    const grip = head.locator('.grip');
    const g = await boxOf(grip, "the task header's grip");
    await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
    await page.mouse.down();
    await page.mouse.move(g.x + 120, g.y + g.height / 2, { steps: 8 });
    await page.mouse.up();
    const after = (await boxOf(head, 'the task header')).width;
    assert.ok(after >= before + 80, `task column ${before} -> ${after}`);
    await wb.screenshot('logs-viewer-columns');

    // Item 1: the exception table shows every line of both cells: the line that differs is there.
    await tableRows.nth(0).click();
    const other = frame.locator('.other table.grid');
    await other.waitFor({ state: 'visible', timeout: 20_000 });
    const cells = await other
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => (c as HTMLElement).innerText)));
    assert.deepEqual(
      cells.map((r) => r[0]),
      ['expected_prompt_text', 'current_prompt_text'],
    );
    assert.match(cells[0]![1]!, /12 \* 7/);
    assert.match(cells[1]![1]!, /12 \* 8/);
    assert.match(cells[1]![1]!, /Think step by step/);
    await wb.screenshot('logs-viewer-table');
    await tableRows.nth(1).click();
    await frame.waitForFunction(
      () => Array.from(document.querySelectorAll('.other table.grid tbody th')).some((th) => th.textContent === 'num_pass_n_tasks(pass@1)'),
      undefined,
      { timeout: 20_000 },
    );
    await frame.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.other table.grid tbody td')).some(
          (td) => td.textContent === '/data/datasets/gsm8k/test-00000-of-00001.parquet',
        ),
      undefined,
      { timeout: 5_000 },
    );
    await wb.screenshot('logs-viewer-evaluation');

    // Item 3: a search shows its matches (records and hits), its progress, and names the filter.
    await frame.locator('.viewport .row:not(.other-kind)').first().click();
    await frame.locator('.tokens span[data-i]').first().waitFor({ state: 'visible', timeout: 20_000 });
    await frame.locator('input[type=search]').fill('apples');
    await frame.waitForFunction(
      () => /^6 matches in 6 records$/.test(document.querySelector('.summary .search-info')?.textContent ?? ''),
      undefined,
      { timeout: 30_000 },
    );
    assert.equal(await frame.locator('.summary .count').innerText(), '6 of 8 records');
    assert.deepEqual(await frame.locator('.summary .chip').allInnerTexts(), ['text “apples”']);
    assert.equal(await frame.locator('.viewport .row[data-pos]').count(), 6);
    await wb.screenshot('logs-viewer-search');

    // Item 4: nothing matches: a notice at the top of the list, and the detail pane lets go of the record.
    await frame.locator('input[type=search]').fill('no-such-token-anywhere');
    await frame.locator('.notice.filtered').waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(
      await frame.locator('.notice .notice-text').innerText(),
      /No record matches the filters \(text “no-such-token-anywhere”\)/,
    );
    await frame.waitForFunction(
      () =>
        /hidden by the filters/.test(document.querySelector('.detail .empty')?.textContent ?? '') &&
        !document.querySelector('.detail .empty')?.classList.contains('hidden'),
      undefined,
      { timeout: 20_000 },
    );
    assert.equal(await frame.locator('.timeline:not(.hidden)').count(), 0);
    const notice = await boxOf(frame.locator('.notice'), 'the notice');
    const list = await boxOf(frame.locator('section.list'), 'the list');
    assert.ok(notice.y - list.y < 60, 'the notice is at the top of the list');
    await wb.screenshot('logs-viewer-empty-filter');
    await frame.locator('.notice button', { hasText: 'Clear filters' }).click();
    await frame.waitForFunction(() => document.querySelectorAll('.viewport .row[data-pos]').length === 8, undefined, { timeout: 20_000 });

    // Item 5: the group view's columns stay inside the pane.
    await frame.locator('.viewport .row:not(.other-kind)').first().click();
    await frame.locator('.tokens span[data-i]').first().waitFor({ state: 'visible', timeout: 20_000 });
    await frame.locator('#grp').check();
    await frame.waitForFunction(() => document.querySelectorAll('.group .col').length === 3, undefined, { timeout: 20_000 });
    const fits = await frame.evaluate(() => {
      const pane = document.querySelector('.group')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('.group .col')).every((c) => c.getBoundingClientRect().right <= pane.right + 1);
    });
    assert.ok(fits, 'group columns run off the right edge');
    await wb.screenshot('logs-viewer-group');

    // Issue 23 item 7: a log of tables only has the columns of tables (kind, title, time), not token headers.
    const onlyTables = join(dir, 'tables.json.log');
    writeFileSync(onlyTables, tables);
    await wb.openFile(relative(wb.workspace, onlyTables));
    const tf = await wb.webviewFrame('#root:has(.bar .title:text-is("tables.json.log")) .viewport .row[data-pos]', 60_000);
    await tf.waitForFunction(() => document.querySelectorAll('.viewport .row[data-pos] .kind').length === 2, undefined, {
      timeout: 30_000,
    });
    await tf.waitForFunction(() => document.querySelector('section.list')?.classList.contains('mode-other'), undefined, {
      timeout: 10_000,
    });
    assert.deepEqual(await tf.locator('.row.head .cell').allInnerTexts(), ['#', 'kind', 'title', 'time']);
    const timeHead = await boxOf(tf.locator('.row.head .cell').nth(3), 'the time header');
    const tableTime = await boxOf(tf.locator('.viewport .row[data-pos] .time').first(), "the first table row's time");
    assert.ok(Math.abs(tableTime.x - timeHead.x) < 2, `time cell at ${tableTime.x}, its header at ${timeHead.x}`);
    await wb.screenshot('logs-viewer-tables-only');
  } catch (err) {
    await wb.screenshot('logs-viewer-failure').catch(() => undefined);
    throw err;
  } finally {
    await wb.close();
  }
});
