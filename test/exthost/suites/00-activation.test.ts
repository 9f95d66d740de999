import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { extension, note, waitFor, workspaceRoot } from '../util';

suite('activation', () => {
  test('the extension is loaded but not active before an AgentJet file is opened', () => {
    const ext = extension();
    assert.equal(ext.isActive, false, 'activated at startup: activation events are too eager');
    assert.ok(workspaceRoot().fsPath.length > 0);
  });

  test('opening the demo config activates it, quickly', async () => {
    const config = vscode.Uri.joinPath(workspaceRoot(), 'math_agent.yaml');
    const opened = Date.now();
    const doc = await vscode.workspace.openTextDocument(config);
    await vscode.window.showTextDocument(doc);
    assert.equal(doc.languageId, 'yaml');
    const ext = extension();
    await waitFor(() => ext.isActive, 'the extension to activate', 20_000, 5);
    const untilActive = Date.now() - opened;
    const api = ext.exports;
    // Opening the config is what activated it: activate() returned after the document was opened
    // (an eager activation event, or one fired by an earlier file, fails here).
    assert.ok(api.activatedAt >= opened, `activate() returned ${opened - api.activatedAt} ms before the config was opened`);
    // Printed for the harness log; the issue notes quote it. Never asserted as a timing.
    note(`activate() took ${api.activationMs.toFixed(1)} ms; config opened to extension active: ${untilActive} ms`);
  });
});
