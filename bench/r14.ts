// node --import tsx bench/r14.ts [--configs 10000] [--max N] — issue 39 R14 through the built
// language server (dist/server.js): N configs written into a new folder of a `problems: workspace`
// workspace and announced as created; prints how many got Problems, what the server said about the
// cap, wall time and the server's CPU seconds (/proc). Prints; asserts nothing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URI } from 'vscode-uri';
import { LspClient } from '../test/util/lspClient';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const N = Number(arg('configs', '10000'));
const MAX = process.argv.includes('--max') ? Number(arg('max', '0')) : undefined;

async function main(): Promise<void> {
  const ws = mkdtempSync(join(tmpdir(), 'aj-r14-bench-'));
  const lsp = new LspClient();
  const said: string[] = [];
  lsp.conn.onRequest('workspace/configuration', () => [
    { pythonPath: '', problems: 'workspace', ...(MAX ? { workspaceMaxFiles: MAX } : {}) },
  ]);
  lsp.conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
  for (const kind of ['window/logMessage', 'window/showMessage'])
    lsp.conn.onNotification(kind, (m: { message: string }) => said.push(`${kind}: ${m.message}`));
  lsp.conn.listen();
  await lsp.conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(ws).toString(),
    capabilities: { workspace: { configuration: true, workspaceFolders: true } },
    workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
    initializationOptions: { factsCacheDir: '', trusted: false },
  });
  await lsp.conn.sendNotification('initialized', {});
  const cpu = () => {
    const f = readFileSync(`/proc/${lsp.proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  const dir = join(ws, 'generated');
  mkdirSync(dir);
  for (let i = 0; i < N; i++)
    writeFileSync(join(dir, `c${String(i).padStart(5, '0')}.yaml`), `ajet:\n  project_name: p\n  unknown_${i}: 1\n`);
  const c0 = cpu();
  const t0 = Date.now();
  await lsp.conn.sendNotification('agentjet/createdPaths', { paths: [dir] });
  // Done when nothing new was published for 5 s (a benchmark may wait; tests never do).
  let last = -1;
  while (last !== lsp.published.length) {
    last = lsp.published.length;
    await new Promise((r) => setTimeout(r, 5000));
  }
  const withProblems = new Set(lsp.published.filter((p) => p.diagnostics.length).map((p) => p.uri)).size;
  console.log(
    `R14 ${N} configs in a new folder${MAX ? ` (workspaceMaxFiles ${MAX})` : ''}: ${withProblems} got Problems; ${((Date.now() - t0 - 5000) / 1000).toFixed(1)} s, server CPU ${(cpu() - c0).toFixed(1)} s`,
  );
  for (const s of said.filter((x) => /workspaceMaxFiles/.test(x))) console.log(`  ${s}`);
  await lsp.stop();
  rmSync(ws, { recursive: true, force: true });
}

void main();
