import { hostname } from 'node:os';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { waitFor } from '../util/poll';
import {
  LAUNCHER_ENTRIES,
  consoleScriptBeside,
  expDirFromArgs,
  launcherArgs,
  launcherCommand,
  looksLikeAgentJetConfig,
  readConfigFacts,
  usesVllmPort,
} from '../../core/launch/plan';
import { shellQuote } from '../../core/process/quote';
import { resolveAttributes } from '../../core/launch/attributes';
import { subprocessAttach } from '../../core/protocol/debug';
import { parseDotenv } from '../../core/launch/dotenv';
import { resolveInterpreter, whichSync } from '../../core/process/resolveInterpreter';
import { compareVersions } from '../../core/launch/preflight';
import {
  blockingForLaunch,
  evaluate,
  warningsForLaunch,
  type LaunchContext,
  type PackageFacts,
  type ProbeFacts,
} from '../../core/doctor/checks';
import { runProbeScript } from '../../core/doctor/run';
import { probeScript } from '../../core/doctor/probeText';
import { descendants, isAlive, listProcesses, parsePs, planKill, terminate } from '../../core/launch/processes';
import { parseCompanionName, readCompanions } from '../../core/launch/companions';
import { LauncherOutputReader, findExperimentFolder, findRolloutLog, logExperimentOf } from '../../core/launch/experiment';
import { lintFile } from '../../core/config/lint';

test('interpreter order: setting > Python extension > .venv/venv > python3', () => {
  const has = (set: string[]) => (p: string) => set.includes(p);
  assert.deepEqual(resolveInterpreter({ setting: '${workspaceFolder}/env/bin/python', pythonExtension: '/x/py', folder: '/w' }, has([])), {
    path: '/w/env/bin/python',
    source: 'setting',
  });
  assert.deepEqual(resolveInterpreter({ setting: ' ', pythonExtension: '/x/py', folder: '/w' }, has([])), {
    path: '/x/py',
    source: 'python-extension',
  });
  assert.deepEqual(resolveInterpreter({ folder: '/w', platform: 'linux' }, has(['/w/venv/bin/python'])), {
    path: '/w/venv/bin/python',
    source: 'venv',
  });
  assert.deepEqual(
    resolveInterpreter({ folder: '/w', platform: 'linux' }, has(['/w/venv/bin/python', '/w/.venv/bin/python'])).path,
    '/w/.venv/bin/python',
  );
  assert.deepEqual(resolveInterpreter({ folder: '/w', platform: 'linux' }, has([])), { path: 'python3', source: 'path' });
  assert.equal(whichSync('python3', has(['/b/python3']), '/a:/b'), '/b/python3');
  assert.equal(whichSync('/abs/py', has([])), undefined);
});

test('launcher per installed version: console script beside the interpreter, else the probed module', () => {
  // [project.scripts] of each upstream pyproject.toml; ASTuner never had `astuner.launcher`.
  assert.deepEqual(LAUNCHER_ENTRIES.ajet, { script: 'ajet', modules: ['ajet.launcher', 'ajet.cli.launcher'] });
  assert.deepEqual(LAUNCHER_ENTRIES.astuner, { script: 'astuner', modules: ['astuner.cli.launcher'] });
  const has = (set: string[]) => (p: string) => set.includes(p);
  assert.equal(consoleScriptBeside('/venv/bin/python', 'ajet', has(['/venv/bin/ajet']), 'linux'), '/venv/bin/ajet');
  assert.equal(consoleScriptBeside('/venv/bin/python', 'astuner', has(['/venv/bin/ajet']), 'linux'), undefined);
  assert.equal(consoleScriptBeside('/venv/bin/python', 'astuner', has(['/venv/bin/astuner']), 'linux'), '/venv/bin/astuner');
  assert.equal(
    consoleScriptBeside('python3', 'ajet', () => true, 'linux'),
    undefined,
    'a bare name has no folder to look in',
  );
  assert.deepEqual(launcherCommand('/py', { kind: 'script', path: '/venv/bin/ajet' }, { config: 'a.yaml' }).args, [
    '/venv/bin/ajet',
    '--backbone',
    'debug',
    '--conf',
    'a.yaml',
  ]);
  assert.equal(usesVllmPort('debug'), true);
  assert.equal(usesVllmPort('verl'), false);
  assert.equal(usesVllmPort('trinity'), false);
});

