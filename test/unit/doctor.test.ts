// Environment checks: the pure evaluation, the real probe script in the test Python, and
// `agentjet doctor` (bundled by esbuild with the .py text loader, as scripts/build.mjs does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import {
  blockingForLaunch,
  compareVersions,
  evaluate,
  parseNvidiaSmi,
  type DoctorInput,
  type PackageFacts,
  type ProbeFacts,
} from '../../core/doctor/checks';
import { gather } from '../../core/doctor/run';
import { toMarkdown, toText } from '../../core/doctor/report';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';

const probeText = readFileSync(join(repoRoot, 'core', 'doctor', 'probe.py'), 'utf8');

function pkg(module: string, version: string | null, launcher = false): PackageFacts {
  return {
    module,
    found: version !== null,
    version,
    location: version ? `/site/${module}` : null,
    launcher: launcher ? `/site/${module}/launcher.py` : null,
    error: null,
  };
}

function input(over: Partial<ProbeFacts> = {}, extra: Partial<DoctorInput> = {}): DoctorInput {
  const facts: ProbeFacts = {
    python: '/venv/bin/python',
    version: '3.11.7',
    venv: true,
    packages: {
      ajet: pkg('ajet', '0.0.1', true),
      debugpy: pkg('debugpy', '1.8.11'),
      vllm: pkg('vllm', '0.8.5'),
      verl: pkg('verl', null),
      trinity: pkg('trinity', null),
      ray: pkg('ray', '2.40.0'),
    },
    port: { port: 18000, inUse: false },
    ...over,
  };
  return {
    python: '/venv/bin/python',
    probe: { ok: true, facts },
    gpu: { available: true, gpus: [{ name: 'NVIDIA A100', memoryMiB: 81920 }], error: null },
    trusted: true,
    ...extra,
  };
}

const byId = (d: DoctorInput) => Object.fromEntries(evaluate(d).map((c) => [c.id, c]));

test('versions compare numerically, by PEP 440 (core/process/version.ts, property-tested there)', () => {
  assert.equal(compareVersions('1.8.0', '1.8.0'), 0);
  assert.equal(compareVersions('1.8.11', '1.8.2'), 1);
  assert.equal(compareVersions('1.10', '1.8.0'), 1);
  assert.equal(compareVersions('1.6.7', '1.8.0'), -1);
  // A local build (+cu121) sorts just after its public version: it still meets a minimum of 2.5.1.
  assert.equal(compareVersions('2.5.1+cu121', '2.5.1'), 1);
  assert.equal(compareVersions('1.8.0rc1', '1.8.0'), -1);
});

test('a complete environment has no errors; every check is present', () => {
  const c = byId(input());
  assert.deepEqual(Object.keys(c), [
    'python',
    'framework',
    'launcher',
    'debugpy',
    'vllm',
    'verl',
    'trinity',
    'ray',
    'gpu',
    'port',
    'trust',
  ]);
  assert.deepEqual(
    evaluate(input()).filter((x) => x.status === 'error'),
    [],
  );
  assert.equal(c.verl?.status, 'info');
  // AgentJet's installation guide: from a clone, editable, with the backbone extra (issue 23 item 4).
  assert.equal(
    c.verl?.fix?.value,
    'git clone https://github.com/modelscope/AgentJet.git && cd AgentJet && /venv/bin/python -m pip install -e ".[verl]" && /venv/bin/python -m pip install --verbose flash-attn --no-deps --no-build-isolation --no-cache',
  );
});

