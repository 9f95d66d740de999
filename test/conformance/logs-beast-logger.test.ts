// Token logs written by the real beast-logger (print_nested, loguru rotation), called the way
// AgentJet's and ASTune's context trackers call it, read back by the engine and by dist/cli.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { upstream, withUpstream } from '../util/upstream';
import { repoRoot } from '../util/paths';
import { LogSession } from '../../core/logs/session';
import { exportRow } from '../../core/logs/stats';

interface ExpectedTimeline {
  index: number;
  tokens: string[];
  ids: number[];
  mask: number[];
  logprobs: (number | null)[];
  advantage: number;
}
interface Expected {
  step: number | null;
  task: string;
  outcome: string;
  reward: number;
  timelines: ExpectedTimeline[];
}

const script = join(__dirname, 'python', 'write_token_logs.py');

function writeLogs(fmt: 'agentjet' | 'astune', records: number, rotation: string): { dir: string; expected: Expected[] } {
  const dir = mkdtempSync(join(tmpdir(), `ajbl-${fmt}-`));
  const colorHsl =
    fmt === 'agentjet'
      ? upstream('agentjet-d20cce0', 'ajet', 'utils', 'color_hsl.py')
      : upstream('astune-ba24412p', 'astune', 'utils', 'color_hsl.py');
  const { python } = ensureTestPython();
  const r = spawnSync(python, [script, upstream('beast-logger-6ba1ca5'), colorHsl, dir, fmt, String(records), rotation], {
    encoding: 'utf8',
    env: { ...process.env, LOGURU_COLORIZE: 'NO' },
  });
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('EXPECTED '));
  assert.ok(line, r.stdout);
  return { dir, expected: JSON.parse(line.slice(9)) as Expected[] };
}

/** dist/cli.js, rebuilt when a source it bundles is newer. */
function cliJs(): string {
  const out = join(repoRoot, 'dist', 'cli.js');
  const newest = (d: string): number =>
    readdirSync(d, { withFileTypes: true }).reduce(
      (m, e) => Math.max(m, e.isDirectory() ? newest(join(d, e.name)) : statSync(join(d, e.name)).mtimeMs),
      0,
    );
  const src = Math.max(newest(join(repoRoot, 'cli')), newest(join(repoRoot, 'core')));
  if (!existsSync(out) || statSync(out).mtimeMs < src) {
    const b = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), '--no-tests'], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  }
  return out;
}

async function checkEngine(main: string, expected: Expected[], fmt: 'agentjet' | 'astune'): Promise<void> {
  const s = new LogSession(main);
  await s.update();
  assert.equal(s.count, expected.length, 'every record, across the rotated files, in order');
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const r = await s.record(i);
    assert.ok(r?.ok, `record ${i}: ${r && !r.ok ? r.error : 'missing'}`);
    const rec = r.record;
    assert.equal(rec.taskId, e.task, `record ${i} task`);
    assert.equal(rec.step, e.step ?? undefined, `record ${i} step`);
    assert.equal(rec.outcome, e.outcome);
    assert.equal(rec.timelines.length, e.timelines.length);
    rec.timelines.forEach((t, k) => {
      const et = e.timelines[k]!;
      assert.equal(t.taskId, e.task, `record ${i} timeline ${k} task`);
      assert.equal(t.outcome, e.outcome);
      assert.equal(t.index, et.index);
      assert.equal(t.titles, fmt === 'agentjet' ? 'logprob' : 'text');
      assert.deepEqual(t.text, et.tokens);
      assert.deepEqual(t.ids, et.ids);
      assert.deepEqual(t.mask, et.mask, `record ${i} timeline ${k} mask from the colour's hue`);
      assert.deepEqual(t.logprobs, et.logprobs);
      assert.equal(t.advantage, et.advantage);
      assert.equal(exportRow(i, rec, t).task, e.task);
    });
  }
  await s.summarize();
  for (let i = 0; i < expected.length; i++) {
    const row = s.row(i);
    assert.equal(row.taskId, expected[i]!.task, `summary row ${i} task`);
    assert.equal(row.outcome, expected[i]!.outcome, `summary row ${i} outcome`);
  }
}

function checkCli(main: string, expected: Expected[]): void {
  const cli = cliJs();
  const st = spawnSync(process.execPath, [cli, 'log', 'stats', main, '--format', 'json', '--no-cache'], { encoding: 'utf8' });
  assert.equal(st.status, 0, st.stderr);
  const stats = JSON.parse(st.stdout) as {
    records: number;
    timelines: number;
    tokens: number;
    trainedTokens: number;
    corruptRecords: number;
  };
  const all = expected.flatMap((e) => e.timelines);
  assert.deepEqual(
    {
      records: stats.records,
      timelines: stats.timelines,
      tokens: stats.tokens,
      trained: stats.trainedTokens,
      corrupt: stats.corruptRecords,
    },
    {
      records: expected.length,
      timelines: all.length,
      tokens: all.reduce((a, t) => a + t.tokens.length, 0),
      trained: all.reduce((a, t) => a + t.mask.filter((m) => m === 1).length, 0),
      corrupt: 0,
    },
  );
  const ex = spawnSync(process.execPath, [cli, 'log', 'export', main, '--jsonl'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(ex.status, 0, ex.stderr);
  const rows = ex.stdout
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          record: number;
          task: string;
          outcome: string;
          timeline: number;
          tokens: string[];
          mask: number[];
          logprobs: (number | null)[];
        },
    );
  assert.equal(rows.length, all.length);
  let k = 0;
  expected.forEach((e, i) => {
    for (const t of e.timelines) {
      const row = rows[k++]!;
      assert.deepEqual([row.record, row.task, row.outcome, row.timeline], [i, e.task, e.outcome, t.index]);
      assert.deepEqual(row.tokens, t.tokens);
      assert.deepEqual(row.mask, t.mask);
      assert.deepEqual(row.logprobs, t.logprobs);
    }
  });
}

test(
  'AgentJet-format token log written by beast-logger, rotated: empty, dotted, spaced and escaped task ids',
  withUpstream('beast-logger-6ba1ca5', async () => {
    const { dir, expected } = writeLogs('agentjet', 40, '4 KB');
    try {
      const main = join(dir, 'rollout', 'rollout.json.log');
      assert.ok(
        readdirSync(join(dir, 'rollout')).filter((n) => n.startsWith('rollout.json.') && n !== 'rollout.json.log').length >= 2,
        'the log rotated',
      );
      await checkEngine(main, expected, 'agentjet');
      checkCli(main, expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);

test(
  'ASTune-format token log (basic tracker: title = token text, key task.outcome, [NA] step): no logprobs invented',
  withUpstream('astune-ba24412p', async () => {
    const { dir, expected } = writeLogs('astune', 10, '100 MB');
    try {
      const main = join(dir, 'rollout', 'rollout.json.log');
      await checkEngine(main, expected, 'astune');
      checkCli(main, expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);
