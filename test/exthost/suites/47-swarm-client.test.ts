// Debugging a swarm client in the real VS Code: the CodeLens on `SwarmClient("http://…")` offers
// "Debug this swarm client"; a server that is not there refuses the launch in the provider (our
// message, no launch.json dialog) and no session starts. The breakpoint against the real swarm
// server is test/protocol/swarm-debug.test.ts (it needs a loopback-only network namespace).
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, extension, workspaceRoot } from '../util';
import { AgentJetDebugConfigurationProvider } from '../../../extension/debug/provider';
import type { Refusal } from '../../../core/launch/lifecycle';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

suite('swarm client debugging', () => {
  suiteSetup(async () => {
    await extension().activate();
  });

  test('CodeLens "Debug this swarm client" on SwarmClient(...); an unreachable server refuses the launch, no session starts', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const file = join(workspaceRoot().fsPath, 'exthost_swarm_client.py');
    writeFileSync(file, `from ajet.tuner_lib.experimental.swarm_client import SwarmClient\n\nclient = SwarmClient("${url}")\n`);
    const uri = vscode.Uri.file(file);
    await vscode.workspace.openTextDocument(uri);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
    const debug = lenses.filter((l) => l.command?.command === 'agentjet.swarm.debugClient');
    assert.equal(debug.length, 1);
    assert.equal(debug[0]!.command!.title, 'Debug this swarm client');
    assert.equal(debug[0]!.range.start.line, 2);
    assert.equal((debug[0]!.command!.arguments?.[0] as vscode.Uri).fsPath, file);
    assert.equal(debug[0]!.command!.arguments?.[1], url);

    const seen: Refusal[] = [];
    const provider = new AgentJetDebugConfigurationProvider(extension().exports.services, (r) => seen.push(r));
    const config = { type: 'agentjet', request: 'launch', name: 'swarm client', swarmClient: file, python: TEST_PYTHON };
    const first = await provider.resolveDebugConfiguration(folder, { ...config });
    assert.equal(first?.cwd, folder.uri.fsPath, 'cwd: the workspace folder');
    const resolved = await provider.resolveDebugConfigurationWithSubstitutedVariables(folder, { ...config });
    assert.equal(resolved, undefined);
    assert.equal(seen.length, 1);
    assert.match(seen[0]!.message, new RegExp(`swarm server ${url.replace(/[.:/]/g, '\\$&')} is not reachable .*connection refused`));

    const started: vscode.DebugSession[] = [];
    const sub = vscode.debug.onDidStartDebugSession((s) => started.push(s));
    try {
      await vscode.workspace.getConfiguration('agentjet').update('pythonPath', TEST_PYTHON, vscode.ConfigurationTarget.Workspace);
      const ok = await vscode.commands.executeCommand<boolean>('agentjet.swarm.debugClient', uri, url);
      assert.equal(ok, false);
      assert.deepEqual(
        started.map((s) => s.name),
        [],
      );
    } finally {
      sub.dispose();
      await vscode.workspace.getConfiguration('agentjet').update('pythonPath', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
