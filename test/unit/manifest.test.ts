// Consistency of package.json: what the manifest promises must exist, and nothing eager.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';

interface Manifest {
  main: string;
  activationEvents?: string[];
  extensionKind?: string[];
  capabilities?: { untrustedWorkspaces?: { supported: unknown; restrictedConfigurations?: string[] } };
  contributes: {
    commands?: { command: string; title: string; icon?: unknown }[];
    menus?: Record<string, { command?: string; submenu?: string; when?: string }[]>;
    viewsContainers?: { activitybar?: { id: string; icon: string }[] };
    views?: Record<string, { id: string }[]>;
    configuration?:
      | { properties?: Record<string, { description?: string; markdownDescription?: string }> }
      | { properties?: Record<string, { description?: string; markdownDescription?: string }> }[];
    grammars?: { path: string }[];
    jsonValidation?: { url: string }[];
    debuggers?: { type: string }[];
    customEditors?: { viewType: string }[];
  };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const c = manifest.contributes;

test('activation is lazy: never "*" nor onStartupFinished', () => {
  for (const e of manifest.activationEvents ?? []) {
    assert.notEqual(e, '*');
    assert.notEqual(e, 'onStartupFinished');
  }
});

test('runs on the workspace side and is limited in untrusted workspaces', () => {
  assert.deepEqual(manifest.extensionKind, ['workspace']);
  assert.equal(manifest.capabilities?.untrustedWorkspaces?.supported, 'limited');
  // A workspace's own settings must not pick the interpreter we execute until it is trusted.
  assert.ok(manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations?.includes('agentjet.pythonPath'));
});

test('every command used in a menu is declared, and declared commands have titles', () => {
  const declared = new Set((c.commands ?? []).map((x) => x.command));
  for (const cmd of c.commands ?? []) assert.ok(cmd.title, `${cmd.command} has no title`);
  for (const [menu, items] of Object.entries(c.menus ?? {})) {
    for (const item of items) {
      if (item.command) assert.ok(declared.has(item.command), `menu ${menu} uses undeclared command ${item.command}`);
    }
  }
  assert.equal(declared.size, (c.commands ?? []).length, 'a command is declared twice');
});

test('every view belongs to a declared container and icons/grammars/schemas exist', () => {
  const containers = new Set((c.viewsContainers?.activitybar ?? []).map((x) => x.id));
  for (const key of Object.keys(c.views ?? {}))
    assert.ok(containers.has(key) || key === 'explorer' || key === 'debug', `views for unknown container ${key}`);
  for (const vc of c.viewsContainers?.activitybar ?? []) assert.ok(existsSync(join(repoRoot, vc.icon)), `missing ${vc.icon}`);
  for (const g of c.grammars ?? []) assert.ok(existsSync(join(repoRoot, g.path)), `missing grammar ${g.path}`);
  for (const j of c.jsonValidation ?? [])
    if (!/^https?:/.test(j.url)) assert.ok(existsSync(join(repoRoot, j.url)), `missing schema ${j.url}`);
});

test('every setting is documented', () => {
  const blocks = Array.isArray(c.configuration) ? c.configuration : [c.configuration ?? {}];
  for (const block of blocks) {
    for (const [key, prop] of Object.entries(block.properties ?? {})) {
      assert.ok(key.startsWith('agentjet.'), `${key} is outside the agentjet namespace`);
      assert.ok(prop.description ?? prop.markdownDescription, `${key} has no description`);
    }
  }
});

test('the .vscodeignore allowlist ships the main bundle', () => {
  const ignore = readFileSync(join(repoRoot, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^\*\*$/m, 'allowlist must start by excluding everything');
  assert.ok(ignore.includes(`!${manifest.main.replace(/^\.\//, '')}`), `${manifest.main} is not shipped`);
});
