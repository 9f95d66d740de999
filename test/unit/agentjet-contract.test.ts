// The AgentJet contract module (core/agentjet): naming, paths, hosts, liveness with PID reuse,
// companions, launch records and the status rules, each rule on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkRecordedGroup,
  checkRecordedProcess,
  childWorkingDir,
  companionFolder,
  decideHostStatus,
  derivedNamePattern,
  expandWorkspaceFolder,
  experimentName,
  isHarmlessException,
  isHostlessSession,
  launchForSession,
  launchPaths,
  layoutOfPackageCode,
  layoutOfRun,
  NOT_EXPERIMENTS,
  parseCompanionId,
  parseExpDir,
  parseHostFolder,
  parseLauncherLine,
  parseProcStat,
  probeProcess,
  readCompanionsSync,
  readLaunchRecords,
  sameHost,
  tracebackInOutput,
  writeLaunchRecord,
  type HostFacts,
} from '../../core/agentjet';
import { nodeFs } from '../../core/fs/seam';

const at = new Date(2026, 0, 29, 14, 5, 33);

test('experiment naming: read_yaml_name and no name give <stem>_<YYYYmmdd_HHMM> (AgentJet, ASTuner Dec) or <stem> (ASTuner Nov, ASTune)', () => {
  assert.equal(experimentName('/w/cfg/math_agent.yaml', 'read_yaml_name', 'agentjet', at), 'math_agent_20260129_1405');
  assert.equal(experimentName('/w/cfg/math_agent.yaml', undefined, 'astuner-2025-12', at), 'math_agent_20260129_1405');
  assert.equal(experimentName('/w/cfg/math_agent.yaml', 'read_yaml_name', 'astuner-2025-11', at), 'math_agent');
  assert.equal(experimentName('/w/cfg/math_agent.yaml', null, 'astune', at), 'math_agent');
  assert.equal(experimentName('/w/cfg/x.yaml', 'a|b', 'agentjet', at), 'a-b', 'the launcher replaces | by -');
  assert.equal(experimentName('/w/a.yaml.yaml', undefined, 'astune', at), 'a', 'Python str.replace replaces every ".yaml"');
  assert.ok(derivedNamePattern('/w/math.agent.yaml', 'agentjet').test('math.agent_20260129_1405'));
  assert.ok(!derivedNamePattern('/w/math.agent.yaml', 'agentjet').test('mathXagent_20260129_1405'));
  assert.ok(derivedNamePattern('/w/m.yaml', 'astune').test('m'));
});

test('--exp-dir parsing: both spellings, last wins, a dangling flag is ignored', () => {
  assert.equal(parseExpDir(['--conf', 'a.yaml', '--exp-dir', 'out']), 'out');
  assert.equal(parseExpDir(['--exp-dir=out2']), 'out2');
  assert.equal(parseExpDir(['--exp-dir', 'a', '--exp-dir=b']), 'b');
  assert.equal(parseExpDir(['--exp-dir']), undefined);
  assert.equal(parseExpDir(undefined), undefined);
});

test('${workspaceFolder} expansion: plain, named, ~, unknown left as written', () => {
  assert.equal(expandWorkspaceFolder('${workspaceFolder}/.venv/bin/python', '/ws'), '/ws/.venv/bin/python');
  assert.equal(expandWorkspaceFolder('${workspaceFolder:lib}/x', '/ws', { lib: '/lib' }), '/lib/x');
  assert.equal(expandWorkspaceFolder('${workspaceFolder:nope}/x', '/ws'), '${workspaceFolder:nope}/x');
  assert.equal(expandWorkspaceFolder('~/x', undefined, {}, '/home/u'), '/home/u/x');
  assert.equal(expandWorkspaceFolder('${workspaceFolder}', undefined), '${workspaceFolder}');
});

