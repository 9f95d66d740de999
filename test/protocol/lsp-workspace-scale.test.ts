// Issue 39 R14 through the language server, in `problems: workspace` mode:
// - a folder with more YAML files than the background check reads: the user is told (the count,
//   the cap, the setting that raises it), and raising the setting reaches the files past the cap;
// - a `loop -> .` link (and the links through it) publishes one config once, under its own name;
// - 2,000 "more" notices (too many created paths to list) wait as one pending scan (a few in all), not 2,000 queued full scans.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URI } from 'vscode-uri';
import { LspClient } from '../util/lspClient';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-r14-')));
const ws = join(base, 'ws');
const config = (key: string) => `ajet:\n  project_name: p\n  ${key}: 1\n`;
const uri = (p: string) => URI.file(p).toString();
let lsp: LspClient;
let maxFiles: number | undefined;
const messages: { kind: string; type: number; message: string }[] = [];

/** CPU seconds (user + system) the server process has used so far (Linux /proc; undefined elsewhere). */
function serverCpu(): number | undefined {
  try {
    const f = readFileSync(`/proc/${lsp.proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

before(async () => {
  mkdirSync(join(ws, 'old'), { recursive: true });
  // A workspace of 400 configs, checked by the first pass.
  for (let i = 0; i < 400; i++) writeFileSync(join(ws, 'old', `c${String(i).padStart(3, '0')}.yaml`), config(`old_key_${i}`));
  lsp = new LspClient();
  lsp.conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) =>
      i.section === 'agentjet' ? { pythonPath: '', problems: 'workspace', ...(maxFiles ? { workspaceMaxFiles: maxFiles } : {}) } : null,
    ),
  );
  lsp.conn.onRequest('workspace/workspaceFolders', () => [{ uri: uri(ws), name: 'ws' }]);
  for (const kind of ['window/logMessage', 'window/showMessage'])
    lsp.conn.onNotification(kind, (m: { type: number; message: string }) => {
      messages.push({ kind, ...m });
      lsp.changed();
    });

  lsp.conn.listen();
  await lsp.conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: uri(ws),
    capabilities: { workspace: { configuration: true, workspaceFolders: true } },
    workspaceFolders: [{ uri: uri(ws), name: 'ws' }],
    initializationOptions: { factsCacheDir: '', trusted: false },
  });
  await lsp.conn.sendNotification('initialized', {});
  await lsp.nextDiagnostics(uri(join(ws, 'old', 'c399.yaml')), undefined, 60_000);
});

after(async () => {
  await lsp.stop();
  rmSync(base, { recursive: true, force: true });
});

const withProblems = (key: string) => {
  const latest = new Map<string, boolean>();
  for (const p of lsp.published)
    latest.set(
      p.uri,
      p.diagnostics.some((d) => d.message.includes(key)),
    );
  return [...latest].filter(([, has]) => has).map(([u]) => u);
};

test(
  'R14: 2,000 "more" notices wait as one pending scan, not 2,000 queued scans; a folder created after them is checked',
  { timeout: 300_000 },
  async () => {
    const cpu0 = serverCpu();
    const t0 = Date.now();
    for (let i = 0; i < 2000; i++) void lsp.conn.sendNotification('agentjet/createdPaths', { paths: [], more: true });
    // A folder the scans of the whole workspace do not enter (a dot folder), named after them: created
    // scans run in order, so its config is checked once whatever the 2,000 notices queued has run.
    mkdirSync(join(ws, '.late'));
    writeFileSync(join(ws, '.late', 'b.yaml'), config('key_in_late'));
    await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [join(ws, '.late')] });
    await lsp.nextDiagnostics(uri(join(ws, '.late', 'b.yaml')), undefined, 120_000);
    const scanned = () =>
      messages.map((m) => /looked again for configs in the workspace folders \((\d+) /.exec(m.message)).filter((m) => !!m);
    // Every notice is answered by a scan (the last scan may end after the dot folder's).
    await lsp.until(
      'scans answering all 2,000 notices',
      () => (scanned().reduce((a, m) => a + Number(m[1]), 0) === 2000 ? true : undefined),
      120_000,
    );
    const cpu1 = serverCpu();
    const scans = scanned();
    console.log(
      `r14 more x2000: all answered after ${Date.now() - t0} ms by ${scans.length} scans, server CPU ${cpu0 !== undefined && cpu1 !== undefined ? (cpu1 - cpu0).toFixed(2) : '?'} s`,
    );
    // A burst waits as one pending scan (started once the notices stop for a moment; how many depends on the machine).
    assert.ok(scans.length <= 10, `${scans.length} scans for 2,000 notices`);
  },
);

test("R14: a `loop -> .` link publishes its folder's config once, under the config's own name", async () => {
  const dir = join(ws, 'looped');
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.yaml'), config('key_in_looped'));
  symlinkSync('.', join(dir, 'loop'));
  // What a watcher reports for the new folder: the folder, the link, paths through the link.
  await lsp.conn.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [join(dir, 'loop', 'a.yaml'), join(dir, 'loop', 'loop', 'a.yaml'), join(dir, 'a.yaml')].map((p) => ({ uri: uri(p), type: 1 })),
  });
  await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [dir, join(dir, 'loop'), join(dir, 'loop', 'loop')] });
  // A marker scanned after them (created scans run in order).
  mkdirSync(join(ws, 'marker'));
  writeFileSync(join(ws, 'marker', 'm.yaml'), config('key_in_marker'));
  await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [join(ws, 'marker')] });
  await lsp.nextDiagnostics(uri(join(ws, 'marker', 'm.yaml')));
  assert.deepEqual(withProblems('key_in_looped'), [uri(join(dir, 'a.yaml'))]);
});

test('R14: a folder with more YAML files than the cap says so (count, cap, setting); raising the setting checks the rest', async () => {
  const big = join(ws, 'big');
  mkdirSync(big);
  // 2,100 YAML files (the default cap is 2,000 per walk; ws holds 400 more), the config last by name.
  for (let i = 0; i < 2099; i++) writeFileSync(join(big, `n${String(i).padStart(4, '0')}.yaml`), `plain: ${i}\n`);
  writeFileSync(join(big, 'z-last.yaml'), config('key_past_the_cap'));
  await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [big] });
  const notice = await lsp.until(`a notice of the cap in ${JSON.stringify(messages.slice(-5))}`, () =>
    messages.find((m) => m.kind === 'window/showMessage' && m.message.includes('agentjet.config.workspaceMaxFiles')),
  );
  assert.match(notice.message, /2,?100/, 'names how many YAML files there are');
  assert.match(notice.message, /2,?000/, 'names the cap');
  assert.ok(
    messages.some((m) => m.kind === 'window/logMessage' && m.message.includes('agentjet.config.workspaceMaxFiles')),
    'and logs it',
  );
  assert.deepEqual(withProblems('key_past_the_cap'), []);
  maxFiles = 5000;
  await lsp.conn.sendNotification('workspace/didChangeConfiguration', { settings: {} });
  await lsp.nextDiagnostics(
    uri(join(big, 'z-last.yaml')),
    (p) => p.diagnostics.some((d) => d.message.includes('key_past_the_cap')),
    60_000,
  );
});
