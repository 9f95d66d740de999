// The agentjet task type inside the real VS Code: tasks from tasks.json run the stand-in launcher
// (test/fixtures/backbone on PYTHONPATH) in our terminal, a workflow traceback becomes a Problem,
// and Terminate Task ends the launcher tree but leaves the companions (agentjet.stopCompanions ends them).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, configCopy, extension, nextEvent, standInBackbone, waitFor, workspaceRoot } from '../util';
import { companionFolder, readCompanions, stopCompanions } from '../../../core/launch/companions';
import { listProcesses } from '../../../core/launch/processes';

/** The agentjet task of tasks.json with this name, once VS Code lists it. */
function agentjetTask(name: string): Promise<vscode.Task> {
  return waitFor(
    async () => (await vscode.tasks.fetchTasks({ type: 'agentjet' })).find((t) => t.name === name),
    `the task '${name}'`,
    30_000,
    250,
  );
}

/** Runs a task to its end: the exit code of its process. */
async function runToEnd(task: vscode.Task): Promise<number | undefined> {
  const ended = nextEvent(vscode.tasks.onDidEndTaskProcess, (e) => e.execution.task.name === task.name, 60_000, 'the task to end');
  await vscode.tasks.executeTask(task);
  return (await ended).exitCode;
}

suite('tasks', () => {
  suiteSetup(async () => {
    await extension().activate();
    const root = workspaceRoot().fsPath;
    // Both tasks in one tasks.json, written once: the way a user keeps them.
    mkdirSync(join(root, '.vscode'), { recursive: true });
    writeFileSync(
      join(root, '.vscode', 'tasks.json'),
      JSON.stringify(
        {
          version: '2.0.0',
          tasks: [
            {
              type: 'agentjet',
              label: 'exthost: train verl',
              config: 'exthost-task.yaml',
              backbone: 'verl',
              withRay: true,
              python: TEST_PYTHON,
              env: { PYTHONPATH: standInBackbone() },
            },
            {
              type: 'agentjet',
              label: 'exthost: broken',
              config: 'exthost-broken.yaml',
              backbone: 'debug',
              python: TEST_PYTHON,
              env: { PYTHONPATH: standInBackbone() },
            },
            {
              type: 'agentjet',
              label: 'exthost: oom',
              config: 'exthost-oom.yaml',
              backbone: 'debug',
              python: TEST_PYTHON,
              env: { PYTHONPATH: standInBackbone() },
            },
            {
              type: 'agentjet',
              label: 'exthost: slow',
              config: 'exthost-slow.yaml',
              backbone: 'debug',
              python: TEST_PYTHON,
              env: { PYTHONPATH: standInBackbone() },
            },
          ],
        },
        null,
        2,
      ),
    );
  });

  suiteTeardown(async () => {
    await stopCompanions(readCompanions(companionFolder(workspaceRoot().fsPath, 'saved_experiments')));
  });

  test('a task of type agentjet runs the stand-in launcher to the end', async () => {
    await configCopy('exthost-task.yaml', 'exthost_task');
    const root = workspaceRoot().fsPath;
    const task = await agentjetTask('exthost: train verl');
    assert.ok(task.execution instanceof vscode.CustomExecution, 'resolved into our launcher terminal');
    assert.equal(await runToEnd(task), 0);
    const session = join(root, 'saved_experiments', 'exthost_task');
    assert.ok(existsSync(join(session, 'yaml_backup.yaml')), 'the stand-in wrote its run folder');
  });

  test('a workflow traceback in a task becomes a Problem', async () => {
    const root = workspaceRoot().fsPath;
    writeFileSync(
      join(root, 'broken_wf.py'),
      'from ajet import Workflow\n\n\nclass Broken(Workflow):\n    async def execute(self, workflow_task, tuner):\n        raise ValueError("boom in the workflow")\n',
    );
    await configCopy('exthost-broken.yaml', 'exthost_broken', 'broken_wf.py->Broken');
    assert.notEqual(await runToEnd(await agentjetTask('exthost: broken')), 0);
    const file = vscode.Uri.file(join(root, 'broken_wf.py'));
    const diags = await waitFor(
      () => {
        const d = vscode.languages.getDiagnostics(file);
        return d.length ? d : undefined;
      },
      'a Problem on broken_wf.py',
      15_000,
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; all problems: ${JSON.stringify(vscode.languages.getDiagnostics().map(([u, d]) => [u.toString(), d.map((x) => x.message)]))}`,
      );
    });
    assert.equal(diags[0]!.range.start.line, 5);
    assert.match(diags[0]!.message, /ValueError: boom in the workflow/);
    assert.equal(diags[0]!.source, 'agentjet');
  });
  test("a failed launch's cause is a Problem on the config's key, with the config edit as a quick fix (issue 41)", async () => {
    const root = workspaceRoot().fsPath;
    // torch's message (c10/cuda/CUDACachingAllocator.cpp), raised from the workflow.
    writeFileSync(
      join(root, 'oom_wf.py'),
      'from ajet import Workflow\n\n\nclass Oom(Workflow):\n    async def execute(self, workflow_task, tuner):\n        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.25 GiB")\n',
    );
    const config = await configCopy('exthost-oom.yaml', 'exthost_oom', 'oom_wf.py->Oom');
    const text = readFileSync(config.fsPath, 'utf8').replace(
      '    max_model_len: 8000\n',
      '    max_model_len: 8000\n    gpu_memory_utilization: 0.9\n',
    );
    writeFileSync(config.fsPath, text);
    const keyLine = text.split('\n').findIndex((l) => l.includes('gpu_memory_utilization: 0.9'));
    assert.notEqual(await runToEnd(await agentjetTask('exthost: oom')), 0);
    const diag = await waitFor(
      () => vscode.languages.getDiagnostics(config).find((d) => d.code === 'cuda-oom'),
      'a cuda-oom Problem on exthost-oom.yaml',
      15_000,
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; all problems: ${JSON.stringify(vscode.languages.getDiagnostics().map(([u, d]) => [u.toString(), d.map((x) => x.message)]))}`,
      );
    });
    assert.equal(diag.range.start.line, keyLine, 'on the line of the key the fix changes');
    assert.match(diag.message, /CUDA ran out of GPU memory/);
    const doc = await vscode.workspace.openTextDocument(config);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', config, diag.range);
    const fix = actions.find((a) => a.title === 'Set ajet.rollout.gpu_memory_utilization to 0.8');
    assert.ok(fix?.edit, `the quick fix is offered: ${actions.map((a) => a.title).join(' | ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(doc.getText(), /\n {4}gpu_memory_utilization: 0\.8\n/);
    await doc.save();
  });

  test('Terminate Task ends the launcher tree but leaves the companion; agentjet.stopCompanions ends that too', async () => {
    const root = workspaceRoot().fsPath;
    const marker = `exthost-slow-marker-${process.pid}`;
    writeFileSync(
      join(root, 'slow_wf.py'),
      [
        'import subprocess, sys, time',
        'from ajet import Workflow',
        'class Slow(Workflow):',
        '    async def execute(self, workflow_task, tuner):',
        `        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300) # ${marker}"], start_new_session=True)`,
        '        time.sleep(300)',
        '',
      ].join('\n'),
    );
    await configCopy('exthost-slow.yaml', 'exthost_slow', 'slow_wf.py->Slow');
    const task = await agentjetTask('exthost: slow');
    const ended = nextEvent(vscode.tasks.onDidEndTask, (e) => e.execution.task.name === 'exthost: slow', 60_000, 'the task to end');
    const execution = await vscode.tasks.executeTask(task);
    await waitFor(async () => (await listProcesses()).some((p) => p.args.includes(marker)), 'the workflow grandchild', 60_000, 200);
    execution.terminate();
    await ended;
    await waitFor(async () => !(await listProcesses()).some((p) => p.args.includes(marker)), 'the grandchild to be gone', 20_000, 200);
    const companions = () => readCompanions(companionFolder(root, 'saved_experiments')).filter((c) => c.alive);
    assert.ok(companions().length > 0, 'companions stay up after Terminate');
    const stopped = await vscode.commands.executeCommand<number>('agentjet.stopCompanions');
    assert.ok(stopped > 0);
    await waitFor(() => companions().length === 0, 'no live companion', 10_000);
  });
});