test('paths: logs and companions stay under the working directory, only yaml_backup and backup follow --exp-dir', () => {
  const p = launchPaths({ cwd: '/w', version: 'agentjet', experiment: 'e1', args: ['--exp-dir', '/elsewhere'], start: at, host: 'gpu-0' });
  assert.equal(p.logExperiment, '/w/saved_experiments/e1');
  assert.equal(p.hostDir, '/w/saved_experiments/e1/2026_01_29_14_05/gpu-0');
  assert.equal(p.yamlBackup, '/elsewhere/e1/yaml_backup.yaml');
  assert.equal(p.backupDir, '/elsewhere/e1/backup');
  assert.equal(p.companions, '/w/saved_experiments/companion_logs/companion');
  const nov = launchPaths({ cwd: '/w', version: 'astuner-2025-11', experiment: 'e1', start: at, host: 'gpu-0' });
  assert.equal(nov.session, '/w/launcher_record/e1/2026_01_29_14_05');
  assert.equal(nov.hostDir, undefined, 'no host folder in the November 2025 layout');
  assert.equal(nov.yamlBackup, '/w/launcher_record/e1/yaml_backup.yaml');
  assert.equal(companionFolder('/w', 'astune'), '/w/launcher_record/companion_logs/companion');
  const rel = launchPaths({ cwd: '/w', version: 'agentjet', experiment: 'e', expDir: 'runs/x' });
  assert.equal(rel.backupDir, '/w/runs/x/e/backup');
});

test('AgentJet 0.0.4: <stem>_<YYYYmmdd_HHMMSS_mmm> names, logs under --exp-dir, ISOLATED_AGENTJET_BASE_DIR moves the child', () => {
  const ms = new Date(2026, 4, 26, 9, 7, 3, 45);
  assert.equal(experimentName('/w/cfg/math_agent.yaml', 'read_yaml_name', 'agentjet-0.0.4', ms), 'math_agent_20260526_090703_045');
  assert.equal(experimentName('/w/cfg/math_agent.yaml', 'mine', 'agentjet-0.0.4', ms), 'mine');
  assert.ok(derivedNamePattern('/w/m.yaml', 'agentjet-0.0.4').test('m_20260526_090703_045'));
  assert.ok(!derivedNamePattern('/w/m.yaml', 'agentjet-0.0.4').test('m_20260526_0907'));
  assert.ok(!derivedNamePattern('/w/m.yaml', 'agentjet').test('m_20260526_090703_045'));
  const p = launchPaths({
    cwd: '/w',
    version: 'agentjet-0.0.4',
    experiment: 'e1',
    args: ['--exp-dir', '/elsewhere'],
    start: at,
    host: 'gpu-0',
  });
  assert.equal(p.logExperiment, '/elsewhere/e1', 'init_parallel_rollout_logger(experiment_dir)');
  assert.equal(p.hostDir, '/elsewhere/e1/2026_01_29_14_05/gpu-0');
  assert.equal(p.yamlBackup, '/elsewhere/e1/yaml_backup.yaml');
  assert.equal(p.companions, '/w/saved_experiments/companion_logs/companion', 'companions stay under the working directory');
  const def = launchPaths({ cwd: '/w', version: 'agentjet-0.0.4', experiment: 'e1' });
  assert.equal(def.logExperiment, '/w/saved_experiments/e1');
  // The child runs in ISOLATED_AGENTJET_BASE_DIR: a relative --exp-dir and the companions resolve there;
  // the snapshot is made absolute by the launcher in its own folder.
  const env = { ISOLATED_AGENTJET_BASE_DIR: '/iso' };
  const iso = launchPaths({ cwd: '/w', version: 'agentjet-0.0.4', experiment: 'e1', env });
  assert.equal(iso.logExperiment, '/iso/saved_experiments/e1');
  assert.equal(iso.yamlBackup, '/w/saved_experiments/e1/yaml_backup.yaml');
  assert.equal(iso.companions, '/iso/saved_experiments/companion_logs/companion');
  assert.equal(childWorkingDir('/w', 'agentjet-0.0.4', { ISOLATED_AGENTJET_BASE_DIR: 'rel' }), '/w/rel');
  assert.equal(childWorkingDir('/w', 'agentjet', env), '/w', 'January has no such variable');
  assert.equal(launchPaths({ cwd: '/w', version: 'agentjet', experiment: 'e1', env }).logExperiment, '/w/saved_experiments/e1');
});

