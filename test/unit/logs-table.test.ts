// The one rich-table reader (core/logs/table.ts) on hand-made renderings of the cases beast-logger
// produces: wrapped cells, words broken after punctuation, folded words, CJK widths, panels, header
// rows, tables without row rules. The real library's output is checked in
// test/conformance/beast-logger-tables.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellWidth, joinCellLines, keyValueRows, oneLine, readRichTable } from '../../core/logs/table';
import { decodeRecord } from '../../core/logs/decode';
import { parseRichTable } from '../../core/runs/metrics';

const PANEL = [
  '',
  '╭──────────────────── gsm8k ─────────────────────╮',
  '│ ┌──────────────────────┬─────────────────────┐ │',
  '│ │ target dataset name  │ /data/datasets/     │ │',
  '│ │                      │ gsm8k/test-00000-of │ │',
  '│ │                      │ -00001.parquet      │ │',
  '│ ├──────────────────────┼─────────────────────┤ │',
  '│ │ num_pass_n_tasks(    │ 7                   │ │',
  '│ │ pass@1)              │                     │ │',
  '│ ├──────────────────────┼─────────────────────┤ │',
  '│ │ expected_prompt_text │ <|im_start|>user    │ │',
  '│ │                      │ What    is   12   * │ │',
  '│ │                      │ 7?                  │ │',
  '│ └──────────────────────┴─────────────────────┘ │',
  '╰────────────────────────────────────────────────╯',
  '',
].join('\n');

test('wrapped cells are joined: names and paths whole, other breaks kept as lines', () => {
  const g = readRichTable(PANEL)!;
  assert.equal(g.title, 'gsm8k');
  assert.equal(g.header, undefined);
  assert.deepEqual(g.rows, [
    ['target dataset name', '/data/datasets/gsm8k/test-00000-of-00001.parquet'],
    ['num_pass_n_tasks(pass@1)', '7'],
    ['expected_prompt_text', '<|im_start|>user\nWhat is 12 *\n7?'],
  ]);
  // The dashboard reads the same rows (keys on one line).
  assert.deepEqual(
    parseRichTable(PANEL).map(([k]) => k),
    ['target dataset name', 'num_pass_n_tasks(pass@1)', 'expected_prompt_text'],
  );
});

test('a folded word (longer than its column) is glued; a word break at a space is not', () => {
  assert.equal(joinCellLines(['abcdefgh', 'ij'], 8), 'abcdefghij');
  assert.equal(joinCellLines(['abc def', 'ghi'], 8), 'abc def\nghi');
  assert.equal(joinCellLines(['', 'x', ''], 4), 'x');
  assert.equal(oneLine('a\nb'), 'a b');
});

test('CJK characters take two columns and wrapped CJK text joins without spaces', () => {
  assert.equal(cellWidth('中文ab'), 6);
  const t = ['┌────────┬──────────────┐', '│ 中文键 │ 中文值很长中 │', '│        │ 文值很长     │', '└────────┴──────────────┘'].join('\n');
  assert.deepEqual(readRichTable(t)!.rows, [['中文键', '中文值很长中文值很长']]);
});

test('a table with a header row (print_dictofdict) keeps all columns', () => {
  const t = [
    '┏━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━┓',
    '┃           ┃ reward ┃ outcome  ┃',
    '┡━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━┩',
    '│ task-0001 │ 1      │ success  │',
    '├───────────┼────────┼──────────┤',
    '│ task-0002 │ 0.5    │          │',
    '└───────────┴────────┴──────────┘',
  ].join('\n');
  const g = readRichTable(t)!;
  assert.deepEqual(g.header, ['', 'reward', 'outcome']);
  assert.deepEqual(g.rows, [
    ['task-0001', '1', 'success'],
    ['task-0002', '0.5', ''],
  ]);
  assert.deepEqual(keyValueRows(g), [], 'not a key/value table');
});

test('without row rules, a line with an empty first cell continues the row above', () => {
  const t = '│ note  │ a long │\n│       │ text   │\n│ TGC@1 │ 0.5    │';
  assert.deepEqual(readRichTable(t)!.rows, [
    ['note', 'a long\ntext'],
    ['TGC@1', '0.5'],
  ]);
});

test('no table, bad input: undefined, never a throw', () => {
  for (const s of ['', 'plain text', '│', '╭──╮\n╰──╯', '┌─┐\n│x│\n└─┘', '\u001b[31m│ a │ b │\u001b[0m'])
    assert.doesNotThrow(() => readRichTable(s));
  assert.equal(readRichTable('Traceback (most recent call last):\n  boom'), undefined);
  assert.deepEqual(readRichTable('\u001b[31m│ a │ b │\u001b[0m')!.rows, [['a', 'b']]);
});

test('the viewer decodes a header table record into a grid with all columns', () => {
  const content = '┏━━━┳━━━┳━━━┓\n┃   ┃ a ┃ b ┃\n┡━━━╇━━━╇━━━┩\n│ r │ 1 │ 2 │\n└───┴───┴───┘';
  const r = decodeRecord(Buffer.from(`2026-01-05 10:00:00.000 | INFO     | x:y:1 - \n${JSON.stringify({ header: 'dod', content })}\n`));
  assert.ok(r.ok);
  assert.equal(r.record.kind, 'table');
  assert.deepEqual(r.record.grid, { header: ['', 'a', 'b'], rows: [['r', '1', '2']] });
});
