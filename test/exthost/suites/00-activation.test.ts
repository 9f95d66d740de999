import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension, note, waitFor, workspaceRoot } from '../util';

suite('activation', () => {
  test('a workspace holding an AgentJet config loads the full extension at start-up, with no file opened', async () => {
    const ext = extension();
    assert.equal(
      vscode.workspace.textDocuments.some((d) => d.languageId === 'yaml'),
      false,
      'a YAML file was open already: this would not test the start-up path',
    );
    // workspaceContains:**/*.yaml: VS Code's own file search fires it after the window opens; the
    // first stage's folder probe (VS Code's file search again) finds the demo's runs and config.
    await waitFor(() => ext.isActive, 'the extension to activate without a file opened', 30_000, 20);
    const gate = ext.exports.gate;
    await waitFor(() => gate.loaded, 'the first stage to load the full extension', 30_000, 20);
    assert.equal(gate.reason, 'folder-probe', `loaded for another reason: ${String(gate.reason)}`);
    const probe = await gate.probe();
    // The demo has runs at its top: a stat says so, no search.
    assert.ok(probe.marker?.path.endsWith('/saved_experiments'), `the probe found no AgentJet mark: ${JSON.stringify(probe)}`);
    assert.equal(probe.heads, 0);
    note(`first stage activate() took ${gate.activationMs.toFixed(1)} ms; full activate() ${ext.exports.activationMs.toFixed(1)} ms`);
  });

  test('an unopened config gets its problems (the language server starts for the workspace)', async () => {
    const file = join(workspaceRoot().fsPath, 'unopened_broken.yaml');
    const uri = vscode.Uri.file(file);
    writeFileSync(file, 'ajet:\n  project_name: demo\n  rollout:\n    max_env_workerz: 2\n');
    try {
      const started = Date.now();
      const diags = await waitFor(
        () => {
          // The source names the judge: "agentjet (AgentJet … at …)".
          const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source?.startsWith('agentjet'));
          return d.length ? d : undefined;
        },
        'problems of a config nobody opened',
        60_000,
        50,
      );
      assert.ok(
        diags.some(
          (d) => /max_env_workerz/.test(d.message) || String(typeof d.code === 'object' ? d.code.value : d.code) === 'unknown-key',
        ),
        diags.map((d) => d.message).join(' | '),
      );
      assert.equal(
        vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()),
        false,
        'the file was opened: the test would prove nothing',
      );
      note(`unopened config's problems after ${Date.now() - started} ms`);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