test('launcher command lines per target and backbone', () => {
  assert.deepEqual(launcherCommand('/py', { kind: 'module', module: 'ajet.launcher' }, { config: 'a.yaml' }), {
    command: '/py',
    args: ['-m', 'ajet.launcher', '--backbone', 'debug', '--conf', 'a.yaml'],
  });
  assert.deepEqual(
    launcherCommand('py', { kind: 'module', module: 'astuner.cli.launcher' }, { config: 'b.yaml', backbone: 'verl' }).args.slice(0, 2),
    ['-m', 'astuner.cli.launcher'],
  );
  assert.deepEqual(
    launcherArgs({
      config: 'c.yaml',
      backbone: 'trinity',
      withRay: true,
      withRayCluster: true,
      debugTags: 'A | B',
      args: ['--with-appworld'],
    }),
    ['--backbone', 'trinity', '--conf', 'c.yaml', '--with-ray', '--with-ray-cluster', '--debug', 'A|B', '--with-appworld'],
  );
  assert.deepEqual(launcherArgs({ config: 'c', debugTags: [' ', 'X'] }), ['--backbone', 'debug', '--conf', 'c', '--debug', 'X']);
  assert.equal(expDirFromArgs(['--exp-dir', 'out'], 'ajet'), 'out');
  assert.equal(expDirFromArgs(['--exp-dir=o2'], 'ajet'), 'o2');
  assert.equal(expDirFromArgs([], 'astuner'), 'launcher_record');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote('a/b.yaml'), 'a/b.yaml');
});

test('config facts: dialect, experiment name, vLLM port; broken YAML does not throw', () => {
  assert.deepEqual(readConfigFacts('ajet:\n  experiment_name: x1\n  debug:\n    debug_vllm_port: 18123\n'), {
    dialect: 'ajet',
    experimentName: 'x1',
    debugVllmPort: 18123,
  });
  assert.equal(readConfigFacts('astune:\n  rollout: {}\n').dialect, 'astune');
  assert.equal(readConfigFacts('ajet:\n  experiment_name: ${x}\n').experimentName, undefined);
  assert.deepEqual(readConfigFacts('ajet: [\n'), { dialect: undefined, experimentName: undefined, debugVllmPort: 18000 });
  assert.equal(readConfigFacts('other: 1\n').dialect, undefined);
  assert.ok(looksLikeAgentJetConfig('# c\najet:\n  x: 1'));
  assert.ok(!looksLikeAgentJetConfig('foo:\n  ajet: 1'));
});

test('.env parsing like python-dotenv', () => {
  const env = parseDotenv(
    '# comment\nexport A=1\nB = "two words" \nC=\'${A} raw\'\nD=${A}-x # trailing\nE="multi\nline"\nF="esc\\nX"\nbad line\nG=${MISSING:-dflt}\n',
    { HOME: '/h' },
  );
  assert.deepEqual(env, { A: '1', B: 'two words', C: '${A} raw', D: '1-x', E: 'multi\nline', F: 'esc\nX', G: 'dflt' });
});

test('.env: the inherited environment wins, as load_dotenv(override=False); launch.json env wins over both', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-env-'));
  writeFileSync(join(dir, '.env'), 'OPENAI_API_KEY=from-file\nONLY_FILE=f\nBOTH=file\n');
  const r = resolveAttributes({ config: 'c.yaml', cwd: dir, env: { BOTH: 'launch-json' } }, { OPENAI_API_KEY: 'inherited', PATH: '/bin' });
  assert.equal(r.envFile, join(dir, '.env'));
  assert.deepEqual(r.envAdditions, { ONLY_FILE: 'f', BOTH: 'launch-json' }, 'the inherited OPENAI_API_KEY is not overridden by the file');
});

test('child sessions of the launcher: only our flagged configurations with a valid debugpy endpoint', () => {
  assert.deepEqual(subprocessAttach({ agentjetSubprocess: true, connect: { host: '127.0.0.1', port: 5678 }, subProcessId: 42 }), {
    connect: { host: '127.0.0.1', port: 5678 },
    subProcessId: 42,
  });
  assert.equal(subprocessAttach({ connect: { port: 5678 } }), undefined, 'not flagged');
  assert.equal(subprocessAttach({ agentjetSubprocess: true, connect: { port: 0 } }), undefined);
  assert.equal(subprocessAttach({ agentjetSubprocess: true }), undefined);
});

