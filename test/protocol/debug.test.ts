// The agentjet debug adapter driven over DAP (DebugClient) against real debugpy and the stand-in
// backbone on PYTHONPATH. The Python is the tests' pip venv (ensureTestPython: debugpy >= 1.8, as
// AgentJet asks). One test wants an OLD debugpy on purpose (the version warning): pip's mirror has
// only >= 1.8, so it uses Debian's python3-debugpy (1.6.3) and is skipped, saying so, without it.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { adapterJs, debianPython, demoCopy, freePort, lineOf, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython, moduleVersion } from '../harness/python';
import { waitFor } from '../util/poll';
import { descendants, listProcesses, type ProcInfo } from '../../core/launch/processes';
import { companionFolder, readCompanions, stopCompanions } from '../../core/launch/companions';
import { findRolloutLog } from '../../core/launch/experiment';
import { skipForEnvironment } from '../util/envSkip';

const TIMEOUT = 60_000;
const testPython = ensureTestPython();
const python = testPython.python;
/** Debian's debugpy when it is older than AgentJet wants (python3-debugpy 1.6.3), else undefined. */
const oldDebianDebugpy = ((v) => (v && /^1\.[0-7]\./.test(v) ? v : undefined))(
  existsSync(debianPython) ? moduleVersion(debianPython, 'debugpy') : undefined,
);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function client(): DebugClient {
  const dc = new DebugClient('node', adapterJs, 'agentjet');
  dc.defaultTimeout = TIMEOUT;
  return dc;
}

function launchArgs(w: DemoCopy, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { config: w.config, cwd: w.dir, python, env: { PYTHONPATH: standInBackbone }, ...extra };
}

/** Events of one kind collected from the start of a session. */
function collect(dc: DebugClient, event: string): DebugProtocol.Event[] {
  const seen: DebugProtocol.Event[] = [];
  dc.on(event, (e: DebugProtocol.Event) => seen.push(e));
  return seen;
}

/** Our adapter's pid (a child of this test process running dist/adapter.js). */
async function adapterPid(): Promise<number> {
  const procs = await listProcesses();
  const me = procs.filter((p) => p.ppid === process.pid && p.args.includes('adapter.js'));
  assert.ok(me.length > 0, 'the adapter process is running');
  return me.at(-1)!.pid;
}

/** Processes whose command line mentions the temp workspace or that descend from our adapter. */
async function oursAlive(w: DemoCopy, adapter: number, spareGroups: number[] = []): Promise<ProcInfo[]> {
  const procs = await listProcesses();
  const tree = descendants(adapter, procs).filter((p) => p.pid !== adapter);
  const mention = procs.filter((p) => p.args.includes(w.dir) && p.pid !== process.pid);
  return [...tree, ...mention].filter((p) => !spareGroups.includes(p.pgid) && !/\bps -eo\b/.test(p.args));
}

