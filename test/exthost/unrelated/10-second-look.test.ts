// The probe's second look (extension/gate/probe.ts), run here on its own: in the folder of 300
// Kubernetes manifests, a config seven folders down under a folder named after AgentJet (deeper
// than the first look goes, and behind its 64-file bound) is found through VS Code's file search,
// with the user's excludes honoured; the manifests cost the second look nothing.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { PROBE_HEADS_UNMARKED } from '../../../core/config/probeOrder';
import { probeWorkspace } from '../../../extension/gate/probe';
import { note, workspaceRoot } from '../util';

suite('first stage: the probe second look', () => {
  test('a config deeper than four folders under an AgentJet-named folder, behind 300 other YAML files, is found; an excluded one is not', async () => {
    const root = workspaceRoot().fsPath;
    const deep = join(root, 'research', 'team', 'agentjet', '2026', 'week1', 'runs');
    const hidden = join(root, 'vendor', 'ajet_copy', 'b', 'c', 'd', 'e');
    mkdirSync(deep, { recursive: true });
    mkdirSync(hidden, { recursive: true });
    const config = join(deep, 'deep_try.yaml');
    const cts = new vscode.CancellationTokenSource();
    const settings = vscode.workspace.getConfiguration('files');
    const before = settings.inspect<Record<string, boolean>>('exclude')?.workspaceValue;
    try {
      // Excluded by the user: never read, so the first answer is "no config" (experiments/ holds the
      // config the first-stage suite opened).
      writeFileSync(join(hidden, 'vendored.yaml'), 'ajet:\n  project_name: vendored\n');
      await settings.update(
        'exclude',
        { ...(before ?? {}), '**/vendor': true, '**/experiments': true },
        vscode.ConfigurationTarget.Workspace,
      );
      const none = await probeWorkspace(cts.token);
      note(`without the deep config: ${none.files} + ${none.deepFiles} YAML files listed, ${none.heads} + ${none.deepHeads} heads read`);
      assert.equal(none.config, undefined, `found ${none.config?.fsPath ?? ''}`);
      assert.ok(none.files <= PROBE_HEADS_UNMARKED, `the first look listed ${none.files}`);
      assert.equal(none.deepFiles, 0, 'the second look listed files of the folder without AgentJet');
      assert.equal(none.deepHeads, 0);

      writeFileSync(config, '# an experiment\najet:\n  project_name: deep\n');
      const found = await probeWorkspace(cts.token);
      note(`with it: ${found.deepHeads} heads read by the second look in ${found.ms.toFixed(0)} ms`);
      assert.equal(found.config?.fsPath, config);
      assert.ok(found.deepHeads >= 1 && found.deepHeads <= found.deepFiles, `${found.deepHeads} of ${found.deepFiles}`);
    } finally {
      await settings.update('exclude', before, vscode.ConfigurationTarget.Workspace);
      rmSync(join(root, 'research'), { recursive: true, force: true });
      rmSync(join(root, 'vendor'), { recursive: true, force: true });
      cts.dispose();
    }
  });
});