test("the launcher's own lines name the run: Experiment Name / Backup Dir / Yaml Dir, and the logger's session path", () => {
  const reader = new LauncherOutputReader();
  // As loguru prints them (colours on), split across chunks and streams.
  const esc =
    '\x1b[32m2026-01-29 10:00:00.000\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36majet.utils.config_utils\x1b[0m:\x1b[36mprepare_experiment_config\x1b[0m:\x1b[36m284\x1b[0m - \x1b[1m';
  assert.equal(
    reader.push(
      `${esc}Experiment Name: math_agent_20260129_1000\x1b[0m\n${esc}Experiment Backup Dir: /o/math_agent_20260129_1000/backup\x1b[0m\n${esc}Experiment Yaml Di`,
      'stderr',
    ),
    true,
  );
  assert.equal(reader.info.yamlBackup, undefined);
  reader.push('r: /o/math_agent_20260129_1000/yaml_backup.yaml\x1b[0m\n', 'stderr');
  assert.deepEqual(reader.info, {
    name: 'math_agent_20260129_1000',
    backupDir: '/o/math_agent_20260129_1000/backup',
    yamlBackup: '/o/math_agent_20260129_1000/yaml_backup.yaml',
  });
  // --exp-dir moved the snapshot to /o; the logs stay under the working directory.
  assert.equal(
    logExperimentOf(reader.info, '/w', () => false),
    '/w/saved_experiments/math_agent_20260129_1000',
  );
  assert.equal(
    logExperimentOf(reader.info, '/w', (p) => p === '/w/launcher_record/math_agent_20260129_1000'),
    '/w/launcher_record/math_agent_20260129_1000',
  );
  reader.push(
    'View rollout details at [http://localhost:8181/?path=/w/saved_experiments/math_agent_20260129_1000/2026_01_29_10_00/host-1]\n',
  );
  assert.equal(
    (reader.info as { logSession?: string }).logSession,
    '/w/saved_experiments/math_agent_20260129_1000/2026_01_29_10_00/host-1',
  );
  assert.equal(
    logExperimentOf(reader.info, '/elsewhere', () => false),
    '/w/saved_experiments/math_agent_20260129_1000',
  );
  assert.equal(logExperimentOf({}, '/w'), undefined);
});

// The launch's verdicts are the environment checks (core/doctor/checks.ts) judged with a LaunchContext.
const pkgFacts = (module: string, version: string | null): PackageFacts => ({
  module,
  found: version !== null,
  version,
  location: version ? `/site/${module}` : null,
  launcher: null,
  error: null,
});
const probe = (over: { debugpy?: string | null; launchers?: ProbeFacts['launchers']; port?: ProbeFacts['port'] } = {}): ProbeFacts => ({
  python: '/py',
  version: '3.11.7',
  venv: true,
  packages: { ajet: pkgFacts('ajet', '0.1.0'), debugpy: pkgFacts('debugpy', over.debugpy === undefined ? '1.8.1' : over.debugpy) },
  launchers: over.launchers ?? {
    'ajet.launcher': { file: '/x', error: null },
    'ajet.cli.launcher': { file: null, error: "No module named 'ajet.cli.launcher'" },
  },
  port: over.port ?? { port: 18000, inUse: false, holderPid: null, holderPgid: null, holderArgs: null },
});
function judgeProbe(facts: ProbeFacts, ctx: { wantDebugpy: boolean } & Partial<LaunchContext>): { errors: string[]; warnings: string[] } {
  const launch: LaunchContext = {
    candidates: ['ajet.launcher', 'ajet.cli.launcher'],
    companionPgids: [],
    portKey: 'ajet.debug.debug_vllm_port',
    ...ctx,
  };
  const checks = evaluate({ python: '/py', probe: { ok: true, facts }, gpu: { available: false, gpus: [], error: null }, launch });
  return {
    errors: blockingForLaunch(checks, ctx.wantDebugpy).map((c) => c.detail),
    warnings: warningsForLaunch(checks, ctx.wantDebugpy).map((c) => c.detail),
  };
}