test('which AgentJet wrote a run, and which one a package is, from their own files', () => {
  assert.equal(layoutOfRun('m_20260526_090703_045', undefined), 'agentjet-0.0.4');
  assert.equal(layoutOfRun('m_20260129_1405', undefined), 'agentjet');
  assert.equal(layoutOfRun('named', 'ajet:\n  enable_interchange_server: false\n'), 'agentjet-0.0.4');
  assert.equal(layoutOfRun('named', 'ajet:\n  enable_experimental_interchange_server: false\n'), 'agentjet');
  const pkg = (code: string | undefined) => layoutOfPackageCode((rel) => (rel === 'backbone/warm_up.py' ? code : undefined));
  assert.equal(pkg('def init_parallel_rollout_logger(experiment_dir):\n'), 'agentjet-0.0.4');
  assert.equal(pkg('def init_parallel_rollout_logger(experiment_name):\n'), 'agentjet');
  assert.equal(pkg('# nothing\n'), undefined);
  assert.equal(pkg(undefined), undefined);
  for (const n of ['companion_logs', 'hydra_outputs', 'swanlog']) assert.ok(NOT_EXPERIMENTS.has(n), n);
});

test('launcher announcement lines', () => {
  assert.deepEqual(
    parseLauncherLine(
      '2026-01-29 14:05:33.123 | INFO     | ajet.utils.config_utils:prepare_experiment_config:284 - Experiment Name: m_20260129_1405',
    ),
    { kind: 'name', value: 'm_20260129_1405' },
  );
  assert.deepEqual(parseLauncherLine('\x1b[32mExperiment Yaml Dir: /w/saved_experiments/m/yaml_backup.yaml\x1b[0m\r'), {
    kind: 'yaml',
    value: '/w/saved_experiments/m/yaml_backup.yaml',
  });
  assert.equal(parseLauncherLine('Experiment folder is nice'), undefined);
});

test('hosts: short and full names match; _<pid> folders; a session of module folders is host-less', () => {
  assert.ok(sameHost('gpu-0', 'GPU-0.cluster.local'));
  assert.ok(!sameHost('gpu-0', 'gpu-01'));
  assert.deepEqual(parseHostFolder('gpu-0_4242', 'other'), { host: 'gpu-0', pid: 4242 });
  assert.deepEqual(parseHostFolder('node_7', 'node_7'), { host: 'node_7' }, 'this machine named node_7');
  assert.ok(isHostlessSession(['regular', 'rollout', 'exception'], []));
  assert.ok(isHostlessSession([], ['.logger_lock']));
  assert.ok(!isHostlessSession(['gpu-0', 'gpu-0_12'], []));
});

test('/proc/<pid>/stat parsing survives spaces and parentheses in the command', () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itreal starttime
  const line = '4242 (python (x) y) S 1 4240 4240 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0';
  const f = parseProcStat(line, 1_000_000);
  assert.equal(f.pgid, 4240);
  assert.equal(f.startMs, 1_000_000 + 123450);
  assert.equal(f.command, 'python (x) y');
  assert.equal(parseProcStat(line.replace(' S ', ' Z '), 0).zombie, true);
});

test('liveness: alive when the process started before the record; a reused PID (started after) and a gone one are not', () => {
  const t0 = 1_700_000_000_000;
  const probe =
    (startMs: number | undefined, zombie = false) =>
    (pid: number) => ({ pid, ...(startMs === undefined ? {} : { startMs }), zombie });
  assert.equal(checkRecordedProcess(42, t0, probe(t0 - 5000)).state, 'alive');
  assert.equal(checkRecordedProcess(42, t0, probe(t0 + 1000)).state, 'alive', 'within the start-time resolution');
  const reused = checkRecordedProcess(42, t0, probe(t0 + 3_600_000));
  assert.equal(reused.state, 'reused');
  assert.match(reused.detail, /now belongs to a process started/);
  assert.equal(checkRecordedProcess(42, t0, () => undefined).state, 'gone');
  assert.equal(checkRecordedProcess(42, t0, probe(t0 - 1, true)).state, 'gone', 'a zombie is gone');
  const unverified = checkRecordedProcess(42, t0, probe(undefined));
  assert.deepEqual([unverified.state, unverified.verified], ['alive', false]);
  assert.equal(checkRecordedProcess(0, t0, probe(t0)).state, 'gone');
  // Groups: any non-zombie member started before the record.
  assert.equal(
    checkRecordedGroup(50, t0, () => [
      { pid: 50, startMs: t0 - 10 },
      { pid: 51, startMs: t0 + 9e6 },
    ]).state,
    'alive',
  );
  assert.equal(checkRecordedGroup(50, t0, () => [{ pid: 50, startMs: t0 + 9e6 }]).state, 'reused');
  assert.equal(checkRecordedGroup(50, t0, () => [{ pid: 50, startMs: t0 - 10, zombie: true }]).state, 'gone');
  assert.equal(checkRecordedGroup(1, t0, () => []).state, 'gone');
});

