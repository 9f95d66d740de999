// AgentJet: New Project inside the real VS Code: each template's project lints with zero problems
// and its own launch configuration (the one F5 runs) stops at a breakpoint in the generated workflow,
// against the test backbone (test/fixtures/backbone on PYTHONPATH) and Debian's debugpy.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension, freePort, nextEvent, note, standInBackbone, waitFor, watchAgentjetAdapter, workspaceRoot } from '../util';
import { TEMPLATES, renderTemplate } from '../../../core/templates';
import { lintFile } from '../../../core/config/lint';
import { companionFolder, readCompanions, stopCompanions } from '../../../core/launch/companions';

const PYTHON = '/usr/bin/python3';

interface LaunchJson {
  configurations: Array<Record<string, unknown> & { name: string; config: string; cwd: string }>;
}

suite('new project', () => {
  suiteSetup(async () => {
    await extension().activate();
  });

  for (const tpl of TEMPLATES) {
    test(`New Project (${tpl.id}): zero problems, then the debug rollout stops in the generated workflow`, async () => {
      const sub = `new-${tpl.id}`;
      const dir = join(workspaceRoot().fsPath, sub);
      const created = await vscode.commands.executeCommand<vscode.Uri | undefined>('agentjet.newProject', {
        template: tpl.id,
        folder: dir,
        open: false,
      });
      assert.equal(created?.fsPath, dir);
      for (const rel of Object.keys(renderTemplate(tpl.id, sub))) assert.ok(existsSync(join(dir, rel)), `${rel} written`);
      // The command opened the workflow for editing.
      await waitFor(
        () => vscode.window.activeTextEditor?.document.uri.fsPath === join(dir, tpl.workflowFile),
        'the workflow editor',
        10_000,
      );
      assert.deepEqual(await lintFile(join(dir, 'config.yaml'), { root: dir }), []);
      // A second run refuses to overwrite.
      const again = await vscode.commands.executeCommand<vscode.Uri | undefined>('agentjet.newProject', {
        template: tpl.id,
        folder: dir,
        open: false,
      });
      assert.equal(again, undefined);

      // A port of our own (other runs may hold 18000), then the project's own launch configuration.
      const port = await freePort();
      const configFile = join(dir, 'config.yaml');
      writeFileSync(
        configFile,
        readFileSync(configFile, 'utf8').replace('debug_first_n_tasks: 2', `debug_first_n_tasks: 1\n    debug_vllm_port: ${port}`),
      );
      const launch = JSON.parse(readFileSync(join(dir, '.vscode', 'launch.json'), 'utf8')) as LaunchJson;
      const generated = launch.configurations[0]!;
      assert.equal(generated.type, 'agentjet');
      // The project is a sub-folder of the opened workspace here: point ${workspaceFolder} at it.
      const inSub = (v: string) => v.replace('${workspaceFolder}', `\${workspaceFolder}/${sub}`);
      const debugConfig: vscode.DebugConfiguration = {
        ...generated,
        type: 'agentjet',
        request: 'launch',
        name: generated.name,
        config: inSub(generated.config),
        cwd: inSub(generated.cwd),
        python: PYTHON,
        env: { PYTHONPATH: standInBackbone() },
      };

      const workflow = vscode.Uri.file(join(dir, tpl.workflowFile));
      const lines = readFileSync(workflow.fsPath, 'utf8').split('\n');
      const line = lines.findIndex((l) => l.includes('async def execute(')) + 1; // first statement of execute
      assert.ok(line > 0 && lines[line]!.trim().length > 0);
      const bp = new vscode.SourceBreakpoint(new vscode.Location(workflow, new vscode.Position(line, 0)));
      vscode.debug.addBreakpoints([bp]);
      const watch = watchAgentjetAdapter();
      const { stops, problems } = watch;
      try {
        const started = nextEvent(vscode.debug.onDidStartDebugSession, (s) => s.type === 'agentjet', 30_000, 'the agentjet session');
        const ok = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], debugConfig);
        assert.equal(ok, true, `startDebugging refused: ${problems.join(' | ')}`);
        const session = await started;
        const { threadId } = await waitFor(() => stops[0] ?? false, 'a breakpoint stop', 90_000).catch((e: Error) => {
          throw new Error(`${e.message}; output: ${problems.join('').slice(-1500)}`);
        });
        const trace = (await session.customRequest('stackTrace', { threadId })) as {
          stackFrames: { name: string; line: number; source?: { path?: string } }[];
        };
        const top = trace.stackFrames[0]!;
        assert.equal(top.name, 'execute');
        assert.equal(top.line, line + 1);
        const path = top.source?.path ?? '';
        assert.equal(path.includes('://') ? vscode.Uri.parse(path).path : path, workflow.path);
        note(`${tpl.id}: stopped at ${tpl.workflowFile}:${top.line}`);
        const ended = nextEvent(vscode.debug.onDidTerminateDebugSession, (s) => s.id === session.id, 60_000, 'the session to end');
        await vscode.debug.stopDebugging(session);
        await ended;
      } finally {
        watch.dispose();
        vscode.debug.removeBreakpoints([bp]);
        await stopCompanions(readCompanions(companionFolder(dir, 'saved_experiments')));
      }
    });
  }

  test('the scaffold quick fixes create a missing workflow class in its module and a judge in a new module', async () => {
    const root = workspaceRoot().fsPath;
    const configFile = join(root, 'scaffold.yaml');
    const files = renderTemplate('math', 'scaffold');
    const text = files['config.yaml']!.replace('math_agent.workflow->MathWorkflow', 'math_demo.workflow->BrandNewWorkflow').replace(
      'math_agent.judge->MathAnswerJudge',
      'scaffolded_judges->BrandNewJudge',
    );
    writeFileSync(configFile, text);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(configFile));
    await vscode.window.showTextDocument(doc);
    const codeOf = (d: vscode.Diagnostic) => String(typeof d.code === 'object' ? d.code.value : d.code);
    const scaffoldable = () => vscode.languages.getDiagnostics(doc.uri).filter((d) => codeOf(d).startsWith('class-ref/missing-'));
    const diags = await waitFor(() => scaffoldable().length === 2 && scaffoldable(), 'the two class-reference diagnostics', 30_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}; got ${JSON.stringify(vscode.languages.getDiagnostics(doc.uri).map((d) => [codeOf(d), d.message]))}`);
      },
    );
    const titles: string[] = [];
    for (const d of diags) {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        doc.uri,
        d.range,
        vscode.CodeActionKind.QuickFix.value,
      );
      const fix = actions.find((a) => /^Create (workflow|judge) class BrandNew/.test(a.title));
      assert.ok(fix?.edit, `actions for ${codeOf(d)}: ${actions.map((a) => a.title).join(', ')}`);
      titles.push(fix.title);
      assert.equal(await vscode.workspace.applyEdit(fix.edit), true);
    }
    assert.deepEqual(titles.sort(), [
      'Create judge class BrandNewJudge in scaffolded_judges.py',
      'Create workflow class BrandNewWorkflow in math_demo/workflow.py',
    ]);
    const wf = await vscode.workspace.openTextDocument(vscode.Uri.file(join(root, 'math_demo', 'workflow.py')));
    assert.match(
      wf.getText(),
      /class BrandNewWorkflow\(Workflow\):\n[\s\S]*async def execute\(self, workflow_task: WorkflowTask, tuner: AjetTuner\) -> WorkflowOutput:/,
    );
    await wf.save();
    const judge = await vscode.workspace.openTextDocument(vscode.Uri.file(join(root, 'scaffolded_judges.py')));
    await judge.save();
    assert.match(
      readFileSync(join(root, 'scaffolded_judges.py'), 'utf8'),
      /class BrandNewJudge:[\s\S]*def compute_reward\(self, workflow_task, workflow_output\)/,
    );
    // The server re-checks on an edit of the config; its file cache lives ~2 s, so a re-check right
    // after the previous one may still see the old files: edit again until both problems are gone.
    let n = 0;
    await waitFor(
      async () => {
        if (scaffoldable().length === 0) return true;
        const changed = nextEvent(
          vscode.languages.onDidChangeDiagnostics,
          (e) => e.uris.some((u) => u.toString() === doc.uri.toString()),
          5_000,
          'a re-check',
        ).catch(() => undefined);
        const edit = new vscode.WorkspaceEdit();
        edit.insert(doc.uri, new vscode.Position(0, 0), `# scaffolded ${n++}\n`);
        await vscode.workspace.applyEdit(edit);
        await changed;
        return false;
      },
      () => `the diagnostics to go away; still ${JSON.stringify(scaffoldable().map((d) => d.message))}`,
      30_000,
      0,
    );
    await doc.save();
  });
});
