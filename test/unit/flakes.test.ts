// The flake finder (scripts/flakes.mjs): it runs test files N times and lists every test that
// failed in any run, with how often; a file that leaves a process behind fails that run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';

interface Summary {
  layer: string;
  repeat: number;
  runs: { run: number; passed: number; failed: number }[];
  failures: { file: string; name: string; failedRuns: number[]; runs: number; errors: string[] }[];
}

/** Runs the finder to its end: exit code and output. */
function flakes(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'flakes.mjs'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env, AGENTJET_HEAVY_LOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** A live (not zombie) process: a killed orphan may stay a zombie until its new parent reaps it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

test('a test that fails in one run of three is listed as 1/3 with its run and error; steady tests are not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-flakes-'));
  try {
    const counter = join(dir, 'count');
    writeFileSync(counter, '0');
    writeFileSync(join(dir, 'steady.test.ts'), "import { test } from 'node:test';\ntest('always passes', () => {});\n");
    // Fails on its second run only, inside a nested test (the finder names the subtest, not its parent).
    writeFileSync(
      join(dir, 'flaky.test.ts'),
      [
        "import { test } from 'node:test';",
        "import { readFileSync, writeFileSync } from 'node:fs';",
        `const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;`,
        `writeFileSync(${JSON.stringify(counter)}, String(n));`,
        "test('outer', async (t) => {",
        "  await t.test('inner', () => { if (n === 2) throw new Error('went wrong on run ' + n); });",
        '});',
        "test('fine', () => {});",
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const r = await flakes([
      '--file',
      join(dir, 'steady.test.ts'),
      '--file',
      join(dir, 'flaky.test.ts'),
      '--repeat',
      '3',
      '--no-build',
      '--out',
      out,
    ]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /tests that failed in any run: 1\n/);
    assert.match(r.out, /1\/3 {2}\S*flaky\.test\.ts {2}outer > inner {2}\(runs 2\)/);
    assert.match(r.out, /run 2: went wrong on run 2/);
    assert.doesNotMatch(r.out, /always passes {2}\(runs/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    assert.deepEqual(
      summary.runs.map((x) => [x.passed, x.failed]),
      [
        [4, 0],
        [2, 1],
        [4, 0],
      ],
    );
    assert.deepEqual(
      summary.failures.map((f) => [f.name, f.failedRuns, f.runs]),
      [['outer > inner', [2], 3]],
    );
    // Every file's run keeps its log.
    assert.match(readFileSync(join(out, 'run-2', 'flaky.log'), 'utf8'), /went wrong on run 2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nothing failed: the list is empty and the exit code 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-flakes-'));
  try {
    writeFileSync(join(dir, 'steady.test.ts'), "import { test } from 'node:test';\ntest('always passes', () => {});\n");
    const r = await flakes(['--file', join(dir, 'steady.test.ts'), '--repeat', '2', '--no-build', '--out', join(dir, 'out')]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /tests that failed in any run: none/);
    assert.match(r.out, /run 2: 1 passed, 0 failed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that leaves a process behind fails that run, and the process is ended', { skip: process.platform !== 'linux' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-flakes-'));
  try {
    const pidFile = join(dir, 'pid');
    writeFileSync(
      join(dir, 'leaky.test.ts'),
      [
        "import { test } from 'node:test';",
        "import { spawn } from 'node:child_process';",
        "import { writeFileSync } from 'node:fs';",
        "test('starts a sleeper and forgets it', () => {",
        "  const c = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });",
        '  c.unref();',
        `  writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`,
        '});',
        '',
      ].join('\n'),
    );
    const r = await flakes(['--file', join(dir, 'leaky.test.ts'), '--repeat', '1', '--no-build', '--out', join(dir, 'out')]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /1\/1 {2}\S*leaky\.test\.ts {2}\(processes left behind\)/);
    assert.match(r.out, /sleep 300/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(alive(pid), false, 'the sleeper was ended');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
