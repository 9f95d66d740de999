// npm run bench:lsp - validation time and completion latency of our server vs yaml-language-server
// (with our schema) on the reference configs and a generated 5,000-line config. Prints figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../test/util/paths';
import { findUpstream, UPSTREAM_SKIP } from '../test/util/upstream';
import { stopServer } from '../test/util/lspClient';
import { validateText } from '../core/config/validate';
import { ClassResolver } from '../core/config/classref';
import { CachedFs } from '../core/config/fs';

interface Server {
  name: string;
  proc: ChildProcess;
  conn: MessageConnection;
  waiters: Map<string, () => void>;
}

const schemaUri = URI.file(join(repoRoot, 'schemas', 'agentjet.schema.json')).toString();
const yamlSettings = {
  yaml: { schemas: { [schemaUri]: '*.yaml' }, validate: true, completion: true, hover: true, format: { enable: false } },
};

async function startServer(name: string, args: string[], root: string): Promise<Server> {
  const proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const conn = createMessageConnection(
    new StreamMessageReader(proc.stdout as NodeJS.ReadableStream),
    new StreamMessageWriter(proc.stdin as NodeJS.WritableStream),
  );
  const waiters = new Map<string, () => void>();
  conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number }) => {
    const w = waiters.get(p.uri);
    if (w) {
      waiters.delete(p.uri);
      w();
    }
  });
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'yaml' ? yamlSettings.yaml : i.section ? undefined : yamlSettings)),
  );
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onNotification(() => undefined);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(root).toString(),
    workspaceFolders: [{ uri: URI.file(root).toString(), name: 'w' }],
    capabilities: { textDocument: { completion: { completionItem: { snippetSupport: true } } }, workspace: { configuration: true } },
    initializationOptions: {},
  });
  await conn.sendNotification('initialized', {});
  await conn.sendNotification('workspace/didChangeConfiguration', { settings: yamlSettings });
  return { name, proc, conn, waiters };
}

let seq = 0;
/** Opens the text under a fresh URI and times until diagnostics arrive. */
async function validateOnce(s: Server, dir: string, text: string): Promise<number> {
  const uri = URI.file(join(dir, `bench_${seq++}.yaml`)).toString();
  const done = new Promise<void>((r) => s.waiters.set(uri, r));
  const t0 = performance.now();
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  await done;
  const ms = performance.now() - t0;
  await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  return ms;
}

function stats(xs: number[]): { median: number; p95: number } {
  const s = xs.slice().sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] as number, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] as number };
}

function rssMb(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return NaN;
  }
}

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(n)) out.push(p);
  }
  return out;
}

function generated(lines: number): string {
  const base = readFileSync(join(repoRoot, 'demo', 'math_agent.yaml'), 'utf8').split('\n');
  const out = [...base];
  let i = 0;
  // Grow the verl sections (many keys, nested) until the target size.
  out.push('actor_rollout_ref:');
  while (out.length < lines) {
    out.push(
      `  block_${i}:`,
      `    lr_${i}: 0.001`,
      `    enable_${i}: true`,
      `    name_${i}: "value ${i}"`,
      `    list_${i}:`,
      `      - a`,
      `      - b`,
    );
    i++;
  }
  return out.slice(0, lines).join('\n') + '\n';
}

/** Position at the start of a new key line in the rollout section (appended as an empty key). */
function completionDoc(text: string): { text: string; line: number; character: number } {
  const lines = text.split('\n');
  const l = lines.findIndex((x) => /^ {2}rollout:\s*$/.test(x));
  if (l < 0) return { text, line: 1, character: 2 };
  lines.splice(l + 1, 0, '    ma');
  return { text: lines.join('\n'), line: l + 1, character: 6 };
}

async function completionTimes(s: Server, dir: string, text: string, n: number): Promise<number[]> {
  const c = completionDoc(text);
  const uri = URI.file(join(dir, `complete_${seq++}.yaml`)).toString();
  const done = new Promise<void>((r) => s.waiters.set(uri, r));
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: c.text } });
  await done;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: c.line, character: c.character } });
    out.push(performance.now() - t0);
  }
  await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  return out;
}

/** AgentJet's own configs (tutorial/, ajet/default_config/) from the upstream tree, when there is one. */
function referenceDocs(): [string, string][] {
  const aj = findUpstream('agentjet-d20cce0');
  if (!aj) {
    console.log(`(no upstream AgentJet tree: only the generated document is measured; ${UPSTREAM_SKIP})`);
    return [];
  }
  return [...yamlFiles(join(aj, 'tutorial')), ...yamlFiles(join(aj, 'ajet', 'default_config'))]
    .filter((f) => /^(ajet|astuner|astune):/m.test(readFileSync(f, 'utf8')))
    .map((f): [string, string] => [relative(aj, f), readFileSync(f, 'utf8')]);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bench-'));
  writeFileSync(join(dir, 'placeholder.txt'), '');
  const docs: [string, string][] = [...referenceDocs(), ['generated 5000 lines', generated(5000)]];
  const ours = await startServer('agentjet', [join(repoRoot, 'dist', 'server.js'), '--stdio'], dir);
  const yls = await startServer(
    'yaml-ls',
    [join(repoRoot, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server'), '--stdio'],
    dir,
  );
  const N = Number(process.env.BENCH_N ?? 20);
  console.log(
    `documents: ${docs.length}, ${N} runs each; times in ms (median / p95); validate = didOpen until publishDiagnostics over stdio; ratio = yaml-ls / ours`,
  );
  const resolver = new ClassResolver(new CachedFs(60_000));
  console.log(
    [
      'document',
      'lines',
      'core validate (in-process)',
      'validate ours',
      'validate yaml-ls',
      'ratio',
      'complete ours',
      'complete yaml-ls',
      'ratio',
    ].join(' | '),
  );
  for (const [name, text] of docs) {
    const core: number[] = [];
    for (let i = 0; i < N + 5; i++) {
      const t0 = performance.now();
      validateText(text, { root: dir, resolver });
      if (i >= 5) core.push(performance.now() - t0);
    }
    const cs = stats(core);
    const row: string[] = [name, String(text.split('\n').length), `${cs.median.toFixed(2)} / ${cs.p95.toFixed(2)}`];
    const v: Record<string, { median: number; p95: number }> = {};
    const c: Record<string, { median: number; p95: number }> = {};
    for (const s of [ours, yls]) {
      await validateOnce(s, dir, text); // warm up
      const times: number[] = [];
      for (let i = 0; i < N; i++) times.push(await validateOnce(s, dir, text));
      v[s.name] = stats(times);
      c[s.name] = stats(await completionTimes(s, dir, text, N));
    }
    const f = (x: { median: number; p95: number }) => `${x.median.toFixed(2)} / ${x.p95.toFixed(2)}`;
    const vo = v.agentjet as { median: number; p95: number },
      vy = v['yaml-ls'] as { median: number; p95: number };
    const co = c.agentjet as { median: number; p95: number },
      cy = c['yaml-ls'] as { median: number; p95: number };
    row.push(f(vo), f(vy), `${(vy.median / vo.median).toFixed(1)}x`, f(co), f(cy), `${(cy.median / co.median).toFixed(1)}x`);
    console.log(row.join(' | '));
  }
  console.log(
    `server memory (RSS): agentjet ${rssMb(ours.proc.pid).toFixed(1)} MB, yaml-language-server ${rssMb(yls.proc.pid).toFixed(1)} MB`,
  );
  for (const s of [ours, yls]) await stopServer(s.conn, s.proc);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
