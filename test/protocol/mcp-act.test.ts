// Issue 44: the acting tools of `agentjet mcp`, through the MCP SDK's own client, on a copy of the
// demo with the stand-in backbone (shaped like AgentJet's launcher):
// - without --allow-act none is offered and a call is refused; with it they are, annotated as what
//   they do; the two that run an interpreter only with --python as well;
// - agentjet_wait returns on a real stepping run (a Python process writing beast-logger records)
//   when it reaches a step, says "stalled" of one that stops writing (--stall-minutes low), and
//   times out within its bound on a stalled one when the stall cannot be judged yet;
// - agentjet_apply_fix fixes a misspelt key, and lint no longer reports it;
// - agentjet_debug_task returns the task's outcome: its reward and rollout record, or the exception
//   with the frame in the user's workflow;
// - agentjet_train starts, agentjet_wait follows it by its id, agentjet_stop ends it; another id is refused;
// - the client disconnecting mid-launch leaves no process of the launch.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoCopy, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { connectMcp, alive, type McpSession } from '../util/mcpClient';
import { waitFor } from '../util/poll';
import { runRow, waitQuiet } from '../util/holdLaunch';
import { listProcesses } from '../../core/launch/processes';
import { ACT_TOOLS } from '../../core/agents/tools';

const python = ensureTestPython().python;
const ACTING = ACT_TOOLS.map((x) => x.name);

interface WaitAnswer {
  outcome: string;
  waitedS: number;
  changed: string[];
  now: { status: string; latestStep?: number; health?: string };
}

