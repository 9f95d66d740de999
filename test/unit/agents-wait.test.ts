// agentjet_wait on a training metric (issue 44): the value TensorBoard holds for a key, read as
// `agentjet metrics` reads it, decides `until.metric`; a value written while the call waits ends the
// wait ("reached"), a bound passes as "timeout", and a bad condition is refused.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frameRecord } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';
import { AgentLaunches, callTool, type AgentToolEnv } from '../../core/agents/tools';
import { waitFor } from '../util/poll';

const event = (step: number, value: number) =>
  frameRecord(encodeScalarEvent({ step, wallTime: 100 + step, values: [['critic/rewards/mean', value]] }));

function layout(): { env: AgentToolEnv; events: string; done: () => void } {
  const ws = mkdtempSync(join(tmpdir(), 'aj-wait-'));
  const exp = join(ws, 'saved_experiments', 'exp_a');
  mkdirSync(exp, { recursive: true });
  writeFileSync(
    join(exp, 'yaml_backup.yaml'),
    'ajet:\n  project_name: proj\n  experiment_name: exp_a\n  trainer_common:\n    logger:\n    - tensorboard\n',
  );
  const tb = join(ws, 'tensorboard_log', 'proj', 'exp_a');
  mkdirSync(tb, { recursive: true });
  const events = join(tb, 'events.out.tfevents.1700000000.host.1.0');
  writeFileSync(
    events,
    Buffer.concat([frameRecord(encodeScalarEvent({ step: 0, wallTime: 100, fileVersion: 'brain.Event:2' })), event(1, 0.2), event(2, 0.4)]),
  );
  return {
    env: { roots: [ws], mayRunPython: false, launches: new AgentLaunches({ watchdog: false }) },
    events,
    done: () => rmSync(ws, { recursive: true, force: true }),
  };
}

interface Answer {
  outcome: string;
  now: { metric?: number };
  changed: string[];
}

test('until.metric: reached at once when the value is already past it; timeout at the bound otherwise', async () => {
  const l = layout();
  try {
    const path = 'saved_experiments/exp_a';
    const at = await callTool(
      'agentjet_wait',
      { path, until: { metric: { key: 'critic/rewards/mean', above: 0.3 } }, timeoutS: 30 },
      l.env,
    );
    assert.equal(at.isError, false, at.text);
    const a = JSON.parse(at.text) as Answer;
    assert.equal(a.outcome, 'reached');
    assert.equal(a.now.metric, 0.4);
    const late = JSON.parse(
      (await callTool('agentjet_wait', { path, until: { metric: { key: 'critic/rewards/mean', below: 0.1 } }, timeoutS: 1 }, l.env)).text,
    ) as Answer;
    assert.equal(late.outcome, 'timeout');
  } finally {
    l.done();
  }
});

test('until.metric: a value the trainer writes while the call waits ends the wait, saying what changed', async () => {
  const l = layout();
  try {
    let answered = false;
    const seen: string[] = [];
    const call = callTool(
      'agentjet_wait',
      { path: 'saved_experiments/exp_a', until: { metric: { key: 'critic/rewards/mean', above: 0.7 } }, timeoutS: 120 },
      { ...l.env, progress: (m) => seen.push(m) },
    ).finally(() => (answered = true));
    // Written once the wait has read the run (it says what it saw: the metric at 0.4).
    await waitFor(() => seen.length > 0, 'the wait to read the run');
    assert.match(seen[0]!, /metric 0\.4/);
    assert.equal(answered, false);
    appendFileSync(l.events, Buffer.concat([event(3, 0.6), event(4, 0.8)]));
    const r = await call;
    assert.ok(answered);
    const a = JSON.parse(r.text) as Answer;
    assert.equal(a.outcome, 'reached', r.text);
    assert.equal(a.now.metric, 0.8);
    assert.ok(
      a.changed.some((c) => c === 'metric: 0.4 -> 0.8'),
      r.text,
    );
  } finally {
    l.done();
  }
});

test('a condition without above or below, or a path that is no run, is refused with a reason', async () => {
  const l = layout();
  try {
    const r = await callTool('agentjet_wait', { path: 'saved_experiments/exp_a', until: { metric: { key: 'x' } }, timeoutS: 1 }, l.env);
    assert.equal(r.isError, true);
    assert.match(r.text, /above or below/);
    const bad = await callTool('agentjet_wait', { path: 'saved_experiments/exp_a', until: { step: 'three' }, timeoutS: 1 }, l.env);
    assert.equal(bad.isError, true);
    assert.match(bad.text, /"step" must be a number/);
    const none = await callTool('agentjet_wait', { path: 'nowhere', timeoutS: 1 }, l.env);
    assert.equal(none.isError, true);
    assert.match(none.text, /no such file or folder/);
  } finally {
    l.done();
  }
});
