import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { fixtures } from '../gen';
import { tempDir, writeRun, rolloutRecord, appendRollout } from '../util/runtree';
import { nodeFs, mapLimit } from '../../core/fs/seam';
import { RunsModel } from '../../core/runs/model';
import { listCompanions, parseCompanionId, stopGroup, groupAlive } from '../../core/runs/companions';
import { candidateRoots } from '../../core/runs/discover';

const opts = { localHost: 'gpu-node-0' };

async function loadAll(model: RunsModel) {
  const entries = await model.experiments();
  return mapLimit(entries, 8, (e) => model.info(e));
}

test('model: a change in one run re-reads only that run, whatever the number of runs', async () => {
  const tmp = tempDir();
  try {
    for (let i = 0; i < 30; i++)
      writeRun(tmp.path, {
        name: `exp${String(i).padStart(2, '0')}`,
        session: `2026_01_05_10_${String(i).padStart(2, '0')}`,
        hosts: [{ rollout: [[0, 1]] }],
      });
    const fs = nodeFs();
    const model = new RunsModel(fs, opts);
    model.setRoots([{ path: tmp.path, source: 'configured' }]);
    await loadAll(model);
    const full = fs.ops;
    const again = fs.ops;
    await loadAll(model);
    assert.equal(fs.ops, again, 'a second load is served from the cache');
    const host = join(tmp.path, 'exp07', '2026_01_05_10_07', 'gpu-node-0');
    appendRollout(host, rolloutRecord(1, 0.25));
    assert.deepEqual(model.invalidate(join(host, 'rollout', 'rollout.json.log')), {
      level: 'experiment',
      root: tmp.path,
      experiment: join(tmp.path, 'exp07'),
      entry: false,
    });
    const before = fs.ops;
    const infos = await loadAll(model);
    const refresh = fs.ops - before;
    assert.equal(infos.find((i) => i.entry.name === 'exp07')!.latestStep, 1);
    assert.ok(refresh * 10 < full, `refresh ${refresh} ops vs first load ${full}`);
    // A new session folder makes the experiment entry itself stale.
    mkdirSync(join(tmp.path, 'exp03', '2026_01_06_00_00', 'gpu-node-0'), { recursive: true });
    assert.equal((model.invalidate(join(tmp.path, 'exp03', '2026_01_06_00_00')) as { entry?: boolean }).entry, true);
    const list = await model.experiments();
    assert.equal(list[0]!.name, 'exp03', 'newest session first');
    // Deleting a run drops it.
    rmSync(join(tmp.path, 'exp05'), { recursive: true });
    assert.equal(model.invalidate(join(tmp.path, 'exp05')).level, 'experiment');
    assert.ok(!(await model.experiments()).some((e) => e.name === 'exp05'));
  } finally {
    tmp.dispose();
  }
});

test('model: a watcher batch of many changes is handled a slice per turn of the loop, summed as one change at a time would say', async () => {
  const tmp = tempDir();
  try {
    for (let i = 0; i < 4; i++) writeRun(tmp.path, { name: `exp${i}`, session: `2026_01_05_10_0${i}`, hosts: [{ rollout: [[0, 1]] }] });
    const model = new RunsModel(nodeFs(), opts);
    model.setRoots([{ path: tmp.path, source: 'configured' }]);
    await loadAll(model);
    // 2,500 new files in exp1's session (details only), a new session in exp2 (its listing), a companion.
    const files = Array.from({ length: 2500 }, (_, k) => join(tmp.path, 'exp1', '2026_01_05_10_01', 'gpu-node-0', `f${k}.txt`));
    const paths = [...files, join(tmp.path, 'exp2', '2026_01_06_00_00'), join(tmp.path, 'companion_logs', 'companion', 'x.pgid')];
    const seen: string[] = [];
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const inv = await model.invalidateAll(paths, (p) => seen.push(p), 1000);
    counting = false;
    assert.deepEqual(seen, paths, 'every path, in order');
    assert.ok(turns >= 2, `the loop turned between slices (${turns} turns)`);
    assert.deepEqual(inv, {
      all: true,
      experiments: new Set([join(tmp.path, 'exp1'), join(tmp.path, 'exp2')]),
      companions: true,
    });
    // Only the details of exp1: no listing change.
    const only = await model.invalidateAll(files);
    assert.deepEqual(only, { all: false, experiments: new Set([join(tmp.path, 'exp1')]), companions: false });
    assert.deepEqual(await model.invalidateAll([]), { all: false, experiments: new Set(), companions: false });
  } finally {
    tmp.dispose();
  }
});

