import { hostname } from 'node:os';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { expDirFromArgs, launcherArgs, launcherCommand, looksLikeAgentJetConfig, readConfigFacts, shellQuote } from '../../core/launch/plan';
import { parseDotenv } from '../../core/launch/dotenv';
import { resolveInterpreter, whichSync } from '../../core/launch/interpreter';
import { compareVersions, judgeProbe, runProbe, type ProbeResult } from '../../core/launch/preflight';
import { descendants, isAlive, listProcesses, parsePs, planKill, terminate } from '../../core/launch/processes';
import { parseCompanionName, readCompanions } from '../../core/launch/companions';
import { experimentFromOutput, findExperimentFolder, findRolloutLog } from '../../core/launch/experiment';
import { lintFile } from '../../core/config/lint';

test('interpreter order: setting > Python extension > .venv/venv > python3', () => {
  const has = (set: string[]) => (p: string) => set.includes(p);
  assert.deepEqual(resolveInterpreter({ setting: '${workspaceFolder}/env/bin/python', pythonExtension: '/x/py', folder: '/w' }, has([])), { path: '/w/env/bin/python', source: 'setting' });
  assert.deepEqual(resolveInterpreter({ setting: ' ', pythonExtension: '/x/py', folder: '/w' }, has([])), { path: '/x/py', source: 'python-extension' });
  assert.deepEqual(resolveInterpreter({ folder: '/w', platform: 'linux' }, has(['/w/venv/bin/python'])), { path: '/w/venv/bin/python', source: 'venv' });
  assert.deepEqual(resolveInterpreter({ folder: '/w', platform: 'linux' }, has(['/w/venv/bin/python', '/w/.venv/bin/python'])).path, '/w/.venv/bin/python');
  assert.deepEqual(resolveInterpreter({ folder: '/w', platform: 'linux' }, has([])), { path: 'python3', source: 'path' });
  assert.equal(whichSync('python3', has(['/b/python3']), '/a:/b'), '/b/python3');
  assert.equal(whichSync('/abs/py', has([])), undefined);
});

test('launcher command lines per dialect and backbone', () => {
  assert.deepEqual(launcherCommand('/py', 'ajet', { config: 'a.yaml' }), { command: '/py', args: ['-m', 'ajet.launcher', '--backbone', 'debug', '--conf', 'a.yaml'] });
  assert.deepEqual(launcherCommand('py', 'astuner', { config: 'b.yaml', backbone: 'verl' }).args.slice(0, 2), ['-m', 'astuner.launcher']);
  assert.deepEqual(launcherArgs({ config: 'c.yaml', backbone: 'trinity', withRay: true, withRayCluster: true, debugTags: 'A | B', args: ['--with-appworld'] }),
    ['--backbone', 'trinity', '--conf', 'c.yaml', '--with-ray', '--with-ray-cluster', '--debug', 'A|B', '--with-appworld']);
  assert.deepEqual(launcherArgs({ config: 'c', debugTags: [' ', 'X'] }), ['--backbone', 'debug', '--conf', 'c', '--debug', 'X']);
  assert.equal(expDirFromArgs(['--exp-dir', 'out'], 'ajet'), 'out');
  assert.equal(expDirFromArgs(['--exp-dir=o2'], 'ajet'), 'o2');
  assert.equal(expDirFromArgs([], 'astuner'), 'launcher_record');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote('a/b.yaml'), 'a/b.yaml');
});

test('config facts: dialect, experiment name, vLLM port; broken YAML does not throw', () => {
  assert.deepEqual(readConfigFacts('ajet:\n  experiment_name: x1\n  debug:\n    debug_vllm_port: 18123\n'), { dialect: 'ajet', experimentName: 'x1', debugVllmPort: 18123 });
  assert.equal(readConfigFacts('astune:\n  rollout: {}\n').dialect, 'astune');
  assert.equal(readConfigFacts('ajet:\n  experiment_name: ${x}\n').experimentName, undefined);
  assert.deepEqual(readConfigFacts('ajet: [\n'), { dialect: undefined, experimentName: undefined, debugVllmPort: 18000 });
  assert.equal(readConfigFacts('other: 1\n').dialect, undefined);
  assert.ok(looksLikeAgentJetConfig('# c\najet:\n  x: 1'));
  assert.ok(!looksLikeAgentJetConfig('foo:\n  ajet: 1'));
});

test('.env parsing like python-dotenv', () => {
  const env = parseDotenv('# comment\nexport A=1\nB = "two words" \nC=\'${A} raw\'\nD=${A}-x # trailing\nE="multi\nline"\nF="esc\\nX"\nbad line\nG=${MISSING:-dflt}\n', { HOME: '/h' });
  assert.deepEqual(env, { A: '1', B: 'two words', C: '${A} raw', D: '1-x', E: 'multi\nline', F: 'esc\nX', G: 'dflt' });
});

const probe = (over: Partial<ProbeResult> = {}): ProbeResult => ({
  python: '/py', version: '3.11', debugpy: '1.8.1', debugpyError: null,
  framework: { module: 'ajet.launcher', ok: true, file: '/x', error: null },
  port: { port: 18000, inUse: false, holderPid: null, holderPgid: null, holderArgs: null }, ...over,
});