test('preflight verdicts: debugpy missing/old, framework missing, port held by a stranger', () => {
  const ctx = { companionPgids: [42], portKey: 'ajet.debug.debug_vllm_port', wantDebugpy: true };
  assert.deepEqual(judgeProbe(probe(), ctx), { errors: [], warnings: [] });
  const old = judgeProbe(probe({ debugpy: '1.6.3+git20221103.a2a3328' }), ctx);
  assert.equal(old.errors.length, 0);
  assert.match(
    old.warnings[0]!,
    /debugpy 1\.6\.3\+git20221103\.a2a3328 found .*wants >= 1\.8\.0.*pip install --upgrade "debugpy>=1\.8\.0"/,
  );
  assert.equal(
    judgeProbe(probe({ debugpy: '1.6.3' }), { ...ctx, wantDebugpy: false }).warnings.length,
    0,
    'no debugpy verdict without debugging',
  );
  assert.match(judgeProbe(probe({ debugpy: null }), ctx).errors[0]!, /debugpy is not installed for \/py.*Install it with/);
  assert.equal(judgeProbe(probe({ debugpy: null }), { ...ctx, wantDebugpy: false }).errors.length, 0);
  const none = {
    'ajet.launcher': { file: null, error: "No module named 'ajet'" },
    'ajet.cli.launcher': { file: null, error: "No module named 'ajet'" },
  };
  assert.match(
    judgeProbe(probe({ launchers: none }), ctx).errors[0]!,
    /\/py has no AgentJet launcher: no console script beside it and it cannot import ajet\.launcher, ajet\.cli\.launcher \(No module named 'ajet'\)/,
  );
  assert.equal(
    judgeProbe(probe({ launchers: none }), { ...ctx, consoleScript: '/venv/bin/ajet' }).errors.length,
    0,
    'a console script needs no module',
  );
  const port = { port: 18000, inUse: true, holderPid: 7, holderPgid: 7, holderArgs: 'nc -l' };
  assert.match(judgeProbe(probe({ port }), ctx).errors[0]!, /port 18000 \(ajet\.debug\.debug_vllm_port\) is held by process 7 \(nc -l\)/);
  assert.equal(judgeProbe(probe({ port: { ...port, holderPgid: 42 } }), ctx).errors.length, 0);
  assert.equal(judgeProbe(probe({ port: { ...port, port: 0 } }), ctx).errors.length, 0, 'no port check (verl/trinity)');
  assert.equal(compareVersions('1.8.0', '1.8'), 0);
  assert.equal(compareVersions('1.10.0', '1.8.0'), 1);
  assert.equal(compareVersions('1.8.0rc1', '1.8.1'), -1);
});

test('the probe runs against a real interpreter and reports a missing one', async () => {
  const script = await probeScript();
  const ok = await runProbeScript({
    python: 'python3',
    script,
    launchers: ['no_such_launcher_xyz', 'json'],
    port: 1,
    cwd: tmpdir(),
    env: process.env,
  });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.facts.launchers?.json?.file?.endsWith('json/__init__.py'), true, 'the candidate it really has');
    assert.equal(ok.facts.launchers?.no_such_launcher_xyz?.file, null);
    assert.equal(ok.facts.port.inUse, false);
  }
  const none = await runProbeScript({
    python: 'python3',
    script,
    launchers: ['no_such_a.launcher', 'no_such_b'],
    port: 0,
    cwd: tmpdir(),
    env: process.env,
  });
  assert.ok(none.ok);
  if (none.ok)
    assert.deepEqual(
      Object.values(none.facts.launchers ?? {}).map((l) => l?.error),
      ["No module named 'no_such_a.launcher'", "No module named 'no_such_b'"],
    );
  const missing = await runProbeScript({
    python: '/nonexistent/python',
    script,
    launchers: ['json'],
    port: 1,
    cwd: tmpdir(),
    env: process.env,
  });
  assert.deepEqual(missing, { ok: false, error: 'The Python interpreter /nonexistent/python does not exist.' });
});

