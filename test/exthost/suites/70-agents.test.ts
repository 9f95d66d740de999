// The AgentJet tools through VS Code's language-model API (`vscode.lm.invokeTool`), as agent mode
// calls them, answer exactly what `agentjet mcp` answers over MCP for the same folder (the SDK's
// client, the server started as the MCP definition and the config command start it).
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { extension, waitFor, workspaceRoot } from '../util';
import { ACT_TOOLS, AGENT_TOOLS } from '../../../core/agents/tools';
import { listProcesses } from '../../../core/launch/processes';

interface LmPart {
  value?: unknown;
}
interface Lm {
  tools?: readonly { name: string }[];
  invokeTool(
    name: string,
    options: { input: object; toolInvocationToken: undefined },
    token?: vscode.CancellationToken,
  ): Thenable<{ content: LmPart[] }>;
}
const lm = (vscode as unknown as { lm?: Lm }).lm;

const textOf = (r: { content: LmPart[] }) => r.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('');

suite('agents: language-model tools', () => {
  let client: Client | undefined;
  let pid: number | undefined;

  suiteSetup(async function () {
    await extension().activate();
    if (!lm?.invokeTool) this.skip();
    const root = workspaceRoot().fsPath;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(extension().extensionPath, 'dist', 'cli.js'),
        'mcp',
        '--root',
        root,
        vscode.workspace.isTrusted ? '--trust-folder' : '--no-python',
      ],
      env: { ...(process.env as Record<string, string>), ELECTRON_RUN_AS_NODE: '1' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'exthost-test', version: '0' });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  });

  suiteTeardown(async () => {
    await client?.close();
    if (pid !== undefined)
      await waitFor(() => {
        try {
          process.kill(pid!, 0);
          return false;
        } catch {
          return true;
        }
      }, 'the MCP server to exit');
  });

  const mcp = async (name: string, args: Record<string, unknown>) => {
    const r = await client!.callTool({ name, arguments: args });
    return { text: (r.content as { text: string }[])[0]!.text, isError: r.isError === true };
  };

  test('every AgentJet tool is registered with vscode.lm', async () => {
    assert.deepEqual(
      [...extension().exports.testing.agents.registered],
      [...AGENT_TOOLS, ...ACT_TOOLS].map((t) => t.name),
    );
    const names = await waitFor(() => {
      const n = (lm!.tools ?? []).map((t) => t.name);
      return AGENT_TOOLS.every((t) => n.includes(t.name)) && n;
    }, 'the tools in vscode.lm.tools');
    assert.ok(names.includes('agentjet_run_summary'));
  });

  for (const [name, input] of [
    ['agentjet_runs', {}],
    ['agentjet_run_summary', { path: 'saved_experiments/math_demo_lr_sweep_20260104_1530' }],
    ['agentjet_log_stats', { path: 'saved_experiments/math_demo_20260103_1010' }],
    ['agentjet_log_search', { path: 'saved_experiments/math_demo_20260103_1010', query: 'answer', limit: 5 }],
  ] as const) {
    test(`${name} through vscode.lm.invokeTool answers what agentjet mcp answers`, async () => {
      const viaVsCode = textOf(await lm!.invokeTool(name, { input, toolInvocationToken: undefined }));
      const viaMcp = await mcp(name, input);
      assert.equal(viaMcp.isError, false, viaMcp.text);
      assert.ok(viaVsCode.length > 20, viaVsCode);
      assert.equal(viaVsCode, viaMcp.text);
    });
  }

  test('a path outside the folder: the same refusal both ways (an error for the model)', async () => {
    const viaMcp = await mcp('agentjet_lint', { path: '/etc/hostname' });
    assert.equal(viaMcp.isError, true);
    await assert.rejects(
      Promise.resolve(lm!.invokeTool('agentjet_lint', { input: { path: '/etc/hostname' }, toolInvocationToken: undefined })),
      (err: Error) => err.message.includes(viaMcp.text),
    );
  });

  // VS Code answers a tool's confirmation itself in extension tests (its dialogs are skipped and
  // read as yes), so the question is read where VS Code reads it, from the registered tool, and the
  // refusal is VS Code not calling invoke: asking must itself have started nothing.
  test('an acting tool asks first, saying what runs with which interpreter and GPUs; refused, it runs nothing', async () => {
    const root = workspaceRoot().fsPath;
    const runs = () => (existsSync(join(root, 'saved_experiments')) ? readdirSync(join(root, 'saved_experiments')).sort() : []);
    const before = runs();
    const agents = extension().exports.testing.agents;
    const started = agents.actingStarted();
    const train = agents.acting.get('agentjet_train');
    assert.ok(train, 'agentjet_train is an acting tool of this window');
    const source = new vscode.CancellationTokenSource();
    const asked = await train.prepareInvocation({ input: { config: 'math_agent.yaml', backbone: 'verl' } }, source.token);
    const q = asked.confirmationMessages;
    assert.ok(q, 'it asks for confirmation');
    assert.match(q.title, /Start training math_agent\.yaml \(verl\)\?/);
    assert.match(q.message, /-m ajet\.launcher --backbone verl --conf math_agent\.yaml/);
    assert.match(q.message, /^agentjet_train runs `\S*python\S*/, 'the interpreter that will run');
    assert.match(q.message, /GPUs: (\S+|all GPUs of this machine \(CUDA_VISIBLE_DEVICES is not set\))/);
    // Every acting tool asks.
    for (const [name, input] of [
      ['agentjet_wait', { path: 'saved_experiments' }],
      ['agentjet_apply_fix', { path: 'math_agent.yaml', line: 3 }],
      ['agentjet_debug_task', { config: 'math_agent.yaml', taskId: 'demo-000' }],
      ['agentjet_stop', { run: 'launch-1' }],
    ] as const)
      assert.ok((await agents.acting.get(name)!.prepareInvocation({ input }, source.token)).confirmationMessages?.title, name);
    // Refused (invoke never called): asking started nothing, no run folder, no launcher.
    assert.equal(agents.actingStarted(), started);
    assert.deepEqual(runs(), before);
    const launchers = (await listProcesses()).filter((p) => p.args.includes('ajet.launcher') && p.args.includes(root));
    assert.deepEqual(launchers, []);
  });

  test('agentjet_apply_fix through vscode.lm.invokeTool is a WorkspaceEdit: the file is fixed and saved, Undo takes it back', async () => {
    const file = join(workspaceRoot().fsPath, 'agent_typo.yaml');
    const typo = 'ajet:\n  project_name: typo\n  rollout:\n    max_env_workr: 4\n';
    writeFileSync(file, typo);
    try {
      const answer = JSON.parse(
        textOf(await lm!.invokeTool('agentjet_apply_fix', { input: { path: 'agent_typo.yaml', line: 4 }, toolInvocationToken: undefined })),
      ) as { applied: string; diagnostics: { code: string }[] };
      assert.ok(!answer.diagnostics.some((d) => d.code === 'unknown-key'), JSON.stringify(answer));
      assert.match(readFileSync(file, 'utf8'), /^ {4}max_env_worker: 4$/m);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      assert.equal(doc.isDirty, false, 'saved');
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await waitFor(() => doc.getText() === typo, 'Undo to take the fix back');
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      rmSync(file, { force: true });
    }
  });
});
