import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures } from '../gen';
import { writeWorkspace } from '../gen/workspace';
import { tempDir, writeRun, rolloutRecord } from '../util/runtree';
import {
  candidateRoots,
  existingRoots,
  folderSize,
  inspectExperiment,
  listExperiments,
  listHostArtefacts,
  listTrajectoryFiles,
  listTrajectorySteps,
  parseHostFolder,
  parseSessionTime,
  readExperimentEntry,
  snapshotFacts,
  tracebackAtEndOf,
  type ExperimentInfo,
} from '../../core/runs/discover';
import { nodeFs } from '../../core/fs/seam';
import { RunsModel } from '../../core/runs/model';
import { splitRecords, decodeRecord } from '../../core/runs/records';
import { StepAggregator } from '../../core/runs/metrics';

const LOCAL = 'this-host';
const opts = { localHost: LOCAL };

async function inspectAll(root: string, o = opts): Promise<Map<string, ExperimentInfo>> {
  const fs = nodeFs();
  const { experiments, error } = await listExperiments(fs, root, o);
  assert.equal(error, undefined);
  const out = new Map<string, ExperimentInfo>();
  for (const e of experiments) out.set(e.name, await inspectExperiment(fs, e, o));
  return out;
}

function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((r) => child.once('exit', () => r()));
}

test('fixture workspace: statuses, step and reward from the rollout tail agree with a full read', async () => {
  const root = join(fixtures().workspace, 'saved_experiments');
  const infos = await inspectAll(root);
  assert.deepEqual([...infos.keys()], ['countdown_20260105_1900', 'appworld_20260105_1400', 'math_agent_20260105_0900'], 'newest first');
  // Its only exception record is AgentJet's "Prompt text mismatch" note, which the tracker fixes and
  // carries on from: not a failure. No lock, no traceback, no proof of completion: "ended".
  assert.equal(infos.get('appworld_20260105_1400')!.status, 'ended');
  assert.equal(infos.get('appworld_20260105_1400')!.noteCount, 1);
  assert.ok(infos.get('appworld_20260105_1400')!.evidence.some((e) => e.kind === 'notes'));
  assert.equal(infos.get('math_agent_20260105_0900')!.status, 'ended');
  assert.equal(infos.get('countdown_20260105_1900')!.status, 'ended');
  assert.equal(infos.get('countdown_20260105_1900')!.evidence[0]!.kind, 'files');
  for (const info of infos.values()) {
    assert.equal(info.project, `example_${info.entry.name.split('_20')[0]}`);
    assert.deepEqual(info.hosts, ['gpu-node-0']);
    // Cross-check the tail reading against decoding the whole rollout log.
    const file = join(info.sessions[0]!.hosts[0]!.path, 'rollout', 'rollout.json.log');
    const agg = new StepAggregator();
    for (const r of splitRecords(readFileSync(file, 'utf8').split('\n'))) agg.add(decodeRecord(r));
    const last = agg.points().at(-1)!;
    assert.equal(info.latestStep, last.step);
    assert.ok(Math.abs((info.latestReward ?? NaN) - last.meanReward!) < 1e-9, `${info.latestReward} vs ${last.meanReward}`);
  }
});

test('generated workspace (running, multi-host): running, failed, checkpoints from the snapshot project', async () => {
  const tmp = tempDir();
  try {
    // The newest run's lock names this test process: it reads as running while the test lives.
    writeWorkspace(tmp.path, { experiments: 4, steps: 4, tokens: 40, runningPid: process.pid, multiHost: true });
    const infos = await inspectAll(join(tmp.path, 'saved_experiments'), { localHost: 'gpu-node-0' });
    const byKind = (k: string) => [...infos.values()].find((i) => i.entry.name.startsWith(k))!;
    assert.equal(byKind('werewolves').status, 'running');
    assert.deepEqual(byKind('werewolves').hosts, ['gpu-node-0', 'gpu-node-1']);
    assert.equal(byKind('appworld').status, 'ended', 'a prompt-mismatch note is not a failure');
    assert.equal(byKind('math_agent').status, 'ended', 'nothing shows the last step was reached');
    assert.deepEqual(
      byKind('math_agent').checkpoints.map((c) => c.step),
      [2, 4],
    );
    assert.equal(
      byKind('math_agent').checkpointDir,
      join(tmp.path, 'saved_checkpoints', 'example_math_agent', byKind('math_agent').entry.name),
    );
    assert.equal(byKind('math_agent').latestStep, 3);
  } finally {
    tmp.dispose();
  }
});

