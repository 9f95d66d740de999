// Run in a folder of Kubernetes/CI YAML and Python with no AgentJet in it
// (AGENTJET_EXTHOST_WORKSPACE=unrelated, test/harness/run-exthost.ts): the first stage activates
// (workspaceContains:**/*.yaml), looks through VS Code's file search, and loads nothing more until
// an AgentJet config is opened.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import { PROBE_HEADS_UNMARKED } from '../../../core/config/probeOrder';
import { extension, note, waitFor, workspaceRoot } from '../util';

/** Whether the full extension's bundle was ever required in this extension host. */
const fullBundleLoaded = (): boolean => Object.keys(require.cache).some((k) => k.endsWith(`${sep}dist${sep}full.js`));

suite('first stage in a folder without AgentJet', () => {
  test('unrelated YAML and Python: the first stage activates, probes, and the full extension is never loaded', async () => {
    const ext = extension();
    await waitFor(() => ext.isActive, 'the first stage to activate (workspaceContains:**/*.yaml)', 30_000, 20);
    const gate = ext.exports.gate;
    const probe = await gate.probe();
    note(
      `first stage activate() ${gate.activationMs.toFixed(1)} ms; probe: ${probe.files} YAML files, ${probe.heads} heads read in ${probe.ms.toFixed(0)} ms`,
    );
    // Unmarked: a bounded list of shallow YAML files (the folder has 300).
    assert.ok(probe.files > 0 && probe.files <= PROBE_HEADS_UNMARKED, `the file search listed ${probe.files} YAML files`);
    assert.equal(probe.marker, undefined);
    assert.equal(probe.config, undefined);
    assert.ok(probe.heads <= PROBE_HEADS_UNMARKED, `${probe.heads} heads read`);

    // A manifest and a Python file opened, "Run Task" asking for our tasks: still nothing loaded.
    const manifest = vscode.Uri.joinPath(workspaceRoot(), 'deploy', 'service-0', 'manifest-0.yaml');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(manifest));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceRoot(), 'app', 'main.py')));
    const tasks = await vscode.tasks.fetchTasks({ type: 'agentjet' });
    assert.deepEqual(
      tasks.map((t) => t.name),
      [],
    );
    assert.equal(gate.loaded, false, `the full extension was loaded (${String(gate.reason)})`);
    assert.equal(fullBundleLoaded(), false, 'dist/full.js is in the module cache');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('an AgentJet config opened there loads everything, and its problems appear', async () => {
    const ext = extension();
    const dir = join(workspaceRoot().fsPath, 'experiments');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'first_try.yaml');
    writeFileSync(file, 'ajet:\n  project_name: demo\n  rollout:\n    max_env_workerz: 2\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await waitFor(() => ext.exports.gate.loaded, 'the full extension to load', 20_000, 20);
    assert.equal(ext.exports.gate.reason, 'config-open');
    assert.ok(fullBundleLoaded(), 'dist/full.js was not required');
    const diags = await waitFor(
      () => {
        const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source?.startsWith('agentjet'));
        return d.length ? d : undefined;
      },
      'problems of the opened config',
      60_000,
      50,
    );
    assert.ok(
      diags.some((d) => /max_env_workerz/.test(d.message)),
      diags.map((d) => d.message).join(' | '),
    );
    // Our commands are the full extension's now (the first stage's stand-ins gave way).
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.ok(registered.has('agentjet.showOutput'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
