// F5 to Problems (issue 41): a debug launch that fails with a message core/diagnose knows (vLLM's
// "max seq len (N) is larger than the maximum number of tokens that can be stored in KV cache (M)",
// vllm/worker/worker.py raise_if_cache_size_invalid) puts the cause on the config it ran, on the
// line of the key its fix changes, with that change as a quick fix that edits the config.
// The stand-in backbone (test/fixtures/backbone) runs the workflow, which raises the message.
import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, configCopy, extension, nextEvent, standInBackbone, workspaceRoot } from '../util';
import { companionFolder, readCompanions, stopCompanions } from '../../../core/launch/companions';

const WORKFLOW = [
  'class KvCacheWorkflow:',
  '    def __init__(self, name=None, **kwargs):',
  '        self.name = name',
  '',
  '    async def execute(self, workflow_task, tuner):',
  '        raise ValueError(',
  '            "The model\'s max seq len (8000) is larger than the maximum number of tokens that can be stored in KV cache (4096). "',
  '            "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."',
  '        )',
  '',
].join('\n');

suite('F5 failure causes in Problems', () => {
  const files: string[] = [];

  suiteSetup(async () => {
    await extension().activate();
  });

  suiteTeardown(async () => {
    for (const f of files) rmSync(f, { force: true });
    await stopCompanions(readCompanions(companionFolder(workspaceRoot().fsPath, 'saved_experiments')));
  });

  test('a failed F5 whose cause is diagnosed shows it in Problems on the config, with its quick fix', async () => {
    const root = workspaceRoot().fsPath;
    const workflow = join(root, 'kv_cache_workflow.py');
    writeFileSync(workflow, WORKFLOW);
    files.push(workflow);
    const config = await configCopy('exthost-cause.yaml', 'exthost_cause', 'kv_cache_workflow.py->KvCacheWorkflow');
    files.push(config.fsPath);
    // debugpy stops on the uncaught exception (its default filter): go on, as a user presses Continue.
    const tracker = vscode.debug.registerDebugAdapterTrackerFactory('agentjet', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: { threadId?: number } }) => {
          if (m.type === 'event' && m.event === 'stopped')
            void Promise.resolve(session.customRequest('continue', { threadId: m.body?.threadId ?? 0 })).catch(() => undefined);
        },
      }),
    });
    const find = () => vscode.languages.getDiagnostics(config).find((d) => d.source === 'agentjet' && d.code === 'cuda-oom');
    // Subscribed before the launch: the Problems may be set as the session ends.
    const inProblems = nextEvent(vscode.languages.onDidChangeDiagnostics, () => !!find(), 120_000, 'the cause in Problems');
    try {
      const started = nextEvent(vscode.debug.onDidStartDebugSession, (s) => s.type === 'agentjet', 30_000, 'the agentjet session');
      const ok = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0]!, {
        type: 'agentjet',
        request: 'launch',
        name: 'exthost: failing rollout',
        config: config.fsPath,
        python: TEST_PYTHON,
        env: { PYTHONPATH: standInBackbone() },
      });
      assert.equal(ok, true, 'startDebugging started the launch');
      const session = await started;
      await nextEvent(vscode.debug.onDidTerminateDebugSession, (s) => s.id === session.id, 90_000, 'the failed launch to end');
      await inProblems;
      const cause = find()!;
      const doc = await vscode.workspace.openTextDocument(config);
      const keyLine = doc
        .getText()
        .split('\n')
        .findIndex((l) => /^\s+max_model_len: 8000/.test(l));
      assert.ok(keyLine > 0);
      assert.equal(cause.range.start.line, keyLine, 'on the line of the key the fix changes');
      assert.equal(cause.severity, vscode.DiagnosticSeverity.Error);
      assert.match(cause.message, /KV cache holds 4096 tokens/);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', config, cause.range);
      const fix = actions.find((a) => a.title === 'Set ajet.rollout.max_model_len to 4096');
      assert.ok(fix?.edit, `the quick fix is offered: ${actions.map((a) => a.title).join(' | ')}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.match(doc.getText(), /^\s+max_model_len: 4096$/m);
      await doc.save();
    } finally {
      tracker.dispose();
    }
  });
});