test('a lock naming a live process on this host is running; once the process is gone it is interrupted', async () => {
  const tmp = tempDir();
  const child = sleeper();
  try {
    writeRun(tmp.path, {
      name: 'live',
      hosts: [
        {
          host: LOCAL,
          lockPid: child.pid!,
          rollout: [
            [0, 1],
            [1, 0.5],
          ],
        },
      ],
    });
    let info = (await inspectAll(tmp.path)).get('live')!;
    assert.equal(info.status, 'running');
    assert.equal(info.latestStep, 1);
    assert.equal(info.latestReward, 0.5);
    child.kill('SIGKILL');
    await exited(child);
    info = (await inspectAll(tmp.path)).get('live')!;
    assert.equal(info.status, 'interrupted');
    assert.match(info.reason ?? '', /gone/);
  } finally {
    child.kill('SIGKILL');
    tmp.dispose();
  }
});

test('failed: a traceback at the end of the regular log; a traceback followed by normal lines is not a failure', async () => {
  const tmp = tempDir();
  try {
    const tb =
      '2026-01-05 10:00:00.000 | ERROR    | ajet.launcher:main:10 - crashed\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\n    boom()\nRuntimeError: CUDA out of memory\n';
    writeRun(tmp.path, { name: 'crashed', hosts: [{ host: LOCAL, regular: tb }] });
    writeRun(tmp.path, {
      name: 'recovered',
      session: '2026_01_05_09_00',
      hosts: [{ host: LOCAL, regular: tb + '2026-01-05 10:01:00.000 | INFO     | ajet:fit:1 - step 3 done\n' }],
    });
    const infos = await inspectAll(tmp.path);
    assert.equal(infos.get('crashed')!.status, 'failed');
    assert.equal(infos.get('crashed')!.reason, 'traceback: RuntimeError: CUDA out of memory');
    assert.equal(infos.get('recovered')!.status, 'ended');
    assert.equal(tracebackAtEndOf('all good\n'), undefined);
  } finally {
    tmp.dispose();
  }
});

test('multi-host sessions: another host counts as running only while it writes; <host>_<pid> folders', async () => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, {
      name: 'multi',
      hosts: [{ host: 'gpu-node-0', lockPid: 99999999 }, { host: 'gpu-node-1', lockPid: 4242 }, { host: 'gpu-node-0_4343' }],
    });
    let info = (await inspectAll(tmp.path)).get('multi')!;
    assert.deepEqual(info.hosts, ['gpu-node-0', 'gpu-node-1']);
    assert.equal(info.sessions[0]!.hosts.length, 3);
    assert.equal(info.sessions[0]!.hosts.find((h) => h.name === 'gpu-node-0_4343')!.pid, 4343);
    assert.equal(info.status, 'running', 'fresh lock on other hosts');
    // Age everything by an hour: the remote hosts stop counting as running.
    const old = new Date(Date.now() - 3600_000);
    for (const h of ['gpu-node-0', 'gpu-node-1']) {
      for (const f of ['.logger_lock', 'rollout/rollout.json.log', 'regular/regular.log'])
        utimesSync(join(exp, '2026_01_05_10_00', h, f), old, old);
    }
    info = (await inspectAll(tmp.path)).get('multi')!;
    assert.equal(info.status, 'interrupted');
    assert.match(info.reason ?? '', /nothing written for 60 min/);
    assert.deepEqual(parseHostFolder('gpu-node-0_4343', LOCAL), { host: 'gpu-node-0', pid: 4343 });
    assert.deepEqual(parseHostFolder('my_host', 'my_host'), { host: 'my_host' });
  } finally {
    tmp.dispose();
  }
});