test(
  'liveness on this machine: a real live process reads alive, and reused for a record written before it started',
  { skip: process.platform !== 'linux' && process.platform !== 'darwin' ? 'start times are read on Linux and macOS only' : false },
  async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    try {
      const f = probeProcess(child.pid!);
      assert.ok(f?.startMs !== undefined, 'start time read');
      assert.equal(checkRecordedProcess(child.pid!, Date.now()).state, 'alive');
      assert.equal(
        checkRecordedProcess(child.pid!, Date.now() - 3_600_000).state,
        'reused',
        'a lock written an hour ago cannot belong to a process started now',
      );
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    assert.equal(checkRecordedProcess(child.pid!, Date.now()).state, 'gone');
  },
);

test('companions: tagged and untagged names, another host, unreadable ids, reused group ids', () => {
  assert.deepEqual(parseCompanionId('external_vllm_server.0a1b2c3d.gpu-0.local'), {
    tag: 'external_vllm_server',
    hash: '0a1b2c3d',
    host: 'gpu-0.local',
  });
  assert.deepEqual(parseCompanionId('0a1b2c3d.gpu-0'), { tag: '', hash: '0a1b2c3d', host: 'gpu-0' });
  assert.equal(parseCompanionId('nothing'), undefined);
  const dir = mkdtempSync(join(tmpdir(), 'aj-comp-'));
  try {
    const here = hostname();
    writeFileSync(join(dir, `vllm.0a1b2c3d.${here}.pgid`), '4242\n');
    writeFileSync(join(dir, `vllm.0a1b2c3d.${here}.log`), '');
    writeFileSync(join(dir, `0a1b2c3e.${here}.pgid`), '5000');
    writeFileSync(join(dir, 'logview.0a1b2c3f.elsewhere.pgid'), '4242');
    writeFileSync(join(dir, `bad.0a1b2c40.${here}.pgid`), 'x');
    const written = Date.now() - 3_600_000;
    for (const f of [`vllm.0a1b2c3d.${here}.pgid`, `0a1b2c3e.${here}.pgid`]) utimesSync(join(dir, f), new Date(written), new Date(written));
    const list = readCompanionsSync(dir, {
      groupProbe: (g) => (g === 4242 ? [{ pid: 4242, startMs: written - 1000 }] : g === 5000 ? [{ pid: 5000, startMs: Date.now() }] : []),
    });
    const by = (tag: string) => list.find((c) => c.tag === tag)!;
    assert.equal(by('vllm').alive, true);
    assert.ok(by('vllm').log);
    assert.equal(by('').alive, false, 'group id now used by a process started after the record');
    assert.equal(by('').liveness?.state, 'reused');
    assert.equal(by('logview').alive, undefined, 'another host: unknown');
    assert.equal(by('bad').pgid, undefined);
    assert.equal(list[0]!.tag, 'vllm', 'live ones first');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('launch records: written atomically beside the run, read back, matched to the session, output capped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-lr-'));
  try {
    const exp = join(dir, 'saved_experiments', 'm_20260129_1405');
    const start = at.getTime();
    const first = writeLaunchRecord(exp, { command: ['ajet', '--conf', 'm.yaml'], cwd: dir, pid: 777, startMs: start, via: 'debug' });
    assert.ok(first.json.includes('/.agentjet-vscode/launches/'));
    writeLaunchRecord(
      exp,
      { id: first.record.id, command: ['ajet'], cwd: dir, pid: 777, startMs: start, endMs: start + 90_000, exitCode: 1, signal: null },
      'x'.repeat(10) + '\nTraceback (most recent call last):\n  File "a.py", line 1\n    boom()\nValueError: bad value\n',
    );
    writeFileSync(join(exp, '.agentjet-vscode', 'launches', 'junk.json'), '{"format": 2}');
    const recs = await readLaunchRecords(nodeFs(), exp);
    assert.equal(recs.length, 1);
    assert.equal(recs[0]!.record.exitCode, 1);
    assert.ok(recs[0]!.output);
    assert.equal(tracebackInOutput(readFileSync(recs[0]!.output!, 'utf8')), 'ValueError: bad value');
    assert.equal(launchForSession(recs, new Date(2026, 0, 29, 14, 5).getTime())?.record.id, first.record.id);
    assert.equal(launchForSession(recs, new Date(2026, 0, 29, 18, 0).getTime()), undefined, 'a later session is not this launch');
    const big = writeLaunchRecord(exp, { command: [], cwd: dir, startMs: start + 1 }, 'y'.repeat(1024 * 1024 + 10));
    assert.equal(big.record.outputDropped, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const base = (over: Partial<HostFacts> = {}): HostFacts => ({
  local: true,
  host: 'h',
  exceptions: { errors: 0, notes: 0 },
  modules: ['regular', 'rollout'],
  now: 10_000_000,
  remoteFreshMs: 300_000,
  ...over,
});
const alive = { state: 'alive' as const, verified: true, detail: 'process 9 is alive' };

test('status rules: each piece of evidence and its precedence', () => {
  const d = (o: Partial<HostFacts>) => {
    const r = decideHostStatus(base(o));
    return [r.status, r.evidence[0]!.kind];
  };
  assert.deepEqual(d({}), ['ended', 'files'], 'no lock, no error, no proof of completion: ended, not finished');
  assert.deepEqual(d({ lock: { path: 'l', pid: 9, mtimeMs: 1, liveness: alive } }), ['running', 'lock']);
  assert.deepEqual(d({ lock: { path: 'l', pid: 9, mtimeMs: 1, liveness: { state: 'gone', verified: true, detail: '' } } }), [
    'interrupted',
    'lock',
  ]);
  assert.deepEqual(
    d({ lock: { path: 'l', pid: 9, mtimeMs: 1, liveness: { state: 'reused', verified: true, detail: 'reused' } } }),
    ['interrupted', 'lock'],
    'a reused PID does not read as running',
  );
  assert.deepEqual(d({ lock: { path: 'l', mtimeMs: 1 } }), ['interrupted', 'lock']);
  assert.deepEqual(d({ local: false, lock: { path: 'l', pid: 9, mtimeMs: 1 }, lastWriteMs: 9_990_000 }), ['running', 'remote-writes']);
  assert.deepEqual(d({ local: false, lock: { path: 'l', pid: 9, mtimeMs: 1 }, lastWriteMs: 1 }), ['interrupted', 'remote-writes']);
  assert.deepEqual(d({ lockTakenBy: { pid: 5, folder: 'h_5' }, lastWriteMs: 9_999_000 }), ['running', 'lock']);
  assert.deepEqual(d({ lockTakenBy: { pid: 5, folder: 'h_5' }, lastWriteMs: 1 }), ['ended', 'lock']);
  assert.deepEqual(d({ folderPid: { pid: 5, liveness: alive } }), ['running', 'process']);
  assert.deepEqual(d({ folderPid: { pid: 5, liveness: { state: 'reused', verified: true, detail: '' } } }), ['ended', 'files']);
  assert.deepEqual(d({ regularTraceback: { text: 'traceback: ValueError', file: 'r' } }), ['failed', 'traceback']);
  assert.deepEqual(d({ exceptions: { errors: 2, notes: 0 } }), ['failed', 'exceptions']);
  assert.deepEqual(d({ exceptions: { errors: 0, notes: 3 } }), ['ended', 'files'], 'harmless notes never fail a run');
  assert.deepEqual(d({ completion: { text: 'reached step 10 of 10' } }), ['finished', 'completion']);
  assert.deepEqual(d({ modules: [] }), ['empty', 'none']);
  const lr = (o: object) => ({ record: { format: 1 as const, id: 'x', command: [], cwd: '/', startMs: 0, ...o }, json: 'j' });
  assert.deepEqual(
    d({ launch: lr({ endMs: 5, exitCode: 0 }), regularTraceback: { text: 't', file: 'r' } }),
    ['finished', 'launch-record'],
    'the exit code is exact',
  );
  assert.deepEqual(d({ launch: lr({ endMs: 5, exitCode: 1 }) }), ['failed', 'launch-record']);
  assert.deepEqual(d({ launch: lr({ endMs: 5, exitCode: null, signal: 'SIGKILL' }) }), ['failed', 'launch-record']);
  assert.deepEqual(d({ launch: { ...lr({}), liveness: alive } }), ['running', 'launch-record']);
  assert.deepEqual(
    d({ launch: { ...lr({}), liveness: { state: 'gone', verified: true, detail: '' } } }),
    ['ended', 'files'],
    'an unrecorded exit falls back to the files',
  );
  const notes = decideHostStatus(base({ exceptions: { errors: 0, notes: 1 } })).evidence;
  assert.ok(notes.some((e) => e.kind === 'notes' && /1 harmless note /.test(e.text)));
  assert.ok(isHarmlessException('Prompt token ids mismatch, Please report a github issue'));
  assert.ok(!isHarmlessException('Error calling alien llm'));
  assert.ok(!isHarmlessException(undefined));
});

test('LaunchRecorder: learns the experiment from the launcher line, records while running, then the exit and the output', async () => {
  const { LaunchRecorder } = await import('../../core/agentjet');
  const dir = mkdtempSync(join(tmpdir(), 'aj-rec-'));
  try {
    const rec = new LaunchRecorder({
      cwd: dir,
      version: 'agentjet',
      command: ['ajet', '--conf', 'm.yaml'],
      pid: 4242,
      via: 'task',
      startMs: at.getTime(),
    });
    rec.append('starting\n2026-01-29 14:05:33.1 | INFO | x:y:1 - Experiment Na');
    assert.equal(rec.folder, undefined);
    rec.append('me: m_20260129_1405\n');
    assert.equal(rec.folder, join(dir, 'saved_experiments', 'm_20260129_1405'));
    let recs = await readLaunchRecords(nodeFs(), rec.folder!);
    assert.equal(recs.length, 1);
    assert.equal(recs[0]!.record.endMs, undefined, 'a running launch has no end yet');
    rec.append('Traceback (most recent call last):\n  File "x", line 1\nKeyError: \'ajet\'\n');
    rec.finish(1, null, at.getTime() + 1000);
    recs = await readLaunchRecords(nodeFs(), rec.folder!);
    assert.equal(recs.length, 1, 'the same record, rewritten');
    assert.deepEqual([recs[0]!.record.exitCode, recs[0]!.record.experiment, recs[0]!.record.via], [1, 'm_20260129_1405', 'task']);
    assert.equal(tracebackInOutput(readFileSync(recs[0]!.output!, 'utf8')), "KeyError: 'ajet'");
    const lost = new LaunchRecorder({ cwd: dir, version: 'agentjet', command: [] });
    assert.equal(lost.finish(2, null), undefined, 'no experiment known: nothing written');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the launcher-side companion folder ignores --exp-dir (companions stay under the working directory)', async () => {
  const { companionFolder: launchFolder } = await import('../../core/launch/companions');
  assert.equal(launchFolder('/w', 'custom_runs'), '/w/saved_experiments/companion_logs/companion');
  assert.equal(launchFolder('/w', '/abs/elsewhere'), '/w/saved_experiments/companion_logs/companion');
  assert.equal(launchFolder('/w', 'launcher_record'), '/w/launcher_record/companion_logs/companion', 'the launcher_record generation');
});