test('model: a root that appears later is picked up after its creation is reported', async () => {
  const tmp = tempDir();
  try {
    const model = new RunsModel(nodeFs(), opts);
    model.setRoots(candidateRoots([tmp.path]));
    assert.deepEqual(await model.experiments(), []);
    writeRun(join(tmp.path, 'saved_experiments'), { name: 'first' });
    assert.deepEqual(model.invalidate(join(tmp.path, 'saved_experiments', 'first', 'yaml_backup.yaml')), { level: 'roots' });
    assert.deepEqual(
      (await model.experiments()).map((e) => e.name),
      ['first'],
    );
    assert.deepEqual(model.invalidate(join(tmp.path, 'unrelated.py')), { level: 'none' });
    assert.deepEqual(model.invalidate(join(tmp.path, 'saved_experiments', 'companion_logs', 'companion', 'x.pgid')), {
      level: 'companions',
      root: join(tmp.path, 'saved_experiments'),
    });
  } finally {
    tmp.dispose();
  }
});

test('companions: a detached process group reads alive, a dead one dead; stop ends the group', async () => {
  const tmp = tempDir();
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  try {
    const dir = join(tmp.path, 'companion_logs', 'companion');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'external_vllm_server.ab12.gpu-node-0.pgid'), `${child.pid}\n`);
    writeFileSync(join(dir, 'external_vllm_server.ab12.gpu-node-0.log'), 'INFO: Uvicorn running\n');
    writeFileSync(join(dir, 'logview.cd34.gpu-node-0.pgid'), '999999\n');
    writeFileSync(join(dir, 'appworld.ef56.other.host.pgid'), '1234\n');
    writeFileSync(join(dir, 'broken.00.gpu-node-0.pgid'), 'not a number');
    const list = await listCompanions(nodeFs(), tmp.path, opts);
    const by = (tag: string) => list.find((c) => c.tag === tag)!;
    assert.equal(by('external_vllm_server').alive, true);
    assert.equal(by('external_vllm_server').log, join(dir, 'external_vllm_server.ab12.gpu-node-0.log'));
    assert.equal(by('logview').alive, false);
    assert.equal(by('appworld').alive, undefined, 'another host: unknown');
    assert.equal(by('appworld').host, 'other.host');
    assert.equal(by('broken').pgid, undefined);
    assert.equal(list[0]!.tag, 'external_vllm_server', 'live ones first');
    assert.equal(parseCompanionId('x'), undefined);
    assert.deepEqual(
      parseCompanionId('0a1b2c3d.gpu-0.local'),
      { tag: '', hash: '0a1b2c3d', host: 'gpu-0.local' },
      'no tag: smart_daemon omits it',
    );
    assert.equal(await stopGroup(child.pid!), 'stopped');
    assert.equal(groupAlive(child.pid!), false);
    assert.equal(await stopGroup(child.pid!), 'gone');
    assert.deepEqual(await listCompanions(nodeFs(), join(tmp.path, 'missing')), []);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    tmp.dispose();
  }
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), ...args], { encoding: 'utf8' });
}

