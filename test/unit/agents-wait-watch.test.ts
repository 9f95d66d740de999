// agentjet_wait on a huge run tree (issue 44): it watches the run folder and the levels AgentJet writes
// in (session, host, module), newest first and at most WATCH_CAP folders, never the whole tree (a
// recursive watch on Linux takes one inotify watch per folder: thousands for a run full of checkpoints).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frameRecord } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';
import { AgentLaunches, callTool } from '../../core/agents/tools';
import { WATCH_CAP, watchFolders } from '../../core/agents/waitWatch';
import { waitFor } from '../util/poll';

const event = (step: number, value: number) =>
  frameRecord(encodeScalarEvent({ step, wallTime: 100 + step, values: [['critic/rewards/mean', value]] }));

/**
 * A run with 400 checkpoints (800 folders), a logger's 200 folders and 40 sessions of host/rollout
 * folders (without `sessions`, folders of that shape that are no session: the run is not over), its
 * metric in TensorBoard.
 */
function hugeRun(sessions = true): { ws: string; exp: string; events: string; newest: string; done: () => void } {
  const ws = mkdtempSync(join(tmpdir(), 'aj-wait-watch-'));
  const exp = join(ws, 'saved_experiments', 'exp_big');
  for (let i = 1; i <= 400; i++) mkdirSync(join(exp, `global_step_${i}`, 'actor'), { recursive: true });
  // A logger's folder whose name sorts after the sessions', deep and wide.
  for (let i = 0; i < 100; i++) mkdirSync(join(exp, 'wandb', `run-${i}`, 'files'), { recursive: true });
  for (let s = 10; s < 50; s++)
    mkdirSync(join(exp, sessions ? `2026_01_${s}_12_00` : `logs_${s}`, 'gpu-node-0', 'rollout'), { recursive: true });
  writeFileSync(
    join(exp, 'yaml_backup.yaml'),
    'ajet:\n  project_name: proj\n  experiment_name: exp_big\n  trainer_common:\n    logger:\n    - tensorboard\n',
  );
  const tb = join(ws, 'tensorboard_log', 'proj', 'exp_big');
  mkdirSync(tb, { recursive: true });
  const events = join(tb, 'events.out.tfevents.1700000000.host.1.0');
  writeFileSync(
    events,
    Buffer.concat([frameRecord(encodeScalarEvent({ step: 0, wallTime: 100, fileVersion: 'brain.Event:2' })), event(1, 0.2)]),
  );
  return {
    ws,
    exp,
    events,
    newest: join(exp, '2026_01_49_12_00', 'gpu-node-0', 'rollout'),
    done: () => rmSync(ws, { recursive: true, force: true }),
  };
}

/** The inotify watches this process holds (Linux: one `inotify wd:` line per watch in fdinfo). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) continue;
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // An fd closed while listed.
    }
  }
  return n;
}

test('the folders watched: the run, then the newest session whole (host, module) before older ones; no checkpoint; at most the cap', async () => {
  const r = hugeRun();
  try {
    const folders = await watchFolders(r.exp);
    assert.ok(folders.length <= WATCH_CAP, `${folders.length} folders`);
    assert.equal(folders[0], r.exp);
    assert.ok(folders.includes(r.newest), "the newest session's rollout folder");
    assert.ok(!folders.some((f) => /global_step_/.test(f)), folders.join('\n'));
    // A small run is watched whole (every level AgentJet writes in).
    const small = await watchFolders(join(r.exp, '2026_01_10_12_00'));
    assert.deepEqual(small, [
      join(r.exp, '2026_01_10_12_00'),
      join(r.exp, '2026_01_10_12_00', 'gpu-node-0'),
      join(r.exp, '2026_01_10_12_00', 'gpu-node-0', 'rollout'),
    ]);
  } finally {
    r.done();
  }
});

test(
  'a wait on a run of 900 folders holds a bounded number of inotify watches, and still wakes on a change',
  { skip: !existsSync('/proc/self/fdinfo') },
  async () => {
    const r = hugeRun(false);
    try {
      const base = inotifyWatches();
      const env = { roots: [r.ws], mayRunPython: false, launches: new AgentLaunches({ watchdog: false }) };
      let answered = false;
      const call = callTool(
        'agentjet_wait',
        { path: 'saved_experiments/exp_big', until: { metric: { key: 'critic/rewards/mean', above: 0.5 } }, timeoutS: 120 },
        env,
      ).finally(() => (answered = true));
      await waitFor(() => answered || inotifyWatches() > base, 'the wait to watch the run');
      if (answered) assert.fail((await call).text);
      const held = inotifyWatches() - base;
      // The run's folders (at most the cap) and the TensorBoard file the metric is read from.
      assert.ok(held <= WATCH_CAP + 1, `${held} inotify watches for one wait`);
      assert.equal(answered, false);
      appendFileSync(r.events, event(2, 0.9));
      const answer = JSON.parse((await call).text) as { outcome: string; now: { metric?: number } };
      assert.equal(answer.outcome, 'reached');
      assert.equal(answer.now.metric, 0.9);
      await waitFor(() => inotifyWatches() === base, 'the watches to be let go');
    } finally {
      r.done();
    }
  },
);
