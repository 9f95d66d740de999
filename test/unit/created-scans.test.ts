// Issue 39 R14: created-paths notices wait as one pending scan (language-server/createdScans.ts),
// `agentjet.config.workspaceMaxFiles` is read from an untrusted settings answer within bounds, and
// one config under several names (links inside the folder) is published once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreatedScans, MAX_PENDING_PATHS } from '../../language-server/createdScans';
import { WorkspaceChecker } from '../../language-server/workspaceCheck';
import { MAX_WORKSPACE_FILES, readFolderSettings } from '../../core/protocol/config';

function recorder() {
  const runs: { full?: number; paths?: string[] }[] = [];
  let release: (() => void) | undefined;
  const scans = new CreatedScans({
    full: async (notices) => {
      runs.push({ full: notices });
      // The first scan is held until the test lets it go: notices arrive while it runs.
      if (runs.length === 1) await new Promise<void>((r) => (release = r));
    },
    paths: async (paths) => {
      runs.push({ paths: [...paths] });
    },
    failed: (err) => assert.fail(String(err)),
  });
  return { runs, scans, release: () => release?.() };
}

test('R14: 2,000 "more" notices while a scan runs make one more scan, and every notice is counted', async () => {
  const { runs, scans, release } = recorder();
  const first = scans.add([], true);
  // Let the first scan start, then 1,999 more notices and two folders arrive while it runs.
  while (!runs.length) await new Promise<void>((r) => setImmediate(r));
  const rest: Promise<void>[] = [];
  for (let i = 0; i < 1999; i++) rest.push(scans.add([], true));
  rest.push(scans.add(['/ws/a', '/ws/b'], false), scans.add(['/ws/a'], false));
  release();
  await Promise.all([first, ...rest]);
  // The folders named meanwhile are scanned as the first scan ends, then the notices it did not answer, as one scan.
  assert.deepEqual(runs, [{ full: 1 }, { paths: ['/ws/a', '/ws/b'] }, { full: 1999 }]);
});

test('R14: created folders past the pending bound turn into one scan of the folders', async () => {
  const runs: string[] = [];
  const scans = new CreatedScans({
    full: async () => void runs.push('full'),
    paths: async (p) => void runs.push(`paths ${p.length}`),
    failed: () => undefined,
  });
  await scans.add(
    Array.from({ length: MAX_PENDING_PATHS + 10 }, (_, i) => `/ws/d${i}`),
    false,
  );
  assert.deepEqual(runs, ['full', `paths ${MAX_PENDING_PATHS}`]);
});

test('R14: workspaceMaxFiles from a settings answer: a positive number, clamped; anything else is the default', () => {
  assert.equal(readFolderSettings({ workspaceMaxFiles: 10_000 }).workspaceMaxFiles, 10_000);
  assert.equal(readFolderSettings({ config: { workspaceMaxFiles: 2500.7 } }).workspaceMaxFiles, 2500);
  assert.equal(readFolderSettings({ workspaceMaxFiles: 1e12 }).workspaceMaxFiles, MAX_WORKSPACE_FILES);
  for (const bad of [0, -5, Number.NaN, Infinity, '10000', null, {}])
    assert.equal(readFolderSettings({ workspaceMaxFiles: bad }).workspaceMaxFiles, undefined, String(bad));
});

test('R14: one config under several names publishes once; when the publishing name goes, another name takes over', async () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'aj-alias-')));
  try {
    mkdirSync(join(ws, 'real'));
    writeFileSync(join(ws, 'real', 'a.yaml'), 'ajet:\n  rollout: {}\n');
    symlinkSync(join(ws, 'real'), join(ws, 'alias1'));
    symlinkSync(join(ws, 'real'), join(ws, 'alias2'));
    const shown = new Set<string>();
    const checker = new WorkspaceChecker({
      isOpen: () => false,
      check: async (p) => void shown.add(p.slice(ws.length + 1)),
      clear: (p) => void shown.delete(p.slice(ws.length + 1)),
      folders: () => [ws],
    });
    // Links first (as a watcher may report them), then the file's own name, which takes over.
    await checker.checkFile(join(ws, 'alias1', 'a.yaml'));
    await checker.checkFile(join(ws, 'alias2', 'a.yaml'));
    assert.deepEqual([...shown], ['alias1/a.yaml']);
    await checker.checkFile(join(ws, 'real', 'a.yaml'));
    assert.deepEqual([...shown], ['real/a.yaml']);
    await checker.catchUp([join(ws, 'alias1'), join(ws, 'alias2')]);
    assert.deepEqual([...shown], ['real/a.yaml']);
    // The file's own name is reported deleted: a link's name publishes it at the next pass.
    checker.forget(join(ws, 'real', 'a.yaml'));
    assert.deepEqual([...shown], []);
    await checker.catchUp([join(ws, 'alias2')]);
    assert.deepEqual([...shown], ['alias2/a.yaml']);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
