import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension } from '../util';

suite('manifest wiring', () => {
  test('every contributed command is registered once the extension is active', async () => {
    const ext = extension();
    await ext.activate();
    const pkg = JSON.parse(readFileSync(join(ext.extensionPath, 'package.json'), 'utf8')) as {
      contributes: { commands?: { command: string }[] };
    };
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = (pkg.contributes.commands ?? []).map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `declared in package.json but never registered: ${missing.join(', ')}`);
  });

  test('no hidden commands: every registered agentjet.* command is declared (test hooks live on the API)', async () => {
    const ext = extension();
    await ext.activate();
    const pkg = JSON.parse(readFileSync(join(ext.extensionPath, 'package.json'), 'utf8')) as {
      contributes: { commands?: { command: string }[]; views?: Record<string, { id: string }[]> };
    };
    const declared = new Set((pkg.contributes.commands ?? []).map((c) => c.command));
    // VS Code itself registers `<view id>.focus`, `.resetViewLocation`, ... for every contributed view.
    const views = Object.values(pkg.contributes.views ?? {})
      .flat()
      .map((v) => `${v.id}.`);
    const hidden = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('agentjet.') && !declared.has(c))
      .filter(
        (c) =>
          !views.some((v) => c.startsWith(v) && /^(focus|resetViewLocation|removeView|toggleVisibility|open)$/.test(c.slice(v.length))),
      );
    assert.deepEqual(hidden, [], `registered but not in package.json: ${hidden.join(', ')}`);
    assert.equal(typeof ext.exports.testing.runs.treeState, 'function');
  });
});
