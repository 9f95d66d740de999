import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { extension } from '../util';

suite('manifest wiring', () => {
  test('every contributed command is registered once the extension is active', async () => {
    const ext = extension();
    await ext.activate();
    const pkg = JSON.parse(readFileSync(join(ext.extensionPath, 'package.json'), 'utf8')) as { contributes: { commands?: { command: string }[] } };
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = (pkg.contributes.commands ?? []).map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `declared in package.json but never registered: ${missing.join(', ')}`);
  });
});