test("ASTuner's launcher_record with an astuner: snapshot and a checkpoint base dir", async () => {
  const tmp = tempDir();
  try {
    const roots = await existingRoots(nodeFs(), candidateRoots([tmp.path]));
    assert.deepEqual(roots, [], 'no roots yet');
    const lr = join(tmp.path, 'launcher_record');
    writeRun(lr, {
      name: 'old_exp',
      snapshot:
        'astuner:\n  project_name: legacy_proj\n  trainer_common:\n    checkpoint_base_dir: ./ckpts\ntrainer:\n  total_training_steps: 10\n',
      hosts: [{ host: LOCAL, rollout: [[5, 1]] }],
    });
    mkdirSync(join(tmp.path, 'ckpts', 'legacy_proj', 'old_exp', 'global_step_5'), { recursive: true });
    mkdirSync(join(tmp.path, 'ckpts', 'legacy_proj', 'old_exp', 'global_step_10'), { recursive: true });
    const found = await existingRoots(nodeFs(), candidateRoots([tmp.path], [lr]));
    assert.deepEqual(
      found.map((r) => [r.path, r.source]),
      [[lr, 'launcher_record']],
      'configured duplicate removed',
    );
    const info = (await inspectAll(lr)).get('old_exp')!;
    assert.equal(info.project, 'legacy_proj');
    assert.deepEqual(
      info.checkpoints.map((c) => c.step),
      [5, 10],
    );
    assert.equal(info.status, 'finished', 'the checkpoint of the last step the settings call for');
    assert.equal(info.evidence[0]!.kind, 'completion');
    assert.match(info.evidence[0]!.text, /global_step_10 .*\(10\)/);
    assert.deepEqual(snapshotFacts('astune:\n  project_name: p\n').dialect, 'astune');
    assert.match(snapshotFacts('ajet: [unclosed').error ?? '', /unreadable YAML/);
  } finally {
    tmp.dispose();
  }
});

test('permission errors: chmod 000 where it denies, and an injected EACCES everywhere else, never throw', async (t) => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, { name: 'locked', hosts: [{ host: LOCAL, rollout: [[1, 1]] }] });
    writeRun(tmp.path, { name: 'fine', session: '2026_01_05_09_00' });
    // Injected through the fs seam: readdir of the session folder fails.
    const denied = nodeFs({
      before: (op, p) => {
        if (op === 'readdir' && p.endsWith('2026_01_05_10_00')) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      },
    });
    const { experiments } = await listExperiments(denied, tmp.path, opts);
    const info = await inspectExperiment(
      denied,
      experiments.find((e) => e.name === 'locked')!,
      opts,
    );
    assert.equal(info.sessions[0]!.error, 'permission denied');
    const rootDenied = nodeFs({
      before: (op, p) => {
        if (op === 'readdir' && p === tmp.path) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      },
    });
    assert.deepEqual(await listExperiments(rootDenied, tmp.path, opts), { experiments: [], error: 'permission denied' });
    // The real thing: only meaningful when chmod actually denies (not as root).
    chmodSync(exp, 0o000);
    let realDenied = false;
    try {
      readdirSync(exp);
    } catch {
      realDenied = true;
    }
    if (!realDenied) {
      chmodSync(exp, 0o755);
      t.diagnostic('running as root: chmod 000 does not deny access here, only the injected errors were exercised');
      return;
    }
    const entry = await readExperimentEntry(nodeFs(), tmp.path, 'locked');
    assert.equal(entry?.error, 'permission denied');
    chmodSync(exp, 0o755);
  } finally {
    tmp.dispose();
  }
});

test('symlink loops and dangling symlinks are skipped; folderSize does not follow links', async () => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, { name: 'real', hosts: [{ host: LOCAL, rollout: [[0, 1]] }] });
    symlinkSync(join(tmp.path, 'self'), join(tmp.path, 'self')); // ELOOP
    symlinkSync(join(tmp.path, 'b'), join(tmp.path, 'a'));
    symlinkSync(join(tmp.path, 'a'), join(tmp.path, 'b'));
    symlinkSync(join(tmp.path, 'nowhere'), join(tmp.path, 'dangling'));
    symlinkSync(exp, join(tmp.path, 'alias')); // a link to a real experiment is followed
    symlinkSync(exp, join(exp, '2026_01_05_10_00', LOCAL, 'loop')); // a cycle inside a run
    const infos = await inspectAll(tmp.path);
    assert.deepEqual([...infos.keys()].sort(), ['alias', 'real']);
    assert.equal(infos.get('real')!.status, 'ended');
    const size = await folderSize(nodeFs(), tmp.path);
    assert.equal(size.complete, true);
    assert.ok(size.bytes > 0);
  } finally {
    tmp.dispose();
  }
});