/** A Python process that writes a run as AgentJet + beast-logger do: a rollout record per step, its lock held. */
function stepper(w: DemoCopy, name: string, o: { stepS: number; stallAt?: number }): { child: ChildProcess; dir: string } {
  const dir = join(w.dir, 'saved_experiments', name);
  const script = [
    'import os, sys, time',
    'from ajet._standin import beastlog',
    `exp = ${JSON.stringify(dir)}`,
    'os.makedirs(exp, exist_ok=True)',
    'open(os.path.join(exp, "yaml_backup.yaml"), "w").write("ajet:\\n  experiment_name: %s\\n" % os.path.basename(exp))',
    's = beastlog.Session(exp)',
    'print("ready", flush=True)',
    'step = 0',
    'while True:',
    `    time.sleep(${o.stepS})`,
    '    step += 1',
    '    s.rollout(step, "t%d" % step, 0.1 * step, [{"messages": [{"role": "user", "content": "q"}], "answer": "a"}])',
    ...(o.stallAt ? [`    if step >= ${o.stallAt}:`, '        time.sleep(3600)'] : []),
  ].join('\n');
  const child = spawn(python, ['-c', script], { env: { ...process.env, PYTHONPATH: standInBackbone }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, dir };
}

const parse = <T>(r: { text: string; isError: boolean }): T => {
  assert.equal(r.isError, false, r.text);
  return JSON.parse(r.text) as T;
};

describe('agentjet mcp --allow-act', { timeout: 600_000 }, () => {
  let w: DemoCopy;
  const sessions: McpSession[] = [];
  const children: ChildProcess[] = [];
  const open = async (extra: string[], env: Record<string, string> = {}) => {
    const s = await connectMcp(w.dir, extra, { PYTHONPATH: standInBackbone, ...env });
    sessions.push(s);
    return s;
  };
  before(async () => {
    w = await demoCopy('aj-mcp-act-');
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const s of sessions) await s.close().catch(() => undefined);
    await w?.dispose();
  });

  test('without --allow-act the acting tools are absent, and a call is refused naming the flag', async () => {
    const s = await open(['--python', python]);
    const names = (await s.client.listTools()).tools.map((x) => x.name);
    assert.ok(names.includes('agentjet_lint'), names.join(', '));
    for (const n of ACTING) assert.ok(!names.includes(n), `${n} is not offered`);
    const r = await s.call('agentjet_wait', { path: 'saved_experiments', timeoutS: 1 });
    assert.equal(r.isError, true);
    assert.match(r.text, /--allow-act/);
    await s.close();
  });

  test('with --allow-act they are offered with honest hints; train and debug_task only with an interpreter', async () => {
    const bare = await open(['--allow-act']);
    const listed = (await bare.client.listTools()).tools;
    const names = listed.map((x) => x.name);
    assert.deepEqual(
      ACTING.filter((n) => names.includes(n)),
      ['agentjet_wait', 'agentjet_apply_fix', 'agentjet_stop'],
    );
    const hints = (n: string) => listed.find((x) => x.name === n)!.annotations!;
    assert.equal(hints('agentjet_wait').readOnlyHint, true);
    assert.equal(hints('agentjet_apply_fix').readOnlyHint, false);
    assert.equal(hints('agentjet_apply_fix').destructiveHint, true);
    assert.equal(hints('agentjet_stop').destructiveHint, true);
    assert.equal(hints('agentjet_stop').idempotentHint, true);
    const r = await bare.call('agentjet_train', { config: 'math_agent.yaml', backbone: 'verl' });
    assert.equal(r.isError, true);
    assert.match(r.text, /--python PATH/);
    await bare.close();
    const full = await open(['--allow-act', '--python', python]);
    const all = (await full.client.listTools()).tools;
    for (const n of ACTING)
      assert.ok(
        all.some((x) => x.name === n),
        n,
      );
    const train = all.find((x) => x.name === 'agentjet_train')!.annotations!;
    assert.deepEqual([train.readOnlyHint, train.destructiveHint, train.idempotentHint], [false, true, false]);
    await full.close();
  });

  test('wait: returns when a stepping run reaches the step; says "stalled" of one that stops writing; times out within its bound', async () => {
    const busy = stepper(w, 'busy_run', { stepS: 0.3 });
    const quiet = stepper(w, 'quiet_run', { stepS: 0.3, stallAt: 3 });
    children.push(busy.child, quiet.child);
    const s = await open(['--allow-act', '--stall-minutes', '0.05']);
    const reached = parse<WaitAnswer>(
      await s.call('agentjet_wait', { path: 'saved_experiments/busy_run', until: { step: 6 }, timeoutS: 120 }),
    );
    assert.equal(reached.outcome, 'reached', JSON.stringify(reached));
    assert.ok(reached.now.latestStep! >= 6, JSON.stringify(reached));
    assert.ok(
      reached.changed.some((c) => c.startsWith('latestStep')),
      JSON.stringify(reached),
    );
    const reward = parse<WaitAnswer>(
      await s.call('agentjet_wait', {
        path: 'saved_experiments/busy_run',
        until: { metric: { key: 'reward', above: 0.95 } },
        timeoutS: 120,
      }),
    );
    assert.equal(reward.outcome, 'reached', JSON.stringify(reward));
    const stalled = parse<WaitAnswer>(await s.call('agentjet_wait', { path: 'saved_experiments/quiet_run', timeoutS: 120 }));
    assert.equal(stalled.outcome, 'stalled', JSON.stringify(stalled));
    assert.equal(stalled.now.status, 'running');
    await s.close();
    // The default stall setting (10 min) cannot call it stalled yet: the bound ends the wait, near its time.
    const d = await open(['--allow-act']);
    const started = Date.now();
    const timeout = parse<WaitAnswer>(
      await d.call('agentjet_wait', { path: 'saved_experiments/quiet_run', until: { step: 50 }, timeoutS: 3 }),
    );
    assert.equal(timeout.outcome, 'timeout', JSON.stringify(timeout));
    assert.ok(Date.now() - started < 20_000, `the wait ended within its bound (${Date.now() - started} ms)`);
    // The run ends: a wait for it says so.
    const ending = d.call('agentjet_wait', { path: 'saved_experiments/busy_run', timeoutS: 120 });
    busy.child.kill('SIGTERM');
    const ended = parse<WaitAnswer>(await ending);
    assert.equal(ended.outcome, 'ended', JSON.stringify(ended));
    await d.close();
  });

  test('apply_fix: a misspelt key is fixed in the file, and lint no longer reports it', async () => {
    const s = await open(['--allow-act']);
    const cfg = join(w.dir, 'typo.yaml');
    writeFileSync(cfg, 'ajet:\n  project_name: typo\n  rollout:\n    max_env_workr: 4\n');
    const before = parse<{ diagnostics: { line: number; code: string; quickFixes?: unknown[] }[] }>(
      await s.call('agentjet_lint', { path: 'typo.yaml' }),
    );
    const typo = before.diagnostics.find((d) => d.code === 'unknown-key' && d.line === 4);
    assert.ok(typo?.quickFixes?.length, JSON.stringify(before));
    const fixed = parse<{ applied: string; diagnostics: { code: string; line: number }[] }>(
      await s.call('agentjet_apply_fix', { path: 'typo.yaml', line: 4 }),
    );
    assert.match(readFileSync(cfg, 'utf8'), /^ {4}max_env_worker: 4$/m);
    assert.ok(!fixed.diagnostics.some((d) => d.code === 'unknown-key' && d.line === 4), JSON.stringify(fixed));
    const after = parse<{ diagnostics: { code: string; line: number }[] }>(await s.call('agentjet_lint', { path: 'typo.yaml' }));
    assert.ok(!after.diagnostics.some((d) => d.code === 'unknown-key'), JSON.stringify(after));
    // Nothing left to fix on that line: a clear refusal, the file unchanged.
    const again = await s.call('agentjet_apply_fix', { path: 'typo.yaml', line: 4 });
    assert.equal(again.isError, true);
    assert.match(again.text, /no diagnostic on line 4/);
    await s.close();
  });

  test('debug_task: one task on the debug backbone returns its reward and record; a failing workflow its frame', async () => {
    const s = await open(['--allow-act', '--python', python]);
    type Outcome = {
      outcome: string;
      reward?: number;
      rolloutRecord?: unknown;
      exception?: { frameInYourCode: { file: string; line: number } };
    };
    const ok = parse<Outcome>(await s.call('agentjet_debug_task', { config: 'math_agent.yaml', taskId: 'demo-001' }));
    assert.equal(ok.outcome, 'finished', JSON.stringify(ok));
    assert.equal(typeof ok.reward, 'number', JSON.stringify(ok));
    assert.match(JSON.stringify(ok.rolloutRecord), /demo-001/);
    writeFileSync(
      join(w.dir, 'broken.py'),
      [
        'from ajet import Workflow',
        'class Broken(Workflow):',
        '    async def execute(self, workflow_task, tuner):',
        '        answer = {}',
        '        return answer["missing"]  # BROKEN',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(w.dir, 'broken.yaml'),
      readFileSync(w.config, 'utf8')
        .replace('math_demo.workflow->MathWorkflow', 'broken.py->Broken')
        .replace('experiment_name: math_demo', 'experiment_name: broken'),
    );
    const bad = parse<Outcome>(await s.call('agentjet_debug_task', { config: 'broken.yaml', taskId: 'demo-001' }));
    assert.equal(bad.outcome, 'failed', JSON.stringify(bad));
    assert.deepEqual(bad.exception?.frameInYourCode, { ...bad.exception!.frameInYourCode, file: 'broken.py', line: 5 });
    await s.close();
  });

  test('train: starts like the CodeLens, wait follows it by id, stop ends it; another id is refused', async () => {
    const s = await open(['--allow-act', '--python', python], { AJET_STANDIN_STEP_S: '0.3', AJET_STANDIN_STEPS: '1000' });
    const cfg = join(w.dir, 'train_a.yaml');
    writeFileSync(cfg, readFileSync(w.config, 'utf8').replace('experiment_name: math_demo', 'experiment_name: train_a'));
    const started = parse<{ id: string; state: string; run: string; pid: number; python: string; gpus: string }>(
      await s.call('agentjet_train', { config: 'train_a.yaml', backbone: 'verl' }),
    );
    assert.equal(started.state, 'running', JSON.stringify(started));
    assert.equal(started.run, 'saved_experiments/train_a');
    assert.equal(started.python, python);
    assert.ok(started.gpus);
    const waited = parse<WaitAnswer>(await s.call('agentjet_wait', { path: started.id, until: { step: 3 }, timeoutS: 120 }));
    assert.equal(waited.outcome, 'reached', JSON.stringify(waited));
    const refused = await s.call('agentjet_stop', { run: 'launch-99' });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /not started by this client/);
    const stopped = parse<{ stopped: boolean; was: string }>(await s.call('agentjet_stop', { run: started.run }));
    assert.deepEqual([stopped.stopped, stopped.was], [true, 'running']);
    await waitFor(() => !alive(started.pid), 'the launcher to be gone');
    await s.close();
  });

  test('the client disconnecting mid-launch leaves no process of the launch', async () => {
    const s = await open(['--allow-act', '--python', python], { AJET_STANDIN_STEP_S: '0.3', AJET_STANDIN_STEPS: '1000' });
    const cfg = join(w.dir, 'gone_b.yaml');
    writeFileSync(cfg, readFileSync(w.config, 'utf8').replace('experiment_name: math_demo', 'experiment_name: gone_b'));
    const call = s.call('agentjet_train', { config: 'gone_b.yaml', backbone: 'verl' }).catch(() => undefined);
    const ours = async () => (await listProcesses()).filter((p) => p.args.includes(cfg) && !/\bps -eo\b/.test(p.args));
    await waitFor(async () => (await ours()).length > 0, 'the launcher to start', 60_000);
    // Mid-launch: the train call has not answered, the launcher runs; the client goes.
    await s.close();
    await call;
    await waitQuiet(ours, 20_000);
    // Stopped through its owner (as Stop does, the launch recorded), not left to the watchdog.
    assert.equal(runRow(w.dir, 'gone_b')?.status, 'stopped', JSON.stringify(runRow(w.dir, 'gone_b')));
  });
});
