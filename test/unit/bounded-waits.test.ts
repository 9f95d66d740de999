// Issue 27 item 4: every wait on a child process is bounded. `agentjet lint --python W` and
// `agentjet doctor --python W`, with W a `#!/bin/sh` wrapper whose child sleeps (as a pyenv or
// conda shim runs Python as its child), must end, say in words why the interpreter was not used,
// leave nothing behind, and ask the silent interpreter one deadline's worth (not one per question).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { repoRoot } from '../util/paths';
import { waitFor } from '../util/poll';

let dir: string;
let cliJs: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aj-bounded-'));
  cliJs = join(dir, 'cli.js');
  // Bundled as scripts/build.mjs bundles the CLI (the doctor's probe is a .py text import).
  await esbuild.build({
    entryPoints: [join(repoRoot, 'cli', 'main.ts')],
    outfile: cliJs,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    loader: { '.py': 'text' },
    logLevel: 'error',
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  });
});

after(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** W: a wrapper that records its own pid and its child's, then waits on the child (which sleeps). */
function silentPython(tag: string): { python: string; pids: () => number[]; starts: () => number } {
  const d = join(dir, tag);
  mkdirSync(d, { recursive: true });
  const log = join(d, 'pids');
  const python = join(d, 'python');
  writeFileSync(python, `#!/bin/sh\necho "w $$" >> '${log}'\nsleep 600 &\necho "c $!" >> '${log}'\nwait\n`, { mode: 0o755 });
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
  return {
    python,
    pids: () => lines().map((l) => Number(l.split(' ')[1])),
    starts: () => lines().filter((l) => l.startsWith('w ')).length,
  };
}

/** Runs the bundled CLI; the wait is bounded at 20 s (the bound), after which it is killed and the test fails. */
async function cli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [cliJs, ...args], {
    cwd,
    env: { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '', AGENTJET_FACTS_CACHE: join(dir, 'facts-cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<number | null>((r) => p.on('close', (c) => r(c)));
  let code: number | null | undefined;
  void done.then((c) => (code = c));
  try {
    await waitFor(() => code !== undefined, `agentjet ${args[0]} to end (stderr so far: ${stderr})`, 20_000);
  } finally {
    if (code === undefined) p.kill('SIGKILL');
  }
  return { code: code ?? null, stdout, stderr };
}

test(
  'agentjet lint --python W (a wrapper whose child sleeps) ends, says why, asks W once, leaves nothing',
  { skip: process.platform === 'win32', timeout: 40_000 },
  async () => {
    const w = silentPython('lint');
    const ws = join(dir, 'lint-ws');
    mkdirSync(ws, { recursive: true });
    // A class reference to an installed package: the resolver would ask W where `somepkg` is.
    writeFileSync(join(ws, 'c.yaml'), 'ajet:\n  rollout:\n    user_workflow: somepkg.flows->Flow\n');
    const r = await cli(['lint', '--python', w.python, '--root', ws, join(ws, 'c.yaml')], ws);
    assert.notEqual(r.code, null, r.stderr);
    const why = `\`${w.python}\` did not answer within 8 s`;
    // Said where the judging AgentJet is named, and where the class reference could not be checked.
    assert.ok(r.stderr.includes(`${why}: judged by bundled facts of AgentJet`), r.stderr);
    assert.ok(r.stdout.includes(why), r.stdout);
    // One deadline for the interpreter: the second question was answered from memory, not asked.
    assert.equal(w.starts(), 1, `W was started ${w.starts()} times`);
    for (const pid of w.pids()) await waitFor(() => !alive(pid), `process ${pid} of W to end`, 5000);
  },
);

test('agentjet doctor --python W ends, says why, leaves nothing', { skip: process.platform === 'win32', timeout: 40_000 }, async () => {
  const w = silentPython('doctor');
  const ws = join(dir, 'doctor-ws');
  mkdirSync(ws, { recursive: true });
  const r = await cli(['doctor', '--python', w.python, '--format', 'json', '--port', '1'], ws);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as {
    checks: { id: string; status: string; detail?: string; message?: string }[];
    configsJudgedBy: string;
  };
  const why = `\`${w.python}\` did not answer within 8 s`;
  assert.ok(report.configsJudgedBy.includes(why), report.configsJudgedBy);
  assert.ok(r.stdout.includes(`${why}`), r.stdout);
  // Two questions (the probe, where AgentJet is installed) were asked at once and ended together.
  assert.ok(w.starts() <= 2, `W was started ${w.starts()} times`);
  for (const pid of w.pids()) await waitFor(() => !alive(pid), `process ${pid} of W to end`, 5000);
});
