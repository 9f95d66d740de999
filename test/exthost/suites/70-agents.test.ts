// The AgentJet tools through VS Code's language-model API (`vscode.lm.invokeTool`), as agent mode
// calls them, answer exactly what `agentjet mcp` answers over MCP for the same folder (the SDK's
// client, the server started as the MCP definition and the config command start it).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { extension, waitFor, workspaceRoot } from '../util';
import { AGENT_TOOLS } from '../../../core/agents/tools';

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
      AGENT_TOOLS.map((t) => t.name),
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
});
