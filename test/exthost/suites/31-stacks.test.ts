// Show Stacks on a running run of the Runs view: a real Python process holds the run's logger lock
// and has a child whose own thread waits in a named function. The process was started the way the
// editor's launches are (the faulthandler hook, core/launch/stackHook.ts), and no py-spy is on PATH:
// the report names where each waits, and its frames link to the file and line.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension, TEST_PYTHON, waitFor, workspaceRoot } from '../util';
import type { RunsTreeState } from '../../../extension/runs';
import { stackDumpEnv } from '../../../core/launch/stackHook';
import type { StackReport } from '../../../core/stacks/types';

const PROGRAM = `
import os, subprocess, sys, threading, time

def child_waits_in_thread():
    time.sleep(3600)

def parent_waits_for_child(p):
    os.waitpid(p.pid, 0)

if sys.argv[1] == 'child':
    threading.Thread(target=child_waits_in_thread, name='waiter', daemon=True).start()
    print('ready', flush=True)
    time.sleep(3600)
else:
    lock = sys.argv[2]
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    with open(lock, 'w') as f:
        f.write(str(os.getpid()))
    p = subprocess.Popen([sys.executable, __file__, 'child'])
    parent_waits_for_child(p)
`;

suite('show stacks', () => {
  let proc: ChildProcess | undefined;
  const exp = join(workspaceRoot().fsPath, 'saved_experiments', 'stacks_demo_20260202_1200');
  const program = join(exp, 'tree.py');

  suiteSetup(async () => {
    await extension().activate();
    await vscode.commands.executeCommand('workbench.view.extension.agentjet');
  });

  suiteTeardown(() => {
    if (proc?.pid)
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    rmSync(exp, { recursive: true, force: true });
  });

  test('a running run: every process of its tree, the function each waits in, frames linked to file:line', async () => {
    mkdirSync(exp, { recursive: true });
    writeFileSync(join(exp, 'yaml_backup.yaml'), 'ajet:\n  project_name: stacks_demo\n  experiment_name: stacks_demo_20260202_1200\n');
    writeFileSync(program, PROGRAM);
    const lock = join(exp, '2026_02_02_12_00', hostname(), '.logger_lock');
    const env = { ...process.env, ...(await stackDumpEnv(process.env)), PATH: '/usr/bin:/bin' };
    // The interpreter itself, not the venv's link to it: no py-spy beside it (the venv has one).
    proc = spawn(realpathSync(TEST_PYTHON), [program, 'parent', lock], { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let out = '';
    proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => out.includes('ready'), 'the child to start its thread', 30_000);
    await vscode.commands.executeCommand('agentjet.runs.refresh');
    await waitFor(
      async () => {
        const s: RunsTreeState = await extension().exports.testing.runs.treeState();
        return s.runs.some((r) => r.path === exp && r.status === 'running');
      },
      'the run to show as running',
      30_000,
      200,
    );
    const report = (await vscode.commands.executeCommand('agentjet.runs.showStacks', vscode.Uri.file(exp))) as StackReport | undefined;
    assert.ok(report, 'a report');
    assert.equal(report.processes.length, 2, JSON.stringify(report.processes.map((p) => [p.pid, p.error])));
    assert.ok(
      report.processes.every((p) => p.method === 'faulthandler' && !p.error),
      JSON.stringify(report.processes.map((p) => [p.method, p.error])),
    );
    const where = report.groups.map((g) => g.waitsIn);
    assert.ok(where.includes('child_waits_in_thread') && where.includes('parent_waits_for_child'), where.join(', '));
    // The document is open, and its frames are links to the file at the line.
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.scheme, 'agentjet-stacks');
    assert.match(doc.getText(), /process \d+, thread 0x[0-9a-f]+, waits in child_waits_in_thread/);
    const links = (await vscode.commands.executeCommand('vscode.executeLinkProvider', doc.uri)) as vscode.DocumentLink[];
    const toProgram = links.filter((l) => l.target?.fsPath === program);
    assert.ok(
      toProgram.some((l) => l.target?.fragment === 'L5'),
      toProgram.map((l) => l.target?.toString()).join(', '),
    );
    // Kept beside the run, where `agentjet stacks --last` and the agents' run summary read it.
    const kept = /Kept in (\S+\.json)/.exec(doc.getText())?.[1];
    assert.ok(kept && kept.startsWith(join(exp, '.agentjet-vscode', 'stacks')), doc.getText().slice(-300));
    assert.deepEqual((JSON.parse(readFileSync(kept, 'utf8')) as StackReport).groups, JSON.parse(JSON.stringify(report.groups)));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
