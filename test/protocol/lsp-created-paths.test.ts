// Issue 39 R8 through the language server: created paths and watched files are matched to the
// workspace folder by path segments and by real path. `ws/../outside` used to pass a string-prefix
// test (144 outside configs read and published) and a created link to `/` was followed (195
// configs from all over the disk); here neither publishes anything outside the folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { URI } from 'vscode-uri';
import { LspClient } from '../util/lspClient';
import { createdFolderIn } from '../../core/config/workspaceScan';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-r8-')));
const ws = join(base, 'ws');
const outside = join(base, 'outside');
const config = (key: string) => `ajet:\n  project_name: p\n  ${key}: 1\n`;
let lsp: LspClient;

before(async () => {
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(outside, 'deep'), { recursive: true });
  writeFileSync(join(ws, 'a.yaml'), config('key_in_ws'));
  for (let i = 0; i < 5; i++) writeFileSync(join(outside, `out${i}.yaml`), config(`outside_key_${i}`));
  writeFileSync(join(outside, 'deep', 'd.yaml'), config('outside_deep'));
  lsp = new LspClient();
  lsp.conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'agentjet' ? { pythonPath: '', problems: 'workspace' } : null)),
  );
  lsp.conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
  lsp.conn.listen();
  await lsp.conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(ws).toString(),
    capabilities: { workspace: { configuration: true, workspaceFolders: true } },
    workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
    initializationOptions: { factsCacheDir: '', trusted: false },
  });
  await lsp.conn.sendNotification('initialized', {});
  await lsp.nextDiagnostics(URI.file(join(ws, 'a.yaml')).toString());
});

after(async () => {
  await lsp.stop();
  rmSync(base, { recursive: true, force: true });
});

const outsidePublished = () => lsp.published.filter((p) => !resolve(URI.parse(p.uri).fsPath).startsWith(ws + sep)).map((p) => p.uri);

test('R8: created `ws/../outside`, a created link out and watched files through links publish nothing outside the folder', async () => {
  const t0 = Date.now();
  symlinkSync(outside, join(ws, 'created-link'));
  symlinkSync(join(outside, 'out0.yaml'), join(ws, 'linked.yaml'));
  await lsp.conn.sendNotification('agentjet/createdPaths', {
    paths: [`${ws}/../outside`, `${ws}/created-link`, `${ws}/created-link/deep`, `${ws}/../outside/deep`],
  });
  await lsp.conn.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [
      { uri: URI.file(`${ws}/../outside/out1.yaml`).toString(), type: 1 },
      { uri: `file://${ws}/../outside/out2.yaml`, type: 1 },
      { uri: URI.file(join(ws, 'linked.yaml')).toString(), type: 1 },
    ],
  });
  // A folder really created inside: scanned after the ones above (created paths are scanned in order).
  mkdirSync(join(ws, 'fresh'));
  writeFileSync(join(ws, 'fresh', 'b.yaml'), config('key_in_fresh'));
  await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [join(ws, 'fresh')] });
  await lsp.nextDiagnostics(URI.file(join(ws, 'fresh', 'b.yaml')).toString());
  // And a watched file inside after the watched ones above.
  writeFileSync(join(ws, 'c.yaml'), config('key_in_c'));
  await lsp.conn.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: URI.file(join(ws, 'c.yaml')).toString(), type: 1 }],
  });
  await lsp.nextDiagnostics(URI.file(join(ws, 'c.yaml')).toString());
  assert.deepEqual(outsidePublished(), []);
  const linked = lsp.published.filter((p) => p.uri === URI.file(join(ws, 'linked.yaml')).toString());
  assert.ok(
    linked.every((p) => p.diagnostics.length === 0),
    'the outside file a link in the folder names is not read',
  );
  assert.doesNotMatch(JSON.stringify(lsp.published), /outside_key|outside_deep/);
  console.log(`r8: answered in ${Date.now() - t0} ms`);
});

test('R8: createdFolderIn takes folders in the workspace by segments and real path only', async () => {
  mkdirSync(join(ws, 'sub'), { recursive: true });
  symlinkSync('/', join(ws, 'to-root'));
  symlinkSync(join(ws, 'sub'), join(ws, 'to-sub'));
  assert.equal(await createdFolderIn(join(ws, 'sub'), ws), join(ws, 'sub'));
  assert.equal(await createdFolderIn(`${ws}/sub/../sub`, ws), join(ws, 'sub'));
  assert.equal(await createdFolderIn(join(ws, 'to-sub'), ws), join(ws, 'to-sub'), 'a link inside the folder stays in it');
  assert.equal(await createdFolderIn(join(ws, 'to-root'), ws), undefined);
  assert.equal(await createdFolderIn(`${ws}/../outside`, ws), undefined);
  assert.equal(await createdFolderIn(`${ws}-2`, ws), undefined);
  assert.equal(await createdFolderIn('relative/path', ws), undefined);
  assert.equal(await createdFolderIn(join(ws, 'a.yaml'), ws), undefined, 'a file is no folder to scan');
});
