// Tables as the real beast-logger writes them (print_dict / print_dictofdict through rich, into
// `<mod>/<mod>.json.log` via loguru), read back by the one table reader both the token log viewer
// and the run dashboard use (core/logs/table.ts): wrapped cells, folded keys, wide tables, panels,
// CJK text. The Python is the tests' venv (test/harness/python.ts), the code beast-logger's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { withUpstream } from '../util/upstream';
import { decodeRecord as decodeBytes } from '../../core/logs/decode';
import { readRichTable } from '../../core/logs/table';
import { decodeRecord, splitRecords } from '../../core/runs/records';
import { evalPoint, exceptionItem } from '../../core/runs/metrics';

const LONG_PROMPT =
  '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 12 * 7? Think step by step and answer with a number.';
const CHANGED_PROMPT = LONG_PROMPT.replace('12 * 7', '12 * 8');

// Mirrors the calls in ajet/backbone/trainer_verl.py (evaluation, narrow) and
// ajet/context_tracker/multiagent_tracking.py (exception), plus wide and CJK tables.
const SCRIPT = String.raw`
import json, os, sys
sys.path.insert(0, sys.argv[1])
os.environ['COLUMNS'] = sys.argv[3]
from beast_logger import register_logger, print_dict, print_dictofdict
register_logger(mods=['evaluation', 'exception', 'misc'], base_log_path=sys.argv[2])
case = json.load(open(sys.argv[4]))
print_dict(case['metrics'], narrow=True, header='gsm8k_test', mod='evaluation')
print_dict(case['mismatch'], mod='exception', header='Prompt text mismatch, Please report a github issue')
print_dict(case['cjk'], header='中文表格', mod='misc')
print_dictofdict(case['wide'], header='wide', mod='misc')
print_dict({'k': 'v'}, header='', mod='misc', narrow=True)
`;

interface Gen {
  dir: string;
  file: (mod: string) => string;
  cleanup: () => void;
}

function generate(beast: string, columns: number): Gen {
  const { python } = ensureTestPython();
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-beast-tables-'));
  const casePath = join(dir, 'case.json');
  writeFileSync(
    casePath,
    JSON.stringify({
      metrics: {
        'target dataset name': '/data/datasets/gsm8k/test-00000-of-00001.parquet',
        pass_n: 1,
        total_tasks: 40,
        num_all_success_tasks: 7,
        'num_pass_n_tasks(pass@1)': 7,
        'TGC@1': 0.175,
        'TGC@1-all-pass': 0.175,
        mean_reward: 0.2375,
      },
      mismatch: { expected_prompt_text: LONG_PROMPT, current_prompt_text: CHANGED_PROMPT },
      cjk: { 问题: '一个很长的中文句子，'.repeat(12), english: 'mixed 中文 and English words '.repeat(6) },
      wide: {
        'task-0001': { reward: 1, outcome: 'success', note: 'a long note '.repeat(20) },
        'task-0002': { reward: 0.5, outcome: 'failure', extra: 'x' },
      },
    }),
  );
  const r = spawnSync(python, ['-c', SCRIPT, beast, join(dir, 'logs'), String(columns), casePath], {
    encoding: 'utf8',
    env: { ...process.env, LOGURU_COLORIZE: 'NO' },
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `beast-logger failed: ${r.stderr.slice(-2000)}`);
  return { dir, file: (mod) => join(dir, 'logs', mod, `${mod}.json.log`), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function records(file: string) {
  return splitRecords(readFileSync(file, 'utf8').split('\n')).map(decodeRecord);
}

for (const columns of [80, 140]) {
  test(
    `beast-logger tables (console ${columns} columns) read back whole by the viewer and the dashboard`,
    withUpstream('beast-logger-6ba1ca5', (beast) => {
      const g = generate(beast, columns);
      try {
        // Evaluation (narrow: 50 columns): the folded key comes back whole, in both readers.
        const evals = records(g.file('evaluation'));
        assert.equal(evals.length, 1);
        const point = evalPoint(evals[0]!, 1)!;
        assert.equal(point.header, 'gsm8k_test');
        assert.equal(point.metrics['num_pass_n_tasks(pass@1)'], 7, `metric keys: ${Object.keys(point.metrics).join(', ')}`);
        assert.equal(point.metrics['TGC@1-all-pass'], 0.175);
        assert.equal(point.metrics['mean_reward'], 0.2375);
        // beast-logger's patched word splitter breaks after '/', '(' and before '-': read back whole.
        assert.equal(point.rows.find(([k]) => k === 'target dataset name')?.[1], '/data/datasets/gsm8k/test-00000-of-00001.parquet');
        assert.match(
          readFileSync(g.file('evaluation'), 'utf8'),
          /num_pass_n_tasks\(\s*│/,
          'the key is wrapped in the file (else this test proves nothing)',
        );
        const raw = readFileSync(g.file('evaluation'));
        const viewer = decodeBytes(raw);
        assert.ok(viewer.ok && viewer.record.kind === 'table');
        const keys = viewer.record.table.map(([k]) => k.replace(/\n/g, ' '));
        assert.ok(keys.includes('num_pass_n_tasks(pass@1)'), `viewer keys: ${keys.join(' | ')}`);

        // Exception: every wrapped line of both cells is kept, so the line that differs shows.
        const exc = records(g.file('exception'));
        const item = exceptionItem(exc[0]!, g.file('exception'));
        assert.match(item.title, /^Prompt text mismatch/);
        const excView = decodeBytes(readFileSync(g.file('exception')));
        assert.ok(excView.ok);
        const table = excView.record.table;
        assert.deepEqual(
          table.map(([k]) => k),
          ['expected_prompt_text', 'current_prompt_text'],
        );
        const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
        assert.equal(flat(table[0]![1]), flat(LONG_PROMPT));
        assert.equal(flat(table[1]![1]), flat(CHANGED_PROMPT));
        assert.ok(table[0]![1].split('\n').length > 2, 'the value kept its lines');
        // The dashboard shows the same text (one reader).
        assert.ok(flat(item.detail).includes(flat(CHANGED_PROMPT)));

        // CJK (two columns per character) and the panel title; then a wide table with a header row.
        const misc = readFileSync(g.file('misc'), 'utf8');
        const recs = records(g.file('misc'));
        assert.equal(recs.length, 3, misc.slice(0, 500));
        const cjk = readRichTable(String(recs[0]!.payload!.content))!;
        assert.equal(cjk.title, '中文表格');
        assert.equal(cjk.rows[0]![0], '问题');
        assert.equal(cjk.rows[0]![1]!.replace(/\n/g, ''), '一个很长的中文句子，'.repeat(12));
        assert.equal(flat(cjk.rows[1]![1]!), flat('mixed 中文 and English words '.repeat(6)));
        const wide = readRichTable(String(recs[1]!.payload!.content))!;
        assert.deepEqual(wide.header, ['', 'reward', 'outcome', 'note', 'extra']);
        assert.deepEqual(
          wide.rows.map((r) => r[0]),
          ['task-0001', 'task-0002'],
        );
        assert.equal(flat(wide.rows[0]![3]!), flat('a long note '.repeat(20)));
        assert.deepEqual(wide.rows[1]!.slice(1), ['0.5', 'failure', '', 'x']);
        // A panel without a title.
        assert.deepEqual(readRichTable(String(recs[2]!.payload!.content))!.rows, [['k', 'v']]);
      } finally {
        g.cleanup();
      }
    }),
  );
}