test('files appearing and vanishing mid-scan', async () => {
  const tmp = tempDir();
  try {
    writeRun(tmp.path, { name: 'stays' });
    writeRun(tmp.path, { name: 'goes', session: '2026_01_05_09_00' });
    let fired = false;
    const fs = nodeFs({
      before: (op, p) => {
        if (op === 'readdir' && p === join(tmp.path, 'goes') && !fired) {
          fired = true;
          rmSync(join(tmp.path, 'goes'), { recursive: true });
          writeRun(tmp.path, { name: 'new', session: '2026_01_05_11_00' });
        }
      },
    });
    const model = new RunsModel(fs, opts);
    model.setRoots([{ path: tmp.path, source: 'configured' }]);
    const first = await model.experiments();
    assert.deepEqual(
      first.map((e) => e.name),
      ['stays'],
    );
    assert.deepEqual(model.invalidate(join(tmp.path, 'new')), { level: 'root', root: tmp.path });
    const second = await model.experiments();
    assert.deepEqual(
      second.map((e) => e.name),
      ['new', 'stays'],
    );
    // A host folder appearing between the session readdir and the host inspection.
    const exp = join(tmp.path, 'stays');
    const fs2 = nodeFs({
      before: (op, p) => {
        if (op === 'readdir' && p.endsWith(join('2026_01_05_10_00', 'gpu-node-0'))) rmSync(p, { recursive: true, force: true });
      },
    });
    const info = await inspectExperiment(fs2, (await readExperimentEntry(fs2, tmp.path, 'stays'))!, opts);
    assert.equal(info.sessions[0]!.hosts[0]!.error, 'not found');
    assert.ok(exp);
  } finally {
    tmp.dispose();
  }
});

test('an empty root and a root with only non-run folders list nothing', async () => {
  const tmp = tempDir();
  try {
    assert.deepEqual(await listExperiments(nodeFs(), tmp.path), { experiments: [] });
    mkdirSync(join(tmp.path, 'companion_logs', 'companion'), { recursive: true });
    mkdirSync(join(tmp.path, 'random_folder'));
    writeFileSync(join(tmp.path, 'notes.txt'), 'x');
    assert.deepEqual(await listExperiments(nodeFs(), tmp.path), { experiments: [] });
    assert.deepEqual(await listExperiments(nodeFs(), join(tmp.path, 'missing')), { experiments: [], error: 'not found' });
  } finally {
    tmp.dispose();
  }
});

test('host artefacts: logs by module, regular log, trajectories by step', async () => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, {
      name: 'art',
      hosts: [
        {
          host: LOCAL,
          rollout: [[0, 1]],
          trajectories: [
            { split: 'train', step: 10, task: 'b' },
            { split: 'train', step: 2, task: 'a' },
            { split: 'eval', step: 0, task: 'c' },
          ],
        },
      ],
    });
    const host = join(exp, '2026_01_05_10_00', LOCAL);
    const a = await listHostArtefacts(nodeFs(), host);
    assert.deepEqual(
      a.logs.map((l) => l.module),
      ['rollout', 'evaluation', 'exception'],
    );
    assert.ok(a.logs[0]!.size > 0);
    assert.equal(a.regularLog, join(host, 'regular', 'regular.log'));
    assert.deepEqual(
      a.trajectorySplits.map((s) => s.split),
      ['eval', 'train'],
    );
    const steps = await listTrajectorySteps(nodeFs(), a.trajectorySplits[1]!.path);
    assert.deepEqual(
      steps.map((s) => s.step),
      [2, 10],
    );
    assert.deepEqual((await listTrajectoryFiles(nodeFs(), steps[1]!.path)).files, [join(host, 'trajectory', 'train', 'step_10', 'b.json')]);
  } finally {
    tmp.dispose();
  }
});

test('session names parse as local times; non-session folders (backup/) are ignored', () => {
  assert.equal(parseSessionTime('2026_01_05_09_30'), new Date(2026, 0, 5, 9, 30).getTime());
  assert.equal(parseSessionTime('backup'), undefined);
  assert.ok(rolloutRecord(1, 1).includes('base64:'));
});
