// Ray debugging in the extension host: the bp() CodeLens, debugTags completion in launch.json, and
// the Paused workers "Attach" action against a real debugpy listener (Debian's debugpy, opened the
// way Ray's debugger opens it: debugpy.listen + wait_for_client + a breakpoint). The full flow on
// the real Ray is in test/ui/ray.test.ts and test/protocol/ray.test.ts.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension, nextEvent, waitFor, workspaceRoot } from '../util';
import type { PausedWorker } from '../../../core/ray/types';

const PYTHON = '/usr/bin/python3';

suite('Ray debugging', () => {
  const root = (): string => workspaceRoot().fsPath;
  const made: string[] = [];
  let listener: ChildProcess | undefined;

  suiteSetup(async () => {
    await extension().activate();
  });
  suiteTeardown(async () => {
    try {
      if (listener?.pid) process.kill(listener.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    for (const p of made) rmSync(p, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('each bp("TAG") call in a Python file gets a "Debug training with this tag" CodeLens', async () => {
    const file = join(root(), 'ray_bp_lens.py');
    made.push(file);
    writeFileSync(file, 'from ajet import bp\n\ndef rollout(x):\n    bp("ROLLOUT")\n    # bp("OFF")\n    return x\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(uri);
    const lenses = await waitFor(async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      return l.filter((c) => c.command?.command === 'agentjet.ray.debugWithTag').length
        ? l.filter((c) => c.command?.command === 'agentjet.ray.debugWithTag')
        : undefined;
    }, 'the bp CodeLens');
    assert.equal(lenses.length, 1, 'the commented-out call has none');
    assert.equal(lenses[0]!.range.start.line, 3);
    assert.equal(lenses[0]!.command!.title, 'Debug training with this tag');
    assert.deepEqual(lenses[0]!.command!.arguments?.[0], 'ROLLOUT');
  });

  test('an AgentJet config gets a "Train with editor breakpoints (Ray workers)" CodeLens on its root key', async () => {
    const file = join(root(), 'ray_lens_config.yaml');
    made.push(file);
    writeFileSync(file, '# training\najet:\n  project_name: p\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(uri);
    const lenses = await waitFor(async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      const ray = l.filter((c) => c.command?.command === 'agentjet.ray.debugWithBreakpoints');
      return ray.length ? ray : undefined;
    }, 'the Ray breakpoints CodeLens');
    assert.equal(lenses.length, 1);
    assert.equal(lenses[0]!.range.start.line, 1);
    assert.match(lenses[0]!.command!.title, /Train with editor breakpoints \(Ray workers\)/);
    assert.equal((lenses[0]!.command!.arguments?.[0] as vscode.Uri).fsPath, uri.fsPath);
  });

  test('inside "debugTags" of launch.json, completion offers the workspace\'s bp() tags', async () => {
    const dir = join(root(), '.vscode');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'launch.json');
    made.push(file);
    const text = '{\n  "configurations": [{ "type": "agentjet", "request": "launch", "name": "x", "config": "c.yaml", "debugTags": [';
    writeFileSync(file, `${text}] }]\n}\n`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = doc.positionAt(text.length);
    const list = await waitFor(async () => {
      const r = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, pos);
      return r.items.some((i) => (typeof i.label === 'string' ? i.label : i.label.label) === 'ROLLOUT') ? r : undefined;
    }, 'the ROLLOUT completion');
    const item = list.items.find((i) => (typeof i.label === 'string' ? i.label : i.label.label) === 'ROLLOUT')!;
    assert.equal(item.insertText, '"ROLLOUT"');
  });

  test("Attach on a paused worker starts an agentjet attach session that stops at the worker's breakpoint; Stop detaches", async () => {
    const script = join(root(), 'ray_like_worker.py');
    made.push(script);
    writeFileSync(
      script,
      [
        'import debugpy, sys',
        '(host, port) = debugpy.listen(("127.0.0.1", 0))',
        'print("Ray debugger is listening on %s:%d" % (host, port), flush=True)',
        'debugpy.wait_for_client()',
        'reward = 0.5',
        'debugpy.breakpoint()',
        'print("resumed", reward, flush=True)',
        '',
      ].join('\n'),
    );
    listener = spawn(PYTHON, ['-u', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    listener.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
    });
    const m = await waitFor(() => /listening on ([\d.]+):(\d+)/.exec(out) ?? undefined, 'the listener line');
    const worker: PausedWorker = {
      id: 'test',
      source: 'log',
      name: 'rollout',
      role: 'task',
      node: '127.0.0.1',
      pid: listener.pid,
      workerId: 'w',
      host: m[1]!,
      port: Number(m[2]),
      kind: 'unknown',
      tag: undefined,
      since: Date.now(),
      origin: 'exthost test',
    };
    const started = nextEvent(
      vscode.debug.onDidStartDebugSession,
      (s) => s.configuration.request === 'attach',
      30_000,
      'the attach session',
    );
    const ok = await vscode.commands.executeCommand<boolean>('agentjet.ray.attach', worker);
    assert.equal(ok, true);
    const session = await started;
    assert.equal(session.type, 'agentjet');
    assert.deepEqual(session.configuration.connect, { host: '127.0.0.1', port: Number(m[2]) });
    await waitFor(() => vscode.debug.activeStackItem instanceof vscode.DebugStackFrame || undefined, 'a stopped frame', 30_000);
    const ended = nextEvent(vscode.debug.onDidTerminateDebugSession, (s) => s.id === session.id, 30_000, 'the session to end');
    await vscode.debug.stopDebugging(session);
    await ended;
    await waitFor(() => out.includes('resumed 0.5'), 'the worker to go on after the detach', 30_000);
  });

  test('with agentjet.ray.dashboardAddress set, the visible view lists paused workers from a STAND-IN dashboard (state API shapes of Ray 2.58)', async () => {
    // Stand-in for Ray's dashboard (it cannot run on the test machines): fixed state-API answers.
    const rows = (r: unknown[]): string => JSON.stringify({ result: true, msg: '', data: { result: { total: r.length, result: r } } });
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (path === '/api/v0/workers')
        res.end(
          rows([
            {
              worker_id: 'wk1',
              is_alive: true,
              node_id: 'node-abc',
              ip: '10.1.2.3',
              pid: 999,
              debugger_port: 50123,
              num_paused_threads: 1,
            },
          ]),
        );
      else if (path === '/api/v0/tasks')
        res.end(
          rows([{ name: 'Learner.step', actor_id: 'a', worker_id: 'wk1', is_debugger_paused: true, start_time_ms: Date.now() - 5000 }]),
        );
      else res.end(rows([]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address();
    const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const cfg = vscode.workspace.getConfiguration('agentjet');
    try {
      await cfg.update('ray.dashboardAddress', url, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('agentjet.rayPaused.focus');
      const listed = await waitFor(
        async () => {
          const all: PausedWorker[] = extension().exports.testing.ray.pausedWorkers();
          return all.find((w) => w.port === 50123);
        },
        "the stand-in dashboard's paused worker in the view",
        20_000,
      );
      assert.deepEqual(
        { name: listed.name, role: listed.role, host: listed.host, pid: listed.pid, source: listed.source, origin: listed.origin },
        { name: 'Learner.step', role: 'actor', host: '10.1.2.3', pid: 999, source: 'state-api', origin: url },
      );
    } finally {
      await cfg.update('ray.dashboardAddress', undefined, vscode.ConfigurationTarget.Workspace);
      server.closeAllConnections();
      server.close();
    }
  });
});
