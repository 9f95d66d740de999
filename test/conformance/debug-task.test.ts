// "Debug this task" through the REAL AgentJet launcher (agentjet-d20cce0, stubs as in
// launch-debug.test.ts): pick a task of a run, derive the one-task config beside the run
// (core/debugTask/prepare.ts, what the command and `agentjet debug-task` do), launch the debug
// backbone on it over DAP, and stop at a breakpoint in the workflow: `workflow_task.task.task_id`
// is the picked id. Two projects: this repository's demo (JSONL reader, the run's config as the
// user has it) and AgentJet's math-agent tutorial (Hugging Face reader: the row is read through
// `datasets`, here a stand-in that reads local JSONL splits, see stubs-datasets/README.md).
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { lineOf } from '../util/debugWorkspace';
import { INIT, TIMEOUT, collect, inlineShell, onReverseRequests } from './dapShells';
import { findUpstream, withUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { realAgentJetMissing, realWorkspace, type RealWorkspace } from './realAgentJet';
import { waitFor } from '../util/poll';
import { repoRoot } from '../util/paths';
import { debugTaskDir, prepareDebugTask } from '../../core/debugTask/prepare';
import { listProcesses, terminate } from '../../core/launch/processes';
import { skipForEnvironment } from '../util/envSkip';

const datasetsStandIn = join(repoRoot, 'test', 'conformance', 'stubs-datasets');

/** Launches `config` over DAP, stops at `file:line` in the launcher's child, returns the task id the workflow holds. */
async function stopAndReadTaskId(w: RealWorkspace, config: string, file: string, line: number): Promise<{ taskId: string; query: string }> {
  const shell = await inlineShell();
  const dc = await shell.client();
  const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
  onReverseRequests(dc, (r) => {
    if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
  });
  const outputs = collect(dc, 'output');
  let child: DebugClient | undefined;
  try {
    await dc.initializeRequest(INIT);
    await Promise.all([
      dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
      dc.launchRequest({ config, cwd: w.dir, python: w.python, env: { PYTHONPATH: w.pythonPath } } as DebugProtocol.LaunchRequestArguments),
    ]);
    const said = (): string =>
      outputs
        .map((o) => (o.body as { output: string }).output)
        .join('')
        .slice(-3000);
    const req = await waitFor(
      () => children[0],
      () => `debugpy to report the launcher's child process; the launch said:\n${said()}`,
      TIMEOUT,
      100,
    );
    const cfg = req.configuration as Record<string, unknown> & { connect: { port: number } };
    child = new DebugClient('node', '', 'python');
    child.defaultTimeout = TIMEOUT;
    await child.start(cfg.connect.port);
    await child.initializeRequest({ ...INIT, adapterID: 'debugpy' });
    const attached = child.attachRequest(cfg as DebugProtocol.AttachRequestArguments);
    await child.waitForEvent('initialized');
    await child.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line }] });
    const [, , stopped] = await Promise.all([
      child.configurationDoneRequest(),
      attached,
      (child.waitForEvent('stopped', TIMEOUT) as Promise<DebugProtocol.StoppedEvent>).catch((e: unknown) => {
        throw new Error(`${String(e)}; the launch said:\n${said()}`);
      }),
    ]);
    const frame = (await child.stackTraceRequest({ threadId: stopped.body.threadId! })).body.stackFrames[0]!;
    assert.equal(frame.source?.path, file);
    assert.equal(frame.line, line);
    const evalIn = async (expression: string): Promise<string> =>
      (await child!.evaluateRequest({ expression, frameId: frame.id, context: 'watch' })).body.result;
    return { taskId: await evalIn('workflow_task.task.task_id'), query: await evalIn('workflow_task.task.main_query') };
  } finally {
    await child?.stop().catch(() => undefined);
    await dc.terminateRequest().catch(() => undefined);
    await dc.stop().catch(() => undefined);
    await shell.close();
    // Whatever the launch left of this workspace (the stopped rollout's tree), not the companion.
    const left = (await listProcesses()).filter((p) => p.args.includes(w.dir) && !/vllm\.entrypoints/.test(p.args));
    await terminate({ pids: left.map((p) => p.pid), pgids: [] }, 3000);
  }
}

