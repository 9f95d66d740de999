// The agentjet debug type inside the real VS Code (F5, Run, CodeLens, configurations, refusals, child sessions), against
// real debugpy (the tests' pip venv) and the stand-in backbone (test/fixtures/backbone) on PYTHONPATH. Tasks: 41-tasks.test.ts.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TEST_PYTHON, configCopy, extension, nextEvent, standInBackbone, waitFor, watchAgentjetAdapter, workspaceRoot } from '../util';
import { companionFolder, readCompanions, stopCompanions } from '../../../core/launch/companions';
import { AgentJetDebugConfigurationProvider } from '../../../extension/debug/provider';

suite('debug and launch', () => {
  suiteSetup(async () => {
    await extension().activate();
  });

  suiteTeardown(async () => {
    await stopCompanions(readCompanions(companionFolder(workspaceRoot().fsPath, 'saved_experiments')));
  });

  test('startDebugging an agentjet configuration stops at a workflow breakpoint, then runs to the end', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const config = await configCopy('exthost-debug.yaml', 'exthost_debug');
    const workflow = vscode.Uri.joinPath(workspaceRoot(), 'math_demo', 'workflow.py');
    const line = readFileSync(workflow.fsPath, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('answer = reply.choices'));
    assert.ok(line > 0);
    const bp = new vscode.SourceBreakpoint(new vscode.Location(workflow, new vscode.Position(line, 0)));
    vscode.debug.addBreakpoints([bp]);
    const watch = watchAgentjetAdapter();
    const { stops, problems } = watch;
    try {
      const started = nextEvent(vscode.debug.onDidStartDebugSession, (s) => s.type === 'agentjet', 30_000, 'the agentjet session');
      const activeFrame = nextEvent(
        vscode.debug.onDidChangeActiveStackItem,
        (i) => i instanceof vscode.DebugStackFrame,
        90_000,
        'the debugger to stop',
      );
      const ok = await vscode.debug.startDebugging(folder, {
        type: 'agentjet',
        request: 'launch',
        name: 'exthost: debug rollout',
        config: '${workspaceFolder}/exthost-debug.yaml',
        python: TEST_PYTHON,
        env: { PYTHONPATH: standInBackbone() },
      });
      assert.equal(ok, true, `startDebugging refused the configuration: ${problems.join(' | ')}`);
      const session = await started;
      await activeFrame;
      const stop = await waitFor(() => stops[0], 'a breakpoint stop', 30_000);
      const trace = (await session.customRequest('stackTrace', { threadId: stop.threadId })) as {
        stackFrames: { name: string; line: number; source?: { path?: string } }[];
      };
      assert.equal(trace.stackFrames[0]!.name, 'execute');
      assert.equal(trace.stackFrames[0]!.line, line + 1);
      // Remote workbenches hand source paths back as vscode-remote URIs.
      const path = trace.stackFrames[0]!.source?.path ?? '';
      assert.equal(path.includes('://') ? vscode.Uri.parse(path).path : path, workflow.path);
      vscode.debug.removeBreakpoints([bp]);
      const ended = nextEvent(vscode.debug.onDidTerminateDebugSession, (s) => s.id === session.id, 60_000, 'the session to end');
      await session.customRequest('continue', { threadId: stop.threadId });
      await ended;
      assert.ok(
        existsSync(join(workspaceRoot().fsPath, 'saved_experiments', 'exthost_debug', 'yaml_backup.yaml')),
        'the run folder exists',
      );
      void config;
    } finally {
      watch.dispose();
      vscode.debug.removeBreakpoints([bp]);
    }
  });

  test('CodeLens on an AgentJet config offers Debug rollout and both trainings; not on other YAML', async () => {
    const config = (await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceRoot(), 'math_agent.yaml'))).uri;
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', config, 100);
    // In this order: the advanced Ray lens last (it came first when a second provider drew it).
    const ours = lenses.filter((l) => l.command?.command.startsWith('agentjet.'));
    assert.deepEqual(
      ours.map((l) => l.command!.title.replace(/^\$\([\w-]+\) /, '')),
      ['Debug rollout', 'Run rollout', 'Train (verl)', 'Train (trinity)', 'Train with editor breakpoints (Ray workers)'],
    );
    assert.deepEqual(ours[2]!.command!.arguments?.[1], 'verl');
    const text = readFileSync(config.fsPath, 'utf8').split('\n');
    assert.equal(
      ours[0]!.range.start.line,
      text.findIndex((l) => l.startsWith('ajet:')),
    );
    writeFileSync(join(workspaceRoot().fsPath, 'not-agentjet.yaml'), 'name: something else\nsteps: [1, 2]\n');
    const other = (await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceRoot(), 'not-agentjet.yaml'))).uri;
    const none = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', other, 100);
    assert.equal(none.filter((l) => l.command?.command.startsWith('agentjet.')).length, 0);
  });

  test('agentjet.runConfig on the open config runs it without the debugger, with agentjet.pythonPath and .env', async () => {
    const root = workspaceRoot().fsPath;
    const config = await configCopy('exthost-run.yaml', 'exthost_run');
    // The interpreter comes from the setting, PYTHONPATH from the default envFile (.env).
    await vscode.workspace.getConfiguration('agentjet').update('pythonPath', TEST_PYTHON, vscode.ConfigurationTarget.Workspace);
    writeFileSync(join(root, '.env'), `# for the stand-in backbone\nPYTHONPATH=${standInBackbone()}\n`);
    await vscode.window.showTextDocument(config);
    const watch = watchAgentjetAdapter();
    const { exits } = watch;
    try {
      const ended = nextEvent(vscode.debug.onDidTerminateDebugSession, (s) => s.type === 'agentjet', 60_000, 'the run to end');
      const ok = await vscode.commands.executeCommand<boolean>('agentjet.runConfig');
      assert.equal(ok, true);
      const session = await ended;
      assert.equal(session.configuration.noDebug, true);
      assert.equal(session.configuration.python, TEST_PYTHON);
      assert.deepEqual(exits, [0]);
      assert.ok(existsSync(join(root, 'saved_experiments', 'exthost_run', 'yaml_backup.yaml')));
    } finally {
      watch.dispose();
      await vscode.workspace.getConfiguration('agentjet').update('pythonPath', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
  test('with openTokenLogOnFinish the rollout log opens when the run ends (Runs/log features may be absent)', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    await configCopy('exthost-log.yaml', 'exthost_log');
    const tabs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some((t) => {
          const input = t.input as { uri?: vscode.Uri } | undefined;
          return !!input?.uri && /exthost_log\/.*rollout\.json\.log$/.test(input.uri.path);
        });
    const ok = await vscode.debug.startDebugging(
      folder,
      {
        type: 'agentjet',
        request: 'launch',
        name: 'exthost: log',
        noDebug: true,
        openTokenLogOnFinish: true,
        config: '${workspaceFolder}/exthost-log.yaml',
        python: TEST_PYTHON,
        env: { PYTHONPATH: standInBackbone() },
      },
      { noDebug: true },
    );
    assert.equal(ok, true);
    // Either a custom editor (token log feature) or a text editor shows it.
    await waitFor(tabs, 'a tab with the rollout log', 60_000);
  });

  test('configurations: one per AgentJet config in the workspace; F5 with no launch.json debugs the open config', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    writeFileSync(join(folder.uri.fsPath, 'plain.yaml'), 'name: not a config\n');
    const provider = new AgentJetDebugConfigurationProvider(extension().exports.services);
    const configs = await provider.provideDebugConfigurations(folder);
    const names = configs.map((c) => String(c.config));
    assert.ok(names.includes('${workspaceFolder}/math_agent.yaml'), names.join(', '));
    assert.ok(!names.some((n) => n.endsWith('plain.yaml')));
    assert.ok(configs.every((c) => c.type === 'agentjet' && c.request === 'launch' && c.backbone === 'debug'));
    await vscode.window.showTextDocument(vscode.Uri.joinPath(workspaceRoot(), 'math_agent.yaml'));
    const resolved = await provider.resolveDebugConfiguration(folder, { type: '', request: '', name: '' });
    assert.equal(resolved?.type, 'agentjet');
    assert.equal(resolved?.config, '${workspaceFolder}/math_agent.yaml');
    assert.equal(resolved?.cwd, '${workspaceFolder}');
    assert.notEqual(resolved?.noDebug, true, 'F5 debugs');
    // Ctrl+F5 (Debug: Start Without Debugging) hands in noDebug: the fresh configuration keeps it.
    const plain = await provider.resolveDebugConfiguration(folder, { type: '', request: '', name: '', noDebug: true });
    assert.equal(plain?.config, '${workspaceFolder}/math_agent.yaml');
    assert.equal(plain?.noDebug, true, 'Ctrl+F5 runs without the debugger');
  });

  test('"More AgentJet options...": each config once (a symlinked folder, the folderless ask of the user settings)', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const dup = join(folder.uri.fsPath, 'dup-configs');
    mkdirSync(join(dup, 'real'), { recursive: true });
    writeFileSync(join(dup, 'real', 'twice.yaml'), readFileSync(join(folder.uri.fsPath, 'math_agent.yaml'), 'utf8'));
    symlinkSync(join(dup, 'real'), join(dup, 'link'));
    // AgentJet's own defaults (its package in the folder) have an `ajet:` root too; nobody launches them.
    assert.ok(!existsSync(join(folder.uri.fsPath, 'ajet')), 'the demo has no ajet/ of its own');
    const defaults = join(folder.uri.fsPath, 'ajet', 'default_config');
    mkdirSync(defaults, { recursive: true });
    writeFileSync(join(defaults, 'ajet_default.yaml'), 'ajet:\n  project_name: ajet_default\n');
    try {
      // VS Code's search follows the link: the file is found by two paths.
      const raw = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, 'dup-configs/**/twice.yaml'));
      assert.equal(raw.length, 2, raw.map((u) => u.fsPath).join(', '));
      const provider = new AgentJetDebugConfigurationProvider(extension().exports.services);
      const listed = (await provider.provideDynamicConfigurations(folder)).map((c) => String(c.config));
      assert.equal(listed.filter((c) => c.endsWith('twice.yaml')).length, 1, listed.join(', '));
      assert.equal(listed.filter((c) => c.endsWith('/math_agent.yaml')).length, 1, listed.join(', '));
      assert.ok(!listed.some((c) => c.includes('default_config')), listed.join(', '));
      // VS Code asks again for the user settings' launch, which has no folder: the folder listed them all already.
      assert.deepEqual(await provider.provideDynamicConfigurations(undefined), []);
    } finally {
      rmSync(dup, { recursive: true, force: true });
      rmSync(join(folder.uri.fsPath, 'ajet'), { recursive: true, force: true });
    }
  });

  test('a refused F5 (no debugpy) shows our message with our actions and ends the start quietly', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const config = await configCopy('exthost-refused.yaml', 'exthost_refused');
    // An interpreter without debugpy: the base python3 on PATH (the stand-in comes from the inherited PYTHONPATH).
    const { execFileSync } = await import('node:child_process');
    const bare = execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim();
    const seen: import('../../../core/launch/lifecycle').Refusal[] = [];
    const provider = new AgentJetDebugConfigurationProvider(extension().exports.services, (r) => seen.push(r));
    const started: vscode.DebugSession[] = [];
    const sub = vscode.debug.onDidStartDebugSession((s) => started.push(s));
    try {
      const resolved = await provider.resolveDebugConfigurationWithSubstitutedVariables(folder, {
        type: 'agentjet',
        request: 'launch',
        name: 'refused',
        config: config.fsPath,
        cwd: folder.uri.fsPath,
        python: bare,
        env: {},
      });
      assert.equal(resolved, undefined, 'undefined ends the start without VS Code\'s "Open launch.json" dialog');
      assert.equal(seen.length, 1);
      // (Whether the stand-in is importable depends on the workspace's .env, written by an earlier test.)
      assert.ok(seen[0]!.kinds.includes('debugpy'), 'offers Copy Install Command and Select Interpreter');
      assert.match(seen[0]!.message, new RegExp(`debugpy is not installed for ${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(seen[0]!.installCommand, `${bare} -m pip install --upgrade "debugpy>=1.8.0"`);
      // The same configuration through VS Code itself: no session starts.
      const ok = await vscode.debug.startDebugging(folder, {
        type: 'agentjet',
        request: 'launch',
        name: 'refused',
        config: config.fsPath,
        python: bare,
      });
      assert.equal(ok, false);
      assert.deepEqual(
        started.map((s) => s.name),
        [],
      );
    } finally {
      sub.dispose();
    }
  });

  test('child sessions the adapter asks for connect straight to debugpy, untouched by the provider', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const provider = new AgentJetDebugConfigurationProvider(extension().exports.services, () =>
      assert.fail('no preflight for a child session'),
    );
    const child = {
      type: 'agentjet',
      request: 'attach',
      name: 'Subprocess 42',
      agentjetSubprocess: true,
      connect: { host: '127.0.0.1', port: 5678 },
      subProcessId: 42,
    };
    assert.deepEqual(await provider.resolveDebugConfiguration(folder, { ...child }), child);
    assert.deepEqual(await provider.resolveDebugConfigurationWithSubstitutedVariables(folder, { ...child }), child);
  });
});