describe('agentjet debug adapter over debugpy', { timeout: 240_000 }, () => {
  let w: DemoCopy;
  before(async () => {
    w = await demoCopy();
  });
  after(async () => {
    await w.dispose();
  });

  test('a breakpoint in the workflow is hit at the right line, with stack and variables; continue runs to exit code 0', async () => {
    const dc = client();
    await dc.start();
    const outputs = collect(dc, 'output');
    const exited = collect(dc, 'exited');
    const finished = collect(dc, 'agentjet.runFinished');
    const experiments = collect(dc, 'agentjet.experiment');
    try {
      const line = lineOf(w.workflow, 'answer = reply.choices');
      await dc.hitBreakpoint(launchArgs(w), { path: w.workflow, line });
      const threads = await dc.threadsRequest();
      const threadId = threads.body.threads[0]!.id;
      const stack = await dc.stackTraceRequest({ threadId });
      const top = stack.body.stackFrames[0]!;
      assert.equal(top.name, 'execute');
      assert.equal(top.line, line);
      assert.equal(top.source?.path, w.workflow);
      assert.ok(
        stack.body.stackFrames.some((f) => f.name === 'run_debug' && /ajet[\\/]launcher\.py$/.test(f.source?.path ?? '')),
        'the launcher frame is below the workflow',
      );
      const scopes = await dc.scopesRequest({ frameId: top.id });
      const locals = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0]!.variablesReference });
      const byName = new Map(locals.body.variables.map((v) => [v.name, v.value]));
      assert.equal(byName.get('question'), "'What is 43 * 21 + 43?'");
      assert.ok(byName.has('reply') && byName.has('client') && byName.has('tuner'));
      const ev = await dc.evaluateRequest({ expression: 'reply.choices[0].message.content', frameId: top.id, context: 'repl' });
      assert.match(ev.body.result, /\\\\boxed\{946\}/);
      // A debugpy AgentJet accepts: no version warning (the old-debugpy warning has its own test).
      if (testPython.kind === 'venv')
        assert.ok(
          !outputs.some((o) => o.body.category === 'important' && /debugpy/.test(o.body.output)),
          'no debugpy warning for the venv',
        );
      // Second task stops at the same line; then the run ends.
      await Promise.all([dc.continueRequest({ threadId }), dc.assertStoppedLocation('breakpoint', { path: w.workflow, line })]);
      await dc.setBreakpointsRequest({ source: { path: w.workflow }, breakpoints: [] });
      await Promise.all([dc.continueRequest({ threadId }), dc.waitForEvent('terminated')]);
      assert.equal(exited[0]?.body.exitCode, 0);
      const exp = join(w.dir, 'saved_experiments', 'math_demo');
      assert.ok(existsSync(join(exp, 'yaml_backup.yaml')), 'the run folder exists');
      assert.equal(experiments[0]?.body.folder, exp);
      const log = await findRolloutLog(exp);
      assert.ok(log, 'a rollout log was written');
      assert.equal(finished[0]?.body.rolloutLog, log);
      assert.equal(finished[0]?.body.exitCode, 0);
      assert.ok(
        outputs.some((o) => /\[0\] Task demo-001 \(Reward 1\.000\)/.test(o.body.output)),
        'launcher output reaches the Debug Console',
      );
    } finally {
      await dc.stop();
    }
  });

  test('restart: a second session after disconnect(restart) hits the breakpoint again and reuses the companion', async () => {
    const line = lineOf(w.workflow, 'answer = reply.choices');
    const first = client();
    await first.start();
    const firstOut = collect(first, 'output');
    await first.hitBreakpoint(launchArgs(w), { path: w.workflow, line });
    // VS Code restarts an adapter without restartRequest support this way, then launches anew.
    await first.disconnectRequest({ restart: true, terminateDebuggee: true });
    const second = client();
    await second.start();
    const secondOut = collect(second, 'output');
    try {
      await second.hitBreakpoint(launchArgs(w), { path: w.workflow, line });
      const started = (o: DebugProtocol.Event[]) => o.some((e) => /Started vLLM companion/.test(e.body.output));
      const reused = (o: DebugProtocol.Event[]) => o.some((e) => /Reusing vLLM companion/.test(e.body.output));
      assert.ok(started(firstOut) || reused(firstOut));
      // debugpy relays the launcher's output on its own schedule: the line may follow the stop.
      await waitFor(() => reused(secondOut) || undefined, 'the restarted session to report that it reuses the live companion', 15_000);
      assert.ok(!started(secondOut), 'no second companion was started');
    } finally {
      await second.stop();
    }
  });

  test('a broken config is refused before any process starts', async () => {
    const broken = join(w.dir, 'broken.yaml');
    writeFileSync(broken, 'ajet:\n  rollout:\n    user_workflow: [\n');
    const dc = client();
    await dc.start();
    try {
      const pid = await adapterPid();
      await assert.rejects(
        dc.launch(launchArgs(w, { config: broken })),
        /broken\.yaml has \d+ error\(s\); nothing was started[\s\S]*line \d+:/,
      );
      assert.deepEqual(
        (await listProcesses()).filter((p) => p.ppid === pid),
        [],
        'the adapter started no process',
      );
      assert.ok(!existsSync(join(w.dir, 'saved_experiments', 'broken')), 'no run folder');
    } finally {
      await dc.stop();
    }
  });

  test("an old debugpy (Debian's python3-debugpy) still debugs, with a warning naming its version and the upgrade", async (t) => {
    const missing =
      "an old debugpy: Debian's python3-debugpy (apt-get install python3-debugpy; .ci/run installs it), pip offers only >= 1.8";
    if (skipForEnvironment(t, oldDebianDebugpy ? undefined : missing)) return;
    const dc = client();
    await dc.start();
    const outputs = collect(dc, 'output');
    try {
      const line = lineOf(w.workflow, 'answer = reply.choices');
      await dc.hitBreakpoint(launchArgs(w, { python: debianPython }), { path: w.workflow, line });
      const warn = outputs.find((o) => o.body.category === 'important');
      assert.ok(warn, 'a debugpy version warning is shown');
      assert.match(
        warn.body.output,
        new RegExp(
          `debugpy ${escape(oldDebianDebugpy!)}\\S* found for /usr/bin/python3; AgentJet's launcher wants >= 1\\.8\\.0.*pip install --upgrade "debugpy>=1\\.8\\.0"`,
        ),
      );
    } finally {
      await dc.stop();
    }
  });

  test('a missing debugpy is named with the interpreter and how to install it', async () => {
    // A real interpreter without debugpy: a bare venv (no pip, no system site-packages).
    const bare = mkdtempSync(join(tmpdir(), 'aj-nodebugpy-'));
    try {
      const base = execFileSync(python, ['-c', 'import sys; print(getattr(sys, "_base_executable", sys.executable))']).toString().trim();
      execFileSync(base, ['-m', 'venv', '--without-pip', bare]);
      const pyenv = join(bare, 'bin', 'python');
      const dc = client();
      await dc.start();
      try {
        await assert.rejects(
          dc.launch(launchArgs(w, { python: pyenv })),
          (e: Error) =>
            e.message.includes(`debugpy is not installed for ${pyenv}`) &&
            e.message.includes(`${pyenv} -m pip install --upgrade "debugpy>=1.8.0"`),
        );
      } finally {
        await dc.stop();
      }
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  test('a missing framework is reported for the chosen interpreter', async () => {
    const dc = client();
    await dc.start();
    try {
      await assert.rejects(
        dc.launch(launchArgs(w, { env: { PYTHONPATH: null } })),
        new RegExp(
          `${escape(python)} has no AgentJet launcher: no console script beside it and it cannot import ajet\\.launcher, ajet\\.cli\\.launcher \\(No module named 'ajet\\.launcher'; No module named 'ajet\\.cli\\.launcher'\\)\\. Install the framework`,
        ),
      );
      // The idle debugpy adapter started during the preflight is gone again; no launcher ever ran.
      const pid = await adapterPid();
      await waitFor(async () => (await listProcesses()).filter((p) => p.ppid === pid).length === 0, 'the adapter to have no children');
    } finally {
      await dc.stop();
    }
  });

  test('the vLLM port held by a stranger is refused', async () => {
    // Free the port from our own companion (earlier tests), then let a stranger hold it.
    await stopCompanions(readCompanions(companionFolder(w.dir, 'saved_experiments')));
    const srv: Server = createServer();
    await new Promise<void>((r) => srv.listen(w.port, '127.0.0.1', () => r()));
    const dc = client();
    await dc.start();
    try {
      await assert.rejects(
        dc.launch(launchArgs(w)),
        new RegExp(`port ${w.port} \\(ajet\\.debug\\.debug_vllm_port\\) is held by process ${process.pid}`),
      );
    } finally {
      await dc.stop();
      await new Promise((r) => srv.close(r));
    }
  });

  test('Run Without Debugging runs the same configuration without debugpy', async () => {
    const dc = client();
    await dc.start();
    const exited = collect(dc, 'exited');
    const outputs = collect(dc, 'output');
    try {
      await Promise.all([dc.launch(launchArgs(w, { noDebug: true })), dc.waitForEvent('terminated')]);
      assert.equal(exited[0]?.body.exitCode, 0);
      assert.ok(outputs.some((o) => /Debug rollout finished: 2 task\(s\)/.test(o.body.output)));
      assert.ok(!outputs.some((o) => o.body.category === 'important'), 'no debugpy check without the debugger');
    } finally {
      await dc.stop();
    }
  });

  test('an astuner: config runs the ASTuner launcher and writes to launcher_record/', async () => {
    // November 2025 ASTuner: `agentscope_learn_protocol`, `dataset_file` and launcher_record/ belong together.
    const conf = join(w.dir, 'astuner_math.yaml');
    // Its own port: the ajet companion of the other tests lives under saved_experiments/.
    const port = await freePort();
    writeFileSync(
      conf,
      `astuner:\n  experiment_name: astuner_math\n  task_reader:\n    type: dataset_file\n    dataset_file:\n      training:\n        file_path: data/train.jsonl\n  task_judge:\n    judge_protocol: math_demo.judge->MathAnswerJudge\n  rollout:\n    agentscope_learn_protocol: math_demo.workflow->MathWorkflow\n  debug:\n    debug_first_n_tasks: 1\n    debug_vllm_port: ${port}\n`,
    );
    const dc = client();
    await dc.start();
    const outputs = collect(dc, 'output');
    const exited = collect(dc, 'exited');
    try {
      await Promise.all([dc.launch(launchArgs(w, { config: conf, noDebug: true })), dc.waitForEvent('terminated')]);
      assert.ok(
        outputs.some((o) => o.body.output.includes(`-m astuner.cli.launcher --backbone debug --conf ${conf}`)),
        'the ASTuner launcher module it really has',
      );
      assert.equal(exited[0]?.body.exitCode, 0);
      assert.ok(await findRolloutLog(join(w.dir, 'launcher_record', 'astuner_math')), 'the run folder is under launcher_record/');
    } finally {
      await dc.stop();
    }
  });

  for (const autokill of [false, true]) {
    test(`stop during a run leaves no process of ours alive (autokill ${autokill})`, async () => {
      // A workflow that starts a grandchild in its own session (as Ray workers do, out of reach of
      // debugpy's process-group kill) and then blocks, so Stop lands mid-run.
      const marker = `aj-stop-marker-${w.port}-${autokill}`;
      writeFileSync(
        join(w.dir, 'slow.py'),
        [
          'import subprocess, sys, time',
          'from ajet import Workflow',
          'class Slow(Workflow):',
          '    async def execute(self, workflow_task, tuner):',
          `        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300) # ${marker}"], start_new_session=True)`,
          '        print("slow workflow running", flush=True)',
          '        time.sleep(300)',
          '',
        ].join('\n'),
      );
      const slow = join(w.dir, 'slow.yaml');
      writeFileSync(
        slow,
        `ajet:\n  experiment_name: slow\n  task_reader:\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n  rollout:\n    user_workflow: slow.py->Slow\n  debug:\n    debug_first_n_tasks: 1\n    debug_vllm_port: ${w.port}\n`,
      );
      const dc = client();
      await dc.start();
      const outputs = collect(dc, 'output');
      let disconnected = false;
      try {
        const pid = await adapterPid();
        await Promise.all([
          dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
          dc.launch(launchArgs(w, { config: slow, autokill })),
        ]);
        await waitFor(() => outputs.some((o) => o.body.output.includes('slow workflow running')), 'the workflow to run');
        const running = (await listProcesses()).filter((p) => p.args.includes(marker));
        assert.ok(running.length > 0, 'the grandchild runs');
        await dc.disconnectRequest({ terminateDebuggee: true });
        disconnected = true;
        const companions = readCompanions(companionFolder(w.dir, 'saved_experiments'));
        const spare = autokill ? [] : companions.filter((c) => c.alive).map((c) => c.pgid);
        const left = await waitFor(async () => {
          const l = await oursAlive(w, pid, spare);
          return l.length === 0 ? ['none'] : false;
        }, 'our processes to end').catch(async () => oursAlive(w, pid, spare));
        assert.deepEqual(left, ['none'], `left behind: ${JSON.stringify(left)}`);
        assert.equal((await listProcesses()).filter((p) => p.args.includes(marker)).length, 0, 'the grandchild is gone');
        if (autokill)
          assert.ok(
            readCompanions(companionFolder(w.dir, 'saved_experiments')).every((c) => !c.alive),
            'autokill stops the companion too',
          );
        else assert.ok(spare.length > 0, 'the companion stays up for the next launch');
      } finally {
        // After a disconnect the adapter exits by itself; a second disconnect would go unanswered.
        if (!disconnected) await dc.stop();
      }
    });
  }
});