test('process trees: parse ps, descendants, kill plan spares companions and ourselves', () => {
  const procs = parsePs(
    '  1 0 1 init\n 10 1 10 adapter\n 11 10 11 debugpy\n 12 11 12 launcher --conf x\n 13 12 50 companion\n 14 12 12 worker\n 20 1 20 other\n',
  );
  assert.deepEqual(
    descendants(10, procs)
      .map((p) => p.pid)
      .sort(),
    [10, 11, 12, 13, 14],
  );
  const plan = planKill(procs, [11], [12], [50], 10);
  assert.deepEqual(plan.pids.sort(), [11, 12, 14]);
  assert.deepEqual(plan.pgids, [12]);
});

test('terminate ends a real process group and reports nothing left', async () => {
  const child = spawn('sh', ['-c', 'sleep 30 & sleep 30; wait'], { detached: true, stdio: 'ignore' });
  const pid = child.pid!;
  // The shell forks its sleeps on its own schedule: no event says so, so the process list is polled.
  let procs = await listProcesses();
  await waitFor(async () => descendants(pid, (procs = await listProcesses())).length >= 3, 'the shell and its two sleeps', 10_000);
  const left = await terminate(planKill(procs, [pid], [pid], []), 2000);
  assert.deepEqual(left, []);
  const after = await listProcesses();
  assert.equal(after.filter((p) => p.pgid === pid).length, 0);
  assert.equal(isAlive(pid), false);
});

test('companion records, experiment folder and rollout log discovery', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-launch-'));
  const comp = join(dir, 'saved_experiments', 'companion_logs', 'companion');
  mkdirSync(comp, { recursive: true });
  const here = hostname();
  writeFileSync(join(comp, `external_vllm_server.ab12.${here}.pgid`), '123\n');
  writeFileSync(join(comp, `external_vllm_server.ab12.${here}.log`), '');
  writeFileSync(join(comp, 'logview.cd34ef56.other.host.pgid'), '123\n');
  writeFileSync(join(comp, 'junk.pgid'), 'x');
  const list = readCompanions(comp, (g) => g === 123);
  assert.equal(list.length, 2);
  const vllm = list.find((c) => c.tag === 'external_vllm_server')!;
  assert.deepEqual(
    { ...vllm, pgidFile: '', logFile: !!vllm.logFile },
    { tag: 'external_vllm_server', hash: 'ab12', host: here, pgid: 123, pgidFile: '', logFile: true, alive: true },
  );
  assert.equal(list.find((c) => c.tag === 'logview')!.alive, false, 'a process group id recorded on another host says nothing here');
  assert.deepEqual(parseCompanionName('logview.x.h.pgid'), { tag: 'logview', hash: 'x', host: 'h' });
  assert.deepEqual(readCompanions(join(dir, 'none')), []);

  const root = join(dir, 'saved_experiments');
  const since = Date.now();
  const old = join(root, 'math_20200101_0000');
  mkdirSync(old, { recursive: true });
  utimesSync(old, new Date(2020, 0, 1), new Date(2020, 0, 1));
  const exp = join(root, 'math_20260101_1200');
  const log = join(exp, '2026_01_01_12_00', 'host', 'rollout', 'rollout.json.log');
  mkdirSync(join(log, '..'), { recursive: true });
  writeFileSync(log, '');
  assert.equal(await findExperimentFolder(root, '/w/math.yaml', undefined, since), exp);
  assert.equal(await findExperimentFolder(root, '/w/math.yaml', 'nope', since), undefined);
  assert.equal(await findRolloutLog(exp, since), log);
  assert.equal(await findRolloutLog(join(dir, 'missing')), undefined);
});

test('the preflight view of lintFile: broken YAML and unreadable files are errors, the demo is clean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-lint-'));
  const f = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const errors = async (p: string, root?: string) => (await lintFile(p, root ? { root } : {})).filter((d) => d.severity === 'error');
  assert.ok((await errors(f('a.yaml', 'ajet:\n  rollout: [\n'))).length > 0, 'a YAML syntax error blocks a launch');
  // Not a config at all: lint stays silent and the adapter refuses it by its own dialect check.
  assert.deepEqual(await lintFile(f('b.yaml', 'foo: 1\n')), []);
  assert.ok((await errors(join(dir, 'missing.yaml'))).length > 0, 'an unreadable config blocks a launch');
  const demo = join(__dirname, '..', '..', 'demo');
  assert.deepEqual(await errors(join(demo, 'math_agent.yaml'), demo), []);
});
