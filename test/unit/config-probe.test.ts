// Item 1 of issue 23: a workspace that holds AgentJet configs gets its problems without a file being
// opened. The extension's first stage activates when the workspace has YAML files and asks the cheap
// probe (AgentJet's names, then the first config among a bounded set of YAML files, by head only;
// issue 42 item 2) whether to load the rest and start the language server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHead, PROBE_HEAD_BYTES } from '../../core/config/workspaceScan';
import { firstConfig, probeCandidates, PROBE_HEADS_UNMARKED } from '../../core/config/probeOrder';
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

test('readHead reads only the head of a big file', async () => {
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
});

test('probeCandidates: shallow paths first; a folder without AgentJet names gets a bounded number of reads', () => {
  const files = ['/w/deploy/a/m1.yaml', '/w/config.yaml', '/w/deploy/m0.yaml', '/w/b.yaml'];
  for (let i = 0; i < 500; i++) files.push(`/w/deploy/svc/m${i}.yaml`);
  const id = (f: string) => f;
  const unmarked = probeCandidates(files, id, false);
  assert.equal(unmarked.length, PROBE_HEADS_UNMARKED);
  assert.deepEqual(unmarked.slice(0, 3), ['/w/b.yaml', '/w/config.yaml', '/w/deploy/m0.yaml']);
  const marked = probeCandidates(files, id, true);
  assert.equal(marked.length, files.length, 'a folder AgentJet marks gets every file looked at');
  assert.equal(marked.at(-1), '/w/deploy/svc/m99.yaml');
});
