// Issue 15 item 13: the language server checks every config of the workspace in the background.
// The walk is bounded (skipped folders, file limit), cancellable, and leaves open files to the editor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { StartupCatchUp, WorkspaceChecker, yamlFilesUnder, WORKSPACE_LIMITS } from '../../language-server/workspaceCheck';
import { waitFor } from '../util/poll';

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'agentjet-ws-'));
  for (const d of ['configs/deep/er', 'node_modules/pkg', '.git', 'saved_experiments/e/2026_01_01_00_00', '.venv/lib'])
    mkdirSync(join(ws, d), { recursive: true });
  writeFileSync(join(ws, 'a.yaml'), 'ajet:\n  rollout: {}\n');
  writeFileSync(join(ws, 'configs', 'b.yml'), 'astuner:\n  rollout: {}\n');
  writeFileSync(join(ws, 'configs', 'deep', 'er', 'c.yaml'), '"ajet":\n  model: {}\n');
  writeFileSync(join(ws, 'configs', 'ci.yaml'), 'jobs: {}\n');
  writeFileSync(join(ws, 'node_modules', 'pkg', 'x.yaml'), 'ajet: {}\n');
  writeFileSync(join(ws, 'saved_experiments', 'e', 'yaml_backup.yaml'), 'ajet: {}\n');
  writeFileSync(join(ws, '.venv', 'lib', 'y.yaml'), 'ajet: {}\n');
  return ws;
}

test('the walk skips tooling, environments and run folders', async () => {
  const ws = workspace();
  const files = (await yamlFilesUnder(ws, () => false)).map((f) => f.slice(ws.length + 1)).sort();
  assert.deepEqual(files, ['a.yaml', 'configs/b.yml', 'configs/ci.yaml', 'configs/deep/er/c.yaml']);
  assert.ok(WORKSPACE_LIMITS.maxYamlFiles > 0 && WORKSPACE_LIMITS.maxDepth > 0);
});

test('a pass checks configs only, skips open files, and stops when cancelled', async () => {
  const ws = workspace();
  const checked: string[] = [];
  const cleared: string[] = [];
  const open = new Set([join(ws, 'a.yaml')]);
  const checker = new WorkspaceChecker({
    isOpen: (p) => open.has(p),
    check: async (p) => {
      checked.push(p.slice(ws.length + 1));
    },
    clear: (p) => {
      cleared.push(p.slice(ws.length + 1));
    },
  });
  assert.equal(await checker.run([ws]), 2);
  assert.deepEqual(checked.sort(), ['configs/b.yml', 'configs/deep/er/c.yaml']);
  // Cancelled after the first config: the pass stops there.
  checked.length = 0;
  const stopping = new WorkspaceChecker({
    isOpen: () => false,
    check: async (p) => {
      checked.push(p);
      stopping.cancel();
    },
    clear: () => undefined,
  });
  assert.equal(await stopping.run([ws]), 1);
  assert.equal(checked.length, 1);
  // Turning it off clears what it published, except open files.
  checker.clearAll();
  assert.deepEqual(cleared.sort(), ['configs/b.yml', 'configs/deep/er/c.yaml']);
});

test('catch-up after a pass: checks only configs new or changed since, and clears those deleted', async () => {
  const ws = workspace();
  const checked: string[] = [];
  const cleared: string[] = [];
  const checker = new WorkspaceChecker({
    isOpen: () => false,
    check: async (p) => {
      checked.push(p.slice(ws.length + 1));
    },
    clear: (p) => {
      cleared.push(p.slice(ws.length + 1));
    },
  });
  assert.equal(await checker.run([ws]), 3);
  checked.length = 0;
  assert.equal(await checker.catchUp([ws]), 0, 'nothing changed: nothing checked');
  assert.deepEqual(checked, []);
  // A config created after the pass (its watcher event lost), one changed, one deleted.
  mkdirSync(join(ws, 'later'));
  writeFileSync(join(ws, 'later', 'new.yaml'), 'ajet:\n  rollout: {}\n');
  writeFileSync(join(ws, 'configs', 'b.yml'), 'astuner:\n  rollout: {n: 1}\n');
  rmSync(join(ws, 'a.yaml'));
  assert.equal(await checker.catchUp([ws]), 2);
  assert.deepEqual(checked.sort(), ['configs/b.yml', 'later/new.yaml']);
  assert.deepEqual(cleared, ['a.yaml']);
});

