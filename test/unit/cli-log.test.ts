import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { fixtures } from '../gen';

// The facts cache goes to a folder of this test run, not the user's ~/.cache.
const cacheDir = mkdtempSync(join(tmpdir(), 'ajcli-cache-'));
process.on('exit', () => rmSync(cacheDir, { recursive: true, force: true }));

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, AGENTJET_CACHE_DIR: cacheDir },
  });
}

const rollout = () => fixtures().rollout;

test('agentjet log stats --format json: records, timelines, tokens, per-step rewards', () => {
  const r = cli('log', 'stats', rollout(), '--format', 'json');
  assert.equal(r.status, 0, r.stderr);
  const st = JSON.parse(r.stdout) as {
    records: number;
    timelines: number;
    tokens: number;
    trainedTokens: number;
    corruptRecords: number;
    steps: { step: number; records: number; meanReward: number }[];
  };
  assert.equal(st.records, 16);
  assert.equal(st.timelines, 32);
  assert.ok(st.trainedTokens > 0 && st.trainedTokens < st.tokens);
  assert.equal(st.corruptRecords, 0);
  assert.deepEqual(
    st.steps.map((s) => s.step),
    [0, 1, 2, 3],
  );
  assert.ok(st.steps.every((s) => s.records === 4 && s.meanReward >= 0 && s.meanReward <= 1));
});

test('agentjet log stats (text) reports the truncated record', () => {
  const r = cli('log', 'stats', join(fixtures().logs, 'truncated.json.log'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /records:\s+5/);
  assert.match(r.stdout, /corrupt records: 1 \(the last record is incomplete/);
  assert.match(r.stdout, /#4: incomplete record/);
});

test('agentjet log export --jsonl: one row per timeline, arrays aligned, agrees with stats', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajlog-cli-'));
  try {
    const out = join(dir, 'rows.jsonl');
    const r = cli('log', 'export', rollout(), '--jsonl', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /exported 32 timelines from 16 records/);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            task: string;
            step: number;
            reward: number;
            advantage: number;
            tokens: string[];
            ids: number[];
            logprobs: (number | null)[];
            mask: number[];
          },
      );
    assert.equal(rows.length, 32);
    const st = JSON.parse(cli('log', 'stats', rollout(), '--format', 'json').stdout) as { tokens: number; trainedTokens: number };
    assert.equal(
      rows.reduce((a, x) => a + x.tokens.length, 0),
      st.tokens,
    );
    assert.equal(
      rows.reduce((a, x) => a + x.mask.filter((m) => m === 1).length, 0),
      st.trainedTokens,
    );
    for (const x of rows) {
      assert.equal(typeof x.task, 'string');
      assert.equal(typeof x.advantage, 'number');
      assert.equal(x.ids.length, x.tokens.length);
      assert.equal(x.logprobs.length, x.tokens.length);
      assert.equal(x.mask.length, x.tokens.length);
    }
    // To stdout as well.
    const s = cli('log', 'export', join(fixtures().logs, 'plain.json.log'), '--jsonl');
    assert.equal(s.stdout.trim().split('\n').length, 8);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentjet log export --out a FIFO writes into it and leaves it a FIFO (no temp file renamed over it)', async (t) => {
  if (process.platform === 'win32' || spawnSync('mkfifo', ['--version']).error) return t.skip('no mkfifo');
  const dir = mkdtempSync(join(tmpdir(), 'ajlog-fifo-'));
  try {
    const fifo = join(dir, 'rows.fifo'),
      got = join(dir, 'got.jsonl'),
      file = join(dir, 'rows.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // The reader: with the temp-and-rename write it never sees a writer (killed below).
    const reader = spawn('sh', ['-c', 'cat "$0" > "$1"', fifo, got], { stdio: 'ignore' });
    const readerDone = new Promise<number | null>((resolve) => reader.on('exit', (code) => resolve(code)));
    const timer = setTimeout(() => reader.kill(), 20_000);
    try {
      const r = cli('log', 'export', rollout(), '--jsonl', '--out', fifo);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO was replaced');
      if (!lstatSync(fifo).isFIFO()) reader.kill();
      assert.equal(await readerDone, 0);
    } finally {
      clearTimeout(timer);
      reader.kill();
    }
    assert.equal(cli('log', 'export', rollout(), '--jsonl', '--out', file).status, 0);
    assert.ok(readFileSync(file).length > 0);
    assert.deepEqual(readFileSync(got), readFileSync(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentjet log export --out a folder: one clear message, exit 2, nothing left in the folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajlog-outdir-'));
  try {
    const r = cli('log', 'export', rollout(), '--jsonl', '--out', dir);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /is a folder/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentjet log: usage errors exit 2 with a message', () => {
  assert.equal(cli('log').status, 2);
  const help = cli('log', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /agentjet log stats/);
  const missing = cli('log', 'stats', '/nonexistent/x.json.log');
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no such file/);
  assert.equal(cli('log', 'export', rollout()).status, 2);
  assert.equal(cli('log', 'stats', rollout(), '--format', 'xml').status, 2);
  assert.equal(cli('log', 'frob', rollout()).status, 2);
  assert.match(cli('--help').stdout, /log\s+token log/);
});