test('CLI: agentjet runs on the fixture workspace, as a table and as JSON', () => {
  const ws = fixtures().workspace;
  const text = cli('runs', ws);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^EXPERIMENT\s+STATUS/m);
  assert.match(text.stdout, /appworld_20260105_1400\s+ended/);
  const json = cli('runs', join(ws, 'saved_experiments'), '--format', 'json');
  assert.equal(json.status, 0, json.stderr);
  const out = JSON.parse(json.stdout) as {
    roots: string[];
    runs: {
      experiment: string;
      status: string;
      latestStep: number;
      hosts: string[];
      notes: number;
      evidence: { kind: string; text: string }[];
    }[];
  };
  assert.deepEqual(out.roots, [join(ws, 'saved_experiments')]);
  assert.deepEqual(
    out.runs.map((r) => [r.experiment, r.status, r.latestStep]),
    [
      ['countdown_20260105_1900', 'ended', 3],
      ['appworld_20260105_1400', 'ended', 3],
      ['math_agent_20260105_0900', 'ended', 3],
    ],
  );
  const appworld = out.runs.find((r) => r.experiment === 'appworld_20260105_1400')!;
  assert.equal(appworld.notes, 1);
  assert.deepEqual(
    appworld.evidence.map((e) => e.kind),
    ['files', 'notes'],
    'the deciding evidence first, then the harmless note',
  );
  const ended = cli('runs', ws, '--status', 'ended', '--format=json');
  assert.deepEqual((JSON.parse(ended.stdout) as { runs: unknown[] }).runs.length, 3);
});

test('CLI: no roots exits 1 with a message; bad options exit 2; listed in --help', () => {
  const tmp = tempDir();
  try {
    const empty = cli('runs', tmp.path);
    assert.equal(empty.status, 0);
    assert.match(empty.stdout, /^no runs in /);
    const none = cli('runs', join(tmp.path, 'missing'));
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no saved_experiments or launcher_record folder/);
    assert.equal(cli('runs', '--format', 'xml').status, 2);
    assert.equal(cli('runs', '--bogus').status, 2);
    assert.match(cli('--help').stdout, /runs\s+list experiments/);
  } finally {
    tmp.dispose();
  }
});

test('source config for a snapshot: named after experiment_name or the file, ties left to the user', async () => {
  const { rankSources } = await import('../../core/runs/source');
  const snap =
    'ajet:\n  project_name: math_demo\n  experiment_name: math_demo_20260103_1010\n  rollout:\n    user_workflow: math_demo.workflow->W\n';
  const cands = [
    {
      path: '/ws/math_agent.yaml',
      text: 'ajet:\n  project_name: math_demo\n  experiment_name: math_demo\n  rollout:\n    user_workflow: math_demo.workflow->W\n',
    },
    { path: '/ws/other.yaml', text: 'ajet:\n  project_name: other\n' },
    { path: '/ws/broken.yaml', text: 'ajet: [' },
    { path: '/ws/same_project.yaml', text: 'ajet:\n  project_name: math_demo\n' },
  ];
  const r = rankSources('math_demo_20260103_1010', snap, cands);
  assert.equal(r.best, '/ws/math_agent.yaml');
  assert.deepEqual(
    r.ranked.map((x) => x.path),
    ['/ws/math_agent.yaml', '/ws/same_project.yaml'],
  );
  // Named after the file (no experiment_name in the config).
  const byFile = rankSources('countdown_20260105_1900', 'ajet:\n  project_name: p\n', [
    { path: '/ws/countdown.yaml', text: 'ajet:\n  project_name: p\n' },
  ]);
  assert.equal(byFile.best, '/ws/countdown.yaml');
  // Two equally good candidates: no automatic choice.
  const tie = rankSources('x_1', 'ajet:\n  project_name: p\n', [
    { path: '/a/x.yaml', text: 'ajet: {project_name: p}' },
    { path: '/b/x.yaml', text: 'ajet: {project_name: p}' },
  ]);
  assert.equal(tie.best, undefined);
  assert.equal(tie.ranked.length, 2);
});