test('start-up catch-up: runs at each gap until the watcher delivers, then once more and never again', async (t) => {
  // The catch-up's timers do not hold the process open (unref): this test does, while it waits.
  const alive = setInterval(() => undefined, 1000);
  t.after(() => clearInterval(alive));
  let runs = 0;
  let wake: (() => void) | undefined;
  const next = () => new Promise<void>((r) => (wake = r));
  const c = new StartupCatchUp(async () => {
    runs++;
    wake?.();
  }, [1, 1, 1, 1]);
  let ran = next();
  c.start();
  await ran;
  ran = next();
  await ran;
  assert.equal(runs, 2, 'two gaps, two catch-ups');
  ran = next();
  c.watcherDelivered();
  await ran;
  assert.equal(runs, 3, 'the last one, right away');
  assert.equal(c.pending, false, 'nothing scheduled after the watcher delivered');
  c.watcherDelivered();
  c.start();
  assert.equal(c.pending, false, 'and nothing starts again');
  assert.equal(runs, 3);
  // All gaps used up without the watcher: it stops by itself.
  let all = 0;
  const d = new StartupCatchUp(async () => void all++, [1, 1]);
  d.start();
  await waitFor(() => all === 2 && !d.pending, 'both catch-ups, then nothing scheduled', 5000);
  assert.equal(all, 2);
});

test('folder settings: the VS Code client shape and the raw section both name the problems scope', async () => {
  const { readFolderSettings } = await import('../../core/protocol/config');
  assert.equal(readFolderSettings({ pythonPath: '', problems: 'openFiles' }).problems, 'openFiles');
  assert.equal(readFolderSettings({ pythonPath: ' ~/py ', config: { problems: 'openFiles' } }).problems, 'openFiles');
  assert.deepEqual(readFolderSettings(null), { pythonPath: '', problems: 'workspace' });
  assert.equal(readFolderSettings({ pythonPath: ' ~/py ' }).pythonPath, '~/py');
});

test('catch-up over a new folder: finds its configs, and forgets nothing of a sibling whose name it prefixes', async () => {
  const ws = workspace();
  const checked: string[] = [];
  const cleared: string[] = [];
  const checker = new WorkspaceChecker({
    isOpen: () => false,
    check: async (p) => void checked.push(p.slice(ws.length + 1)),
    clear: (p) => void cleared.push(p.slice(ws.length + 1)),
  });
  mkdirSync(join(ws, 'd10'));
  writeFileSync(join(ws, 'd10', 'x.yaml'), 'ajet:\n  rollout: {}\n');
  assert.equal(await checker.run([ws]), 4);
  checked.length = 0;
  // A folder made and a config written into it (what the watcher may not report): the folder's scan finds it.
  mkdirSync(join(ws, 'd1', 'deep'), { recursive: true });
  writeFileSync(join(ws, 'd1', 'deep', 'y.yaml'), 'ajet:\n  rollout: {}\n');
  assert.equal(await checker.catchUp([join(ws, 'd1')]), 1);
  assert.deepEqual(checked, ['d1/deep/y.yaml']);
  // `d1` is a prefix of `d10`'s path, not its folder: d10's config is not taken for deleted.
  assert.deepEqual(cleared, []);
});

test('created paths: the client sends what may hold configs, in one capped batch; the server reads only paths', async () => {
  const { CreatedBatch, mayHoldConfigs } = await import('../../core/config/createdBatch');
  const { readCreatedPaths, MAX_CREATED_PATHS } = await import('../../core/protocol/config');
  assert.equal(mayHoldConfigs('/w/new_project'), true);
  assert.equal(mayHoldConfigs('/w/a.yaml'), false, 'the YAML watcher reports YAML files');
  assert.equal(mayHoldConfigs('/w/node_modules/pkg'), false);
  assert.equal(mayHoldConfigs('/w/.git/objects/ab'), false);
  assert.equal(mayHoldConfigs('C:\\w\\saved_experiments\\run'), false);
  const sent: { paths: string[]; more?: boolean }[] = [];
  const batch = new CreatedBatch((p) => void sent.push(p), 60_000);
  for (let i = 0; i < MAX_CREATED_PATHS + 10; i++) batch.add(`/w/d${i}`);
  batch.add('/w/node_modules/x');
  batch.flush();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.paths.length, MAX_CREATED_PATHS);
  assert.equal(sent[0]!.more, true, 'too many: the server scans the folders whole');
  batch.flush();
  assert.equal(sent.length, 1, 'nothing new, nothing sent');
  batch.dispose();
  assert.deepEqual(readCreatedPaths({ paths: ['/a', 3, '', null, '/b'] }), { paths: ['/a', '/b'], more: false });
  assert.deepEqual(readCreatedPaths('junk'), { paths: [] });
  assert.equal(readCreatedPaths({ paths: Array.from({ length: MAX_CREATED_PATHS + 1 }, (_, i) => `/p${i}`) }).more, true);
});
