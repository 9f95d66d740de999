// Issue 39 R1 and R3 in the editor: the language server as VS Code drives it (`problems: workspace`,
// a config opened, hovered), in Restricted Mode and trusted (no interpreter chosen, so nothing runs).
// - R1: an AgentJet checkout whose `.py` holds `x = config.ajet` + `.a` x 64,000 (128 KB). The server
//   used to build every prefix of the chain: hover blocked 9 s at 16,000 links and the server aborted
//   at 160 s. Now the config is judged by that checkout, hover answers, the server lives.
// - R3: a folder holding a symbolic link to `/`. The workspace pass and a created-paths notice for
//   the link never walk the disk: the folder's config is checked, hover answers, nothing outside is
//   published, the server lives.
// Times are printed (a test asserts no timings; the bound below only turns a hang into a failure).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { URI } from 'vscode-uri';
import { LspClient, type Published } from '../util/lspClient';
import { withUpstream } from '../util/upstream';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-lsp-hostile-')));
after(() => rmSync(base, { recursive: true, force: true }));

/** What turns a hang into a failure: far above what an answer takes, far below the old 160 s abort. */
const BOUND_MS = 60_000;
const CONFIG = 'ajet:\n  project_name: hostile\n  rollout:\n    num_repeat: abc\n';

async function startServer(ws: string, trusted: boolean): Promise<LspClient> {
  const lsp = new LspClient();
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
    initializationOptions: { factsCacheDir: '', trusted },
  });
  await lsp.conn.sendNotification('initialized', {});
  return lsp;
}

/** Ends the server; one that no longer answers (the old R1 behaviour) is killed instead of waited on. */
async function stop(lsp: LspClient): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([lsp.stop(), new Promise<void>((r) => (timer = setTimeout(r, 5000)))]);
  clearTimeout(timer);
  lsp.proc.kill('SIGKILL');
}

function bounded<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${BOUND_MS} ms`)), BOUND_MS))),
  ]);
}

const hoverAt = (lsp: LspClient, uri: string, line: number, character: number) =>
  lsp.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character } }) as Promise<{
    contents: { value: string };
  } | null>;

/**
 * Opens `file`, hovers `num_repeat` at once (while the server may still read the folder's AgentJet),
 * waits for diagnostics that satisfy `settled`, hovers again; checks the server still answers.
 */
async function openAndHover(
  lsp: LspClient,
  file: string,
  label: string,
  settled: (p: Published) => boolean = () => true,
): Promise<Published> {
  const uri = URI.file(file).toString();
  const t0 = Date.now();
  await lsp.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: CONFIG } });
  const early = await bounded(`${label}: first hover`, hoverAt(lsp, uri, 3, 6));
  const t1 = Date.now();
  assert.match(early?.contents.value ?? '', /num_repeat/, `${label}: hover answers about the key`);
  const diags = await bounded(
    `${label}: diagnostics`,
    lsp.nextDiagnostics(uri, (p) => p.version === 1 && settled(p), BOUND_MS),
  );
  const t2 = Date.now();
  const h = await bounded(`${label}: hover`, hoverAt(lsp, uri, 3, 6));
  const t3 = Date.now();
  assert.match(h?.contents.value ?? '', /num_repeat/, `${label}: hover answers about the key`);
  // The server lives: its process is still there and answers.
  assert.ok((await bounded(`${label}: another hover`, hoverAt(lsp, uri, 1, 4))) !== undefined);
  assert.equal(lsp.proc.exitCode, null, `${label}: the server is alive`);
  assert.equal(lsp.proc.signalCode, null, `${label}: the server is alive`);
  console.log(`${label}: first hover in ${t1 - t0} ms, settled diagnostics after ${t2 - t0} ms, hover then in ${t3 - t2} ms`);
  return diags;
}

for (const trusted of [false, true]) {
  const mode = trusted ? 'trusted, no interpreter' : 'Restricted Mode';

  test(
    `R1 in the editor (${mode}): a checkout with a 64,000-link chain in a .py judges the config, hover answers, the server lives`,
    { timeout: 180_000 },
    withUpstream('agentjet-c68c154', async (tree) => {
      const ws = join(base, `r1-${trusted ? 'trusted' : 'restricted'}`);
      cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
      cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
      writeFileSync(join(ws, 'ajet', 'hostile.py'), `x = config.ajet${'.a'.repeat(64_000)}\n`);
      writeFileSync(join(ws, 'c.yaml'), CONFIG);
      const lsp = await startServer(ws, trusted);
      try {
        // Settled: judged by the checkout itself (its facts read to the end), no longer provisional.
        const byCheckout = (p: Published) => {
          const s = JSON.stringify(p.diagnostics);
          return s.includes(join(ws, 'ajet')) && !s.includes('still reading') ? true : false;
        };
        const d = await openAndHover(lsp, join(ws, 'c.yaml'), `R1 ${mode}`, byCheckout);
        assert.ok(
          d.diagnostics.some((x) => x.code === 'type-mismatch'),
          JSON.stringify(d.diagnostics),
        );
      } finally {
        await stop(lsp);
      }
    }),
  );

  test(
    `R3 in the editor (${mode}): a folder with a link to / is checked without walking the disk; hover answers, the server lives`,
    {
      timeout: 180_000,
    },
    async () => {
      const ws = join(base, `r3-${trusted ? 'trusted' : 'restricted'}`);
      mkdirSync(join(ws, 'configs'), { recursive: true });
      writeFileSync(join(ws, 'configs', 'a.yaml'), 'ajet:\n  project_name: x\n  not_a_key_r3: 1\n');
      symlinkSync('/', join(ws, 'disk'));
      const lsp = await startServer(ws, trusted);
      try {
        const t0 = Date.now();
        // The workspace pass finds the folder's config (and does not follow the link).
        await bounded('R3: workspace pass', lsp.nextDiagnostics(URI.file(join(ws, 'configs', 'a.yaml')).toString(), undefined, BOUND_MS));
        console.log(`R3 ${mode}: workspace pass published the folder's config after ${Date.now() - t0} ms`);
        // A watcher reporting the link as created: not scanned (it leads out of the folder).
        await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [join(ws, 'disk'), join(ws, 'disk', 'etc')] });
        await lsp.conn.sendNotification('agentjet/createdPaths', { more: true, paths: [] });
        await openAndHover(lsp, join(ws, 'c.yaml'), `R3 ${mode}`);
        const outside = lsp.published.filter((p) => !URI.parse(p.uri).fsPath.startsWith(ws + sep)).map((p) => p.uri);
        assert.deepEqual(outside, [], 'nothing outside the folder is published');
      } finally {
        await stop(lsp);
      }
    },
  );
}
