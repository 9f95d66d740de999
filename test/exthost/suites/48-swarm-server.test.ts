// Start Local Swarm Server runs `ajet-swarm start` under the launch owner, as every launch of the
// extension: Terminate Task (what Stop Server does after its question) ends the server's whole
// tree, a child that left the server's process group too (the real server's Ray and vLLM do). The
// stand-in `ajet.swarm_cli` (test/fixtures/backbone) serves /health from such a child. Before the
// owner (a plain process task) that child was left serving.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, extension, freePort, nextEvent, standInBackbone, waitFor, workspaceRoot } from '../util';
import { listProcesses, type ProcInfo } from '../../../core/launch/processes';

function health(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

suite('swarm server started from the editor', () => {
  suiteSetup(async () => {
    await extension().activate();
  });

  test('Start Local Swarm Server: Terminate Task ends its whole tree, a child in a process group of its own too', async () => {
    const root = workspaceRoot().fsPath;
    const envFile = join(root, '.env');
    // The folder's .env puts the stand-in on the path, as a user's .env would set what the server
    // needs; an earlier suite's .env (40-debug writes one) is put back afterwards.
    const earlierEnv = existsSync(envFile) ? readFileSync(envFile, 'utf8') : undefined;
    writeFileSync(envFile, `PYTHONPATH=${standInBackbone()}\n`);
    const cfg = vscode.workspace.getConfiguration('agentjet');
    await cfg.update('pythonPath', TEST_PYTHON, vscode.ConfigurationTarget.Workspace);
    const port = await freePort();
    const ours = async (): Promise<ProcInfo[]> =>
      (await listProcesses()).filter(
        (p) =>
          (p.args.includes('ajet.swarm_cli') && p.args.includes(String(port))) ||
          (p.args.includes('HTTPServer') && p.args.trimEnd().endsWith(` ${port}`)),
      );
    let left: ProcInfo[] = [];
    try {
      const started = nextEvent(
        vscode.tasks.onDidStartTask,
        (e) => e.execution.task.definition.type === 'agentjet-swarm',
        30_000,
        'the swarm server task',
      );
      await vscode.commands.executeCommand('agentjet.swarm.startServer', undefined, { port });
      const exec = (await started).execution;
      await waitFor(() => health(port), 'the server to answer /health', 60_000, 200);
      const running = await ours();
      assert.equal(running.length, 2, running.map((p) => p.args).join(' | '));
      assert.notEqual(running[0]!.pgid, running[1]!.pgid, 'the engine child left the server process group');
      const ended = nextEvent(vscode.tasks.onDidEndTask, (e) => e.execution === exec, 30_000, 'the task to end');
      exec.terminate();
      await ended;
      await waitFor(
        async () => (left = await ours()).length === 0,
        () => `nothing of the server left after Terminate: ${left.map((p) => `${p.pid} ${p.args}`).join(' | ')}`,
        20_000,
        200,
      );
      assert.equal(await health(port), false, 'the port answers no more');
    } finally {
      for (const p of await ours()) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      if (earlierEnv === undefined) rmSync(envFile, { force: true });
      else writeFileSync(envFile, earlierEnv);
      await cfg.update('pythonPath', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
