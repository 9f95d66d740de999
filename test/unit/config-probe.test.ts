// Item 1 of issue 23: a workspace that holds AgentJet configs gets its problems without a file being
// opened. The extension activates when the workspace has YAML files and asks the cheap probe (the
// first config among them, by head only) whether to start the language server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstConfig, readHead, skipGlob, SKIP_DIRS, PROBE_HEAD_BYTES } from '../../core/config/workspaceScan';
import { repoRoot } from '../util/paths';

test('the manifest activates in a workspace with YAML files (the probe decides the rest), never at every start-up', () => {
  const events = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { activationEvents: string[] }).activationEvents;
  assert.ok(events.includes('workspaceContains:**/*.yaml'), events.join(', '));
  // VS Code gives a glob search 7 s and then does not activate (seen on a loaded machine in AgentJet's
  // own repository): plain paths are a stat each and always answer. AgentJet's checkout, a project
  // from our templates, a folder that has runs.
  for (const p of ['ajet/default_config/ajet_default.yaml', 'config.yaml', 'saved_experiments', 'launcher_record'])
    assert.ok(events.includes(`workspaceContains:${p}`), p);
  assert.ok(events.includes('workspaceContains:**/*.yml'), events.join(', '));
  assert.ok(!events.includes('*') && !events.includes('onStartupFinished'));
});

test('firstConfig: the first config in the given order, reading no further than needed', async () => {
  const texts: Record<string, string> = {
    'a.yaml': 'apiVersion: v1\nkind: Pod\n',
    'b.yaml': '# comment\ndefaults:\n  - ajet_default\najet:\n  project_name: x\n',
    'c.yaml': 'ajet:\n  x: 1\n',
  };
  for (let i = 0; i < 200; i++) texts[`z${i}.yaml`] = 'name: ci\non: push\n';
  const files = Object.keys(texts);
  const read: string[] = [];
  const hit = await firstConfig(files, async (f) => {
    read.push(f);
    return texts[f];
  });
  assert.equal(hit, 'b.yaml');
  assert.ok(read.length < 20, `read ${read.length} heads for a config in second place`);

  read.length = 0;
  const none = await firstConfig(
    files.filter((f) => f.startsWith('z')),
    async (f) => (read.push(f), texts[f]),
  );
  assert.equal(none, undefined);
  assert.equal(read.length, 200, 'every file is looked at once');
  // Unreadable files are skipped; cancellation stops it.
  assert.equal(await firstConfig(['x', 'c.yaml'], async (f) => texts[f]), 'c.yaml');
  assert.equal(
    await firstConfig(
      files,
      async (f) => texts[f],
      () => true,
    ),
    undefined,
  );
});

test('readHead reads only the head of a big file; skipGlob covers every skipped folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-probe-'));
  try {
    const f = join(dir, 'big.yaml');
    writeFileSync(f, 'ajet:\n' + 'x: 1\n'.repeat(100_000));
    const h = await readHead(f);
    assert.ok(h !== undefined && h.length === PROBE_HEAD_BYTES && h.startsWith('ajet:'));
    assert.equal(await readHead(join(dir, 'missing.yaml')), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const g = skipGlob();
  for (const d of SKIP_DIRS) assert.ok(g.includes(`**/${d}/**`), d);
});

test('firstConfigUnder walks shallow folders first, skips run folders, and stops at the first config', async () => {
  const { firstConfigUnder } = await import('../../core/config/workspaceScan');
  const { mkdirSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-probe-walk-'));
  try {
    mkdirSync(join(dir, 'k8s'), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, 'k8s', `m${i}.yaml`), 'apiVersion: v1\nkind: Pod\n');
    mkdirSync(join(dir, 'saved_experiments', 'x'), { recursive: true });
    writeFileSync(join(dir, 'saved_experiments', 'x', 'yaml_backup.yaml'), 'ajet:\n  a: 1\n');
    mkdirSync(join(dir, 'tutorial', 'math'), { recursive: true });
    writeFileSync(join(dir, 'tutorial', 'math', 'math.yaml'), 'ajet:\n  project_name: m\n');
    mkdirSync(join(dir, 'deep', 'a', 'b', 'c'), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'deep', 'a', 'b', 'c', `n${i}.yaml`), 'x: 1\n');
    const r = await firstConfigUnder(dir);
    assert.equal(r.config, join(dir, 'tutorial', 'math', 'math.yaml'));
    assert.ok(r.files <= 51, `looked at ${r.files} files: the deeper level was not needed`);
    rmSync(join(dir, 'tutorial'), { recursive: true });
    const none = await firstConfigUnder(dir);
    assert.equal(none.config, undefined, 'run snapshots are not sources');
    assert.equal(none.files, 70);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