describe('Debug this task through the real AgentJet launcher', { timeout: 600_000 }, () => {
  let w: RealWorkspace | undefined;
  const why = realAgentJetMissing();
  before(async () => {
    if (!why && findUpstream('agentjet-d20cce0') && findUpstream('beast-logger-6ba1ca5'))
      w = await realWorkspace('agentjet-d20cce0', 'aj-dtask-');
  });
  after(async () => {
    await w?.dispose();
  });

  test(
    'demo (JSONL reader): the picked task of a run, and only it, reaches the workflow',
    withUpstream('agentjet-d20cce0', async (_dir, t) => {
      if (skipForEnvironment(t, why ?? (w ? undefined : `${UPSTREAM_SKIP_TAG} beast-logger-6ba1ca5 missing; ${UPSTREAM_SKIP}`))) return;
      assert.ok(w, 'the real workspace was made');
      // The user's project: the demo's package, data, config and one run.
      for (const p of ['math_demo', 'data', 'math_agent.yaml']) cpSync(join(repoRoot, 'demo', p), join(w.dir, p), { recursive: true });
      const run = join(w.dir, 'saved_experiments', 'math_demo_20260103_1010');
      cpSync(join(repoRoot, 'demo', 'saved_experiments', 'math_demo_20260103_1010'), run, { recursive: true });
      // This machine's vLLM port and the stub model (what the user's own config would say here).
      const yaml = readFileSync(join(w.dir, 'math_agent.yaml'), 'utf8')
        .replace('path: Qwen/Qwen2.5-1.5B-Instruct', 'path: stub-model')
        .replace('  debug:\n', `  debug:\n    debug_vllm_port: ${w.port}\n`);
      writeFileSync(join(w.dir, 'math_agent.yaml'), yaml);
      const userFiles = ['math_agent.yaml', 'data/val.jsonl', 'data/train.jsonl'].map(
        (f) => [f, readFileSync(join(w!.dir, f), 'utf8')] as const,
      );
      // A task from the middle of the validation file (the debug backbone reads the validation split).
      const picked = 'demo-005';
      const prepared = await prepareDebugTask({
        sourceConfig: join(w.dir, 'math_agent.yaml'),
        cwd: w.dir,
        taskId: picked,
        numRepeat: 1,
        outDir: debugTaskDir(run, w.dir),
        sourceRun: run,
      });
      assert.ok(prepared.ok, JSON.stringify(prepared));
      assert.ok(prepared.config.startsWith(join(run, 'debug-tasks')), 'the derived config is beside the run');
      const workflow = join(w.dir, 'math_demo', 'workflow.py');
      const line = lineOf(workflow, 'question = workflow_task.task.main_query');
      const got = await stopAndReadTaskId(w, prepared.config, workflow, line);
      assert.equal(got.taskId, `'${picked}'`);
      assert.equal(got.query, "'What is 9 * 66 + 9?'");
      for (const [f, text] of userFiles) assert.equal(readFileSync(join(w.dir, f), 'utf8'), text, `${f} is unchanged`);
      assert.equal(JSON.parse(readFileSync(prepared.link, 'utf8')).sourceRun, run, 'the new run is linked to the rollout it came from');
    }),
  );

  test(
    "AgentJet's math-agent tutorial (Hugging Face reader): row N of the split is the task that stops",
    withUpstream('agentjet-d20cce0', async (dir, t) => {
      if (skipForEnvironment(t, why ?? (w ? undefined : `${UPSTREAM_SKIP_TAG} beast-logger-6ba1ca5 missing; ${UPSTREAM_SKIP}`))) return;
      assert.ok(w, 'the real workspace was made');
      mkdirSync(join(w.dir, 'tutorial'), { recursive: true });
      cpSync(join(dir, 'tutorial', 'example_math_agent'), join(w.dir, 'tutorial', 'example_math_agent'), { recursive: true });
      writeFileSync(join(w.dir, 'tutorial', '__init__.py'), '');
      // The dataset the tutorial names, as local splits the stand-in `datasets` reads.
      const ds = join(w.dir, 'gsm8k');
      mkdirSync(ds);
      const rows = Array.from({ length: 5 }, (_, i) => ({ question: `Q${i}: what is ${i} + ${i}?`, answer: `#### ${2 * i}` }));
      for (const split of ['train', 'test'])
        writeFileSync(join(ds, `${split}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const cfg = readFileSync(join(dir, 'tutorial', 'example_math_agent', 'math_agent.yaml'), 'utf8')
        .replace("'/mnt/data_cpfs/model_cache/modelscope/dataset/openai/gsm8k/main'", `'${ds}'`)
        .replace('path: Qwen/Qwen2.5-7B', 'path: stub-model')
        .replace('  debug:\n', `  debug:\n    debug_vllm_port: ${w.port}\n`)
        .replace('logger: swanlab', 'logger: tensorboard');
      const config = join(w.dir, 'math_agent.yaml');
      writeFileSync(config, cfg);
      const prev = process.env.PYTHONPATH;
      process.env.PYTHONPATH = datasetsStandIn;
      let prepared;
      try {
        prepared = await prepareDebugTask({
          sourceConfig: config,
          cwd: w.dir,
          taskId: '3',
          numRepeat: 1,
          outDir: debugTaskDir(undefined, w.dir),
          python: w.python,
        });
      } finally {
        if (prev === undefined) delete process.env.PYTHONPATH;
        else process.env.PYTHONPATH = prev;
      }
      assert.ok(prepared.ok, JSON.stringify(prepared));
      // The demo's vLLM companion holds the port; AgentJet starts another for another config.
      await w.stopCompanions();
      const workflow = join(w.dir, 'tutorial', 'example_math_agent', 'math_agent.py');
      const line = lineOf(workflow, 'from agentscope.agent import ReActAgent');
      const got = await stopAndReadTaskId(w, prepared.config, workflow, line);
      assert.equal(got.taskId, "'3'");
      assert.equal(got.query, "'Q3: what is 3 + 3?'");
    }),
  );
});