test('missing ajet, bad Python and untrusted workspace are errors; old debugpy and a busy port warnings; all with fixes', () => {
  const c = byId(
    input({ version: '3.9.18', packages: { debugpy: pkg('debugpy', '1.6.7') }, port: { port: 18000, inUse: true } }, { trusted: false }),
  );
  assert.equal(c.python?.status, 'error');
  assert.equal(c.python?.fix?.value, 'agentjet.pythonPath');
  assert.equal(c.framework?.status, 'error');
  // The launch runs with it (without following child processes): a warning, as the preflight says.
  assert.equal(c.debugpy?.status, 'warning');
  assert.match(c.debugpy?.detail ?? '', /debugpy 1\.6\.7 found for \/venv\/bin\/python; AgentJet's launcher wants >= 1\.8\.0/);
  assert.equal(c.debugpy?.fix?.value, '/venv/bin/python -m pip install --upgrade "debugpy>=1.8.0"');
  assert.equal(c.vllm?.status, 'warning');
  assert.equal(c.port?.status, 'warning');
  assert.equal(c.trust?.status, 'error');
  assert.equal(c.trust?.fix?.value, 'workbench.trust.manage');
  assert.equal(c.launcher, undefined);
  // The launch preflight blocks on these; GPU absence never blocks a debug launch.
  assert.deepEqual(
    blockingForLaunch(evaluate(input({ packages: {} }, { gpu: { available: false, gpus: [], error: 'nvidia-smi not found' } })), true).map(
      (x) => x.id,
    ),
    ['framework', 'debugpy'],
  );
  assert.deepEqual(
    blockingForLaunch(evaluate(input({ packages: { ajet: pkg('ajet', '0.0.1', true) } })), false).map((x) => x.id),
    [],
  );
});

test('ASTuner is recognised (a warning), the port held by our companion is fine, a failed probe is one clear error', () => {
  const c = byId(
    input(
      { packages: { astuner: pkg('astuner', '0.1.0', true), debugpy: pkg('debugpy', '1.8.0') }, port: { port: 18000, inUse: true } },
      { portHeldByCompanion: true },
    ),
  );
  assert.equal(c.framework?.status, 'warning');
  assert.equal(c.launcher?.status, 'ok');
  assert.equal(c.port?.status, 'ok');
  const failed = evaluate({
    python: '/nope',
    probe: { ok: false, error: 'The Python interpreter /nope does not exist.' },
    gpu: { available: false, gpus: [], error: 'nvidia-smi not found' },
  });
  assert.deepEqual(
    failed.map((x) => [x.id, x.status]),
    [
      ['python', 'error'],
      ['gpu', 'info'],
    ],
  );
});

test('nvidia-smi CSV parses; reports render every check', () => {
  assert.deepEqual(parseNvidiaSmi('NVIDIA A100-SXM4-80GB, 81920\nTesla T4, 15360\n'), [
    { name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920 },
    { name: 'Tesla T4', memoryMiB: 15360 },
  ]);
  const checks = evaluate(input({ packages: {} }));
  const md = toMarkdown(checks, '/venv/bin/python');
  assert.match(md, /^# AgentJet environment/);
  assert.match(md, /```sh\n\/venv\/bin\/python -m pip install/);
  const text = toText(checks, '/venv/bin/python');
  for (const c of checks) assert.ok(text.includes(c.detail), c.id);
});

test('the real probe script reports the test Python, debugpy and a busy port', async () => {
  const { python } = ensureTestPython();
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const addr = srv.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  try {
    const d = await gather({ python, script: probeText, cwd: repoRoot, port, trusted: true });
    assert.ok(d.probe.ok, d.probe.ok ? '' : d.probe.error);
    if (!d.probe.ok) return;
    assert.match(d.probe.facts.version, /^3\.\d+\.\d+$/);
    assert.equal(d.probe.facts.port.inUse, true);
    const dbg = d.probe.facts.packages.debugpy;
    assert.ok(dbg?.found && dbg.version, JSON.stringify(dbg));
    const c = byId(d);
    assert.equal(c.debugpy?.status, 'ok');
    assert.equal(c.port?.status, 'warning');
    // With the stand-in backbone on PYTHONPATH, ajet and its launcher are found (not imported).
    const withAjet = await gather({
      python,
      script: probeText,
      cwd: repoRoot,
      port,
      env: { ...process.env, PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') },
    });
    assert.ok(withAjet.probe.ok && withAjet.probe.facts.packages.ajet?.launcher?.endsWith('launcher.py'));
  } finally {
    srv.close();
  }
  const missing = await gather({ python: '/no/such/python', script: probeText, cwd: repoRoot, port: 18000 });
  assert.deepEqual(missing.probe, { ok: false, error: 'The Python interpreter /no/such/python does not exist.' });
});

test('agentjet doctor (the bundled CLI): text, --format json, exit status, Chinese', async () => {
  const { python } = ensureTestPython();
  const out = mkdtempSync(join(tmpdir(), 'agentjet-doctor-'));
  try {
    await esbuild.build({
      entryPoints: [join(repoRoot, 'cli', 'main.ts')],
      outfile: join(out, 'cli.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      loader: { '.py': 'text' },
      logLevel: 'error',
      define: { 'import.meta.url': 'importMetaUrl' },
      banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
    });
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(out, 'cli.js'), 'doctor', '--python', python, ...args], {
        encoding: 'utf8',
        cwd: out,
        env: { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '', PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') },
      });
    const json = run('--format', 'json', '--port', '1');
    const report = JSON.parse(json.stdout) as { checks: Array<{ id: string; status: string }>; errors: number; configsJudgedBy: string };
    assert.equal(json.status, report.errors > 0 ? 1 : 0);
    // The stand-in `ajet` has no default_config: configs here are judged by the bundled facts, and doctor says so.
    assert.match(
      report.configsJudgedBy,
      /^bundled facts of AgentJet 0\.0\.4 \(May 2026\), AgentJet 0\.0\.1 \(January 2026\), the newest that knows a file's keys \(no AgentJet found here or in /,
    );
    assert.equal(report.checks.find((c) => c.id === 'debugpy')?.status, 'ok');
    assert.equal(report.checks.find((c) => c.id === 'launcher')?.status, 'ok');
    assert.equal(
      report.checks.some((c) => c.id === 'trust'),
      false,
    );
    const text = run();
    assert.match(text.stdout, /AgentJet environment \(interpreter: /);
    assert.match(text.stdout, /Configs are judged by bundled facts of AgentJet/);
    const zh = run('--lang', 'zh-cn');
    assert.match(zh.stdout, /AgentJet 环境/);
    const bad = spawnSync(process.execPath, [join(out, 'cli.js'), 'doctor', '--format', 'xml'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    const gone = spawnSync(process.execPath, [join(out, 'cli.js'), 'doctor', '--python', '/no/such/python'], {
      encoding: 'utf8',
      env: { ...process.env, LANG: 'C' },
    });
    assert.equal(gone.status, 1);
    assert.match(gone.stdout, /does not exist/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('checkForLaunch (for the debug preflight): blocking findings from the real probe', async () => {
  const { checkForLaunch } = await import('../../core/doctor/preflight');
  const { python } = ensureTestPython();
  const base = { python, script: probeText, cwd: repoRoot, port: 1, wantDebugpy: true, trusted: true };
  const without = await checkForLaunch({ ...base, env: { ...process.env, PYTHONPATH: '' } });
  // The launcher decides (the framework package alone does not: ASTune's launcher is in none).
  assert.deepEqual(
    without.blocking.map((c) => c.id),
    ['launcher'],
  );
  const withAjet = await checkForLaunch({ ...base, env: { ...process.env, PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') } });
  assert.deepEqual(withAjet.blocking, []);
  const untrusted = await checkForLaunch({
    ...base,
    trusted: false,
    env: { ...process.env, PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') },
  });
  assert.deepEqual(
    untrusted.blocking.map((c) => c.id),
    ['trust'],
  );
});
