// The acting language-model tools (extension/agents/acting.ts) of a window, made as the agents
// feature makes them, with a context and a trust service of the test's own:
// - in Restricted Mode (the trust service says untrusted: the harness itself runs trusted) no tool
//   asks, and each invoke refuses before it reads the workspace, finds an interpreter or starts anything;
// - when the window closes (the context's disposables disposed, as VS Code does on deactivation),
//   a training run agentjet_train started ends as Stop ends it: no process left, the run reads stopped,
//   and nothing more starts.
import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, standInBackbone, waitFor, workspaceRoot } from '../util';
import { actingTools } from '../../../extension/agents/acting';
import type { Services } from '../../../extension/services';
import { ACT_TOOLS, AgentLaunches, callTool, type AgentToolEnv } from '../../../core/agents/tools';
import { listProcesses } from '../../../core/launch/processes';

const INPUTS: Record<string, object> = {
  agentjet_wait: { path: 'saved_experiments', timeoutS: 1 },
  agentjet_apply_fix: { path: 'math_agent.yaml', line: 3 },
  agentjet_debug_task: { config: 'math_agent.yaml', taskId: 'demo-000' },
  agentjet_train: { config: 'math_agent.yaml', backbone: 'verl' },
  agentjet_stop: { run: 'launch-1' },
};

/** A context whose disposables the test disposes (what VS Code does when the window closes). */
function fakeContext(): { context: vscode.ExtensionContext; dispose(): void } {
  const subscriptions: { dispose(): unknown }[] = [];
  return {
    context: { subscriptions } as unknown as vscode.ExtensionContext,
    dispose: () => {
      for (const d of subscriptions.splice(0)) d.dispose();
    },
  };
}

function fakeServices(trusted: boolean): Services {
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  return { log, trust: { isTrusted: () => trusted } } as unknown as Services;
}

suite('agents: acting tools in Restricted Mode and when the window closes', () => {
  test('Restricted Mode: no acting tool asks, and each invoke refuses before it reads or starts anything', async () => {
    const c = fakeContext();
    let envAsked = 0;
    const made = actingTools(c.context, fakeServices(false), () => {
      envAsked++;
      return Promise.resolve({ roots: [workspaceRoot().fsPath], mayRunPython: true, python: () => Promise.resolve(TEST_PYTHON) });
    });
    const source = new vscode.CancellationTokenSource();
    try {
      assert.deepEqual(
        [...made.tools.keys()],
        ACT_TOOLS.map((t) => t.name),
      );
      for (const [name, impl] of made.tools) {
        const input = INPUTS[name];
        assert.ok(input, name);
        assert.equal((await impl.prepareInvocation({ input }, source.token)).confirmationMessages, undefined, `${name} does not ask`);
        await assert.rejects(impl.invoke({ input }, source.token), /Restricted Mode runs nothing/, name);
      }
      assert.equal(envAsked, 0, 'the workspace state (folders, interpreter) was not even read');
      assert.equal(made.started(), 0);
    } finally {
      source.dispose();
      c.dispose();
    }
  });

  test('the window closing stops what agentjet_train started, as Stop does: no process left, the run reads stopped', async function () {
    this.timeout(180_000);
    // A copy of the workspace whose .env puts the stand-in backbone on PYTHONPATH and makes its training long.
    const dir = mkdtempSync(join(tmpdir(), 'aj-acting-close-'));
    cpSync(workspaceRoot().fsPath, dir, {
      recursive: true,
      filter: (src) => !/[\\/](saved_experiments|launcher_record|\.env)$/.test(src),
    });
    writeFileSync(join(dir, '.env'), `PYTHONPATH=${standInBackbone()}\nAJET_STANDIN_STEP_S=0.3\nAJET_STANDIN_STEPS=1000\n`);
    const config = join(dir, 'close_a.yaml');
    writeFileSync(
      config,
      readFileSync(join(dir, 'math_agent.yaml'), 'utf8').replace('experiment_name: math_demo', 'experiment_name: close_a'),
    );
    const env: AgentToolEnv = { roots: [dir], mayRunPython: true, python: () => Promise.resolve(TEST_PYTHON) };
    const ours = async () => (await listProcesses()).filter((p) => p.args.includes(config) && !/\bps -eo\b/.test(p.args));
    const c = fakeContext();
    const made = actingTools(c.context, fakeServices(true), () => Promise.resolve(env));
    const source = new vscode.CancellationTokenSource();
    try {
      const train = made.tools.get('agentjet_train')!;
      const started = JSON.parse(String(await train.invoke({ input: { config: 'close_a.yaml', backbone: 'verl' } }, source.token))) as {
        state: string;
        run?: string;
        pid?: number;
      };
      assert.equal(started.state, 'running', JSON.stringify(started));
      assert.equal(started.run, 'saved_experiments/close_a');
      assert.equal(made.started(), 1);
      assert.ok((await ours()).length > 0, 'the launcher runs');
      // The window closes: VS Code disposes the extension's disposables.
      c.dispose();
      await waitFor(async () => (await ours()).length === 0, 'no process of the launch left', 60_000);
      const status = await waitFor(async () => {
        const r = await callTool(
          'agentjet_wait',
          { path: 'saved_experiments/close_a', timeoutS: 1 },
          { roots: [dir], mayRunPython: false, launches: new AgentLaunches({ watchdog: false }) },
        );
        assert.equal(r.isError, false, r.text);
        const now = (JSON.parse(r.text) as { now?: { status?: string } }).now?.status;
        return now === 'stopped' && now;
      }, 'the run to read stopped (as Stop leaves it)');
      assert.equal(status, 'stopped');
      // Closed for good: a later call starts nothing.
      await assert.rejects(train.invoke({ input: { config: 'close_a.yaml', backbone: 'verl' } }, source.token), /closing/);
      assert.equal(made.started(), 1);
    } finally {
      source.dispose();
      c.dispose();
      await made.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