test('preflight verdicts: debugpy missing/old, framework missing, port held by a stranger', () => {
  const ctx = { companionPgids: [42], portKey: 'ajet.debug.debug_vllm_port', wantDebugpy: true };
  assert.deepEqual(judgeProbe(probe(), ctx), { errors: [], warnings: [] });
  const old = judgeProbe(probe({ debugpy: '1.6.3+git20221103.a2a3328' }), ctx);
  assert.equal(old.errors.length, 0);
  assert.match(old.warnings[0]!, /debugpy 1\.6\.3\+git20221103\.a2a3328 found .*wants >= 1\.8\.0.*pip install --upgrade "debugpy>=1\.8\.0"/);
  assert.equal(judgeProbe(probe({ debugpy: '1.6.3' }), { ...ctx, minDebugpy: '1.6' }).warnings.length, 0);
  assert.match(judgeProbe(probe({ debugpy: null, debugpyError: "No module named 'debugpy'" }), ctx).errors[0]!, /debugpy is not installed for \/py.*Install it with/);
  assert.equal(judgeProbe(probe({ debugpy: null }), { ...ctx, wantDebugpy: false }).errors.length, 0);
  assert.match(judgeProbe(probe({ framework: { module: 'ajet.launcher', ok: false, file: null, error: "No module named 'ajet'" } }), ctx).errors[0]!, /cannot import ajet\.launcher \(No module named 'ajet'\)/);
  const port = { port: 18000, inUse: true, holderPid: 7, holderPgid: 7, holderArgs: 'nc -l' };
  assert.match(judgeProbe(probe({ port }), ctx).errors[0]!, /port 18000 \(ajet\.debug\.debug_vllm_port\) is held by process 7 \(nc -l\)/);
  assert.equal(judgeProbe(probe({ port: { ...port, holderPgid: 42 } }), ctx).errors.length, 0);
  assert.equal(compareVersions('1.8.0', '1.8'), 0);
  assert.equal(compareVersions('1.10.0', '1.8.0'), 1);
  assert.equal(compareVersions('1.8.0rc1', '1.8.1'), -1);
});

test('the probe runs against a real interpreter and reports a missing one', async () => {
  const ok = await runProbe({ python: 'python3', module: 'json', port: 1, wantDebugpy: true, cwd: tmpdir(), env: process.env });
  assert.ok(ok.ok);
  if (ok.ok) { assert.equal(ok.result.framework.ok, true); assert.equal(ok.result.port.inUse, false); }
  const missing = await runProbe({ python: '/nonexistent/python', module: 'json', port: 1, wantDebugpy: true, cwd: tmpdir(), env: process.env });
  assert.deepEqual(missing, { ok: false, error: 'the Python interpreter /nonexistent/python does not exist' });
});

test('process trees: parse ps, descendants, kill plan spares companions and ourselves', () => {
  const procs = parsePs('  1 0 1 init\n 10 1 10 adapter\n 11 10 11 debugpy\n 12 11 12 launcher --conf x\n 13 12 50 companion\n 14 12 12 worker\n 20 1 20 other\n');
  assert.deepEqual(descendants(10, procs).map((p) => p.pid).sort(), [10, 11, 12, 13, 14]);
  const plan = planKill(procs, [11], [12], [50], 10);
  assert.deepEqual(plan.pids.sort(), [11, 12, 14]);
  assert.deepEqual(plan.pgids, [12]);
});

test('terminate ends a real process group and reports nothing left', async () => {
  const child = spawn('sh', ['-c', 'sleep 30 & sleep 30; wait'], { detached: true, stdio: 'ignore' });
  const pid = child.pid!;
  const procs = await listProcesses();
  const tree = descendants(pid, procs);
  assert.ok(tree.length >= 2, 'the shell and its sleeps are listed');
  const left = await terminate(planKill(procs, [pid], [pid], []), 2000);
  assert.deepEqual(left, []);
  const after = await listProcesses();
  assert.equal(after.filter((p) => p.pgid === pid).length, 0);
  assert.equal(isAlive(pid), false);
});

test('companion records, experiment folder and rollout log discovery', () => {
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
  assert.deepEqual({ ...vllm, pgidFile: '', logFile: !!vllm.logFile }, { tag: 'external_vllm_server', hash: 'ab12', host: here, pgid: 123, pgidFile: '', logFile: true, alive: true });
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
  assert.equal(findExperimentFolder(root, '/w/math.yaml', undefined, since), exp);
  assert.equal(findExperimentFolder(root, '/w/math.yaml', 'nope', since), undefined);
  assert.equal(findRolloutLog(exp, since), log);
  assert.equal(findRolloutLog(join(dir, 'missing')), undefined);
  assert.equal(experimentFromOutput('2026-01-01 | INFO | ajet.launcher:main:60 - Experiment folder: /w/saved_experiments/x y'), '/w/saved_experiments/x y');
});

test('the preflight view of lintFile: broken YAML and unreadable files are errors, the demo is clean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-lint-'));
  const f = (name: string, text: string): string => { const p = join(dir, name); writeFileSync(p, text); return p; };
  const errors = async (p: string, root?: string) => (await lintFile(p, root ? { root } : {})).filter((d) => d.severity === 'error');
  assert.ok((await errors(f('a.yaml', 'ajet:\n  rollout: [\n'))).length > 0, 'a YAML syntax error blocks a launch');
  // Not a config at all: lint stays silent and the adapter refuses it by its own dialect check.
  assert.deepEqual(await lintFile(f('b.yaml', 'foo: 1\n')), []);
  assert.ok((await errors(join(dir, 'missing.yaml'))).length > 0, 'an unreadable config blocks a launch');
  const demo = join(__dirname, '..', '..', 'demo');
  assert.deepEqual(await errors(join(demo, 'math_agent.yaml'), demo), []);
});
