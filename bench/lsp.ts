// npm run bench:lsp - validation time and completion latency of our server vs yaml-language-server
// (with our schema) on the reference configs and a generated 5,000-line config. Prints figures.
// Like with like: validation is compared in-process (our validateText against yaml-language-server's
// own language service, no timer) and over stdio with yaml-language-server's fixed validation delay
// taken out; both sides are measured in this run.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../test/util/paths';
import { findUpstream, UPSTREAM_SKIP } from '../test/util/upstream';
import { stopServer } from '../test/util/lspClient';
import { build } from 'esbuild';
import { inProcessSamples, ylsValidationDelayMs } from './lsp-inproc';

const ylsVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'yaml-language-server', 'package.json'), 'utf8')) as { version: string }
).version;

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
/** Untimed requests (completion) and keystrokes (typing) before the timed ones, on both servers alike. */
const WARM = 5;
/** Untimed passes over every document before any timed run (in-process and over stdio, both sides alike): the steady state. */
const WARM_PASSES = Number(process.env.BENCH_WARM_PASSES ?? 1);
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

/** CPU time (ns) a process has run, all its threads: /proc/PID/task/TID/schedstat, first field. */
function cpuNs(pid: number | undefined): number {
  let sum = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        sum += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* thread ended */
      }
    }
  } catch {
    return NaN;
  }
  return sum;
}

/** CPU time (ns) of the process's main thread alone (its thread id is the process id): the thread requests are answered on. */
function mainThreadNs(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

interface Timed {
  ms: number[];
  /** The server's own CPU time per request, ms: what other load on the machine does not inflate. */
  cpuMs: number[];
  /** The part of cpuMs on the server's main thread; the rest is V8's background threads (optimising compiles, GC helpers). */
  mainMs: number[];
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

async function completionTimes(s: Server, dir: string, text: string, n: number): Promise<Timed> {
  const c = completionDoc(text);
  const uri = URI.file(join(dir, `complete_${seq++}.yaml`)).toString();
  const done = new Promise<void>((r) => s.waiters.set(uri, r));
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: c.text } });
  await done;
  const out: Timed = { ms: [], cpuMs: [], mainMs: [] };
  // The first WARM requests are not timed (the same on both servers), as validateOnce's warm-up open.
  for (let i = -WARM; i < n; i++) {
    const c0 = cpuNs(s.proc.pid);
    const m0 = mainThreadNs(s.proc.pid);
    const t0 = performance.now();
    await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: c.line, character: c.character } });
    if (i < 0) continue;
    out.ms.push(performance.now() - t0);
    out.cpuMs.push((cpuNs(s.proc.pid) - c0) / 1e6);
    out.mainMs.push((mainThreadNs(s.proc.pid) - m0) / 1e6);
  }
  await s.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  return out;
}

/**
 * Typing a key: each keystroke is a full didChange (a new version) followed by a completion request at
 * the end of the typed prefix, timed from the change to the completion answer.
 */
async function typingTimes(s: Server, dir: string, text: string, n: number): Promise<Timed> {
  const c = completionDoc(text);
  const uri = URI.file(join(dir, `typing_${seq++}.yaml`)).toString();
  const done = new Promise<void>((r) => s.waiters.set(uri, r));
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: c.text } });
  await done;
  const lines = c.text.split('\n');
  const word = 'max_env_worker_count';
  const out: Timed = { ms: [], cpuMs: [], mainMs: [] };
  // The first WARM keystrokes are not timed (the same on both servers).
  for (let i = -WARM; i < n; i++) {
    const typed = word.slice(0, 1 + ((i + WARM) % (word.length - 1)));
    lines[c.line] = `    ${typed}`;
    const c0 = cpuNs(s.proc.pid);
    const m0 = mainThreadNs(s.proc.pid);
    const t0 = performance.now();
    await s.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: i + WARM + 2 },
      contentChanges: [{ text: lines.join('\n') }],
    });
    await s.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: c.line, character: 4 + typed.length } });
    if (i < 0) continue;
    out.ms.push(performance.now() - t0);
    out.cpuMs.push((cpuNs(s.proc.pid) - c0) / 1e6);
    out.mainMs.push((mainThreadNs(s.proc.pid) - m0) / 1e6);
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

type Stat = { median: number; p95: number };
interface Row {
  doc: string;
  lines: number;
  what: string;
  ours: Stat;
  base: Stat;
  how: string;
}

function printTable(rows: Row[]): void {
  const f = (x: Stat) => `${x.median.toFixed(2)} / ${x.p95.toFixed(2)}`;
  const cells = [
    [
      'document',
      'lines',
      'what',
      'ours ms (median / p95)',
      'baseline ms (median / p95)',
      'baseline / ours (median / p95)',
      'how the baseline was measured',
    ],
    ...rows.map((r) => [
      r.doc,
      String(r.lines),
      r.what,
      f(r.ours),
      f(r.base),
      `${(r.base.median / r.ours.median).toFixed(1)}x / ${(r.base.p95 / r.ours.p95).toFixed(1)}x`,
      r.how,
    ]),
  ];
  const w = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => '| ' + c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(w[i]!))).join(' | ');
  console.log(line(cells[0]!));
  console.log('|' + w.map((x, i) => '-'.repeat(i === w.length - 1 ? 4 : x + 2)).join('|'));
  for (const c of cells.slice(1)) console.log(line(c));
}

/** Our validation as it ships: bench/validate-entry.ts bundled with the product's Node bundle options (the bundle's path). */
async function shippedValidation(dir: string): Promise<string> {
  const { nodeBundleAlias } = (await import(join(repoRoot, 'scripts', 'bundleAlias.mjs'))) as { nodeBundleAlias: Record<string, string> };
  const outfile = join(dir, 'validate.js');
  await build({
    entryPoints: [join(__dirname, 'validate-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    alias: nodeBundleAlias,
    loader: { '.py': 'text' },
    logLevel: 'warning',
  });
  return outfile;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bench-'));
  const validation = await shippedValidation(dir);
  writeFileSync(join(dir, 'placeholder.txt'), '');
  const docs: [string, string][] = [...referenceDocs(), ['generated 5000 lines', generated(5000)]];
  const delayMs = ylsValidationDelayMs();
  const N = Number(process.env.BENCH_N ?? 20);
  console.log(
    `documents: ${docs.length}, ${N} runs each after a warm-up (${WARM_PASSES} untimed pass(es) over all documents; then per document 1 open, 5 untimed validations, ${WARM} untimed completion requests and ${WARM} untimed keystrokes; the same on both sides); times in ms. Baseline: yaml-language-server ${ylsVersion} with our schema.`,
  );
  console.log(
    `yaml-language-server's server waits a fixed ${delayMs} ms (validationDelayMs) after an open before it validates: its in-process row has no timer, its stdio row has that delay subtracted.`,
  );
  // In-process rows: each side alone in a child process of its own (bench/lsp-inproc.ts), the same harness.
  const docFiles = docs.map(([, text], i) => {
    const f = join(dir, `doc_${i}.yaml.txt`);
    writeFileSync(f, text);
    return f;
  });
  const job = { root: dir, schemaUri, docs: docFiles, n: N, warmPasses: WARM_PASSES, bundle: validation };
  const inOurs = await inProcessSamples({ ...job, side: 'ours' }, dir);
  const inYls = await inProcessSamples({ ...job, side: 'yls' }, dir);
  const ours = await startServer('agentjet', [join(repoRoot, 'dist', 'server.js'), '--stdio'], dir);
  const yls = await startServer(
    'yaml-ls',
    [join(repoRoot, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server'), '--stdio'],
    dir,
  );
  // Untimed passes over every document on each server before the timed ones (the same on both).
  for (let p = 0; p < WARM_PASSES; p++) {
    for (const s of [ours, yls]) {
      for (const [, text] of docs) {
        for (let i = 0; i < 5; i++) await validateOnce(s, dir, text);
        await completionTimes(s, dir, text, 10);
        await typingTimes(s, dir, text, 10);
      }
    }
  }
  const rows: Row[] = [];
  const split: Row[] = [];
  for (const [k, [name, text]] of docs.entries()) {
    const at = { doc: name, lines: text.split('\n').length };
    const o = inOurs[k]!;
    const y = inYls[k]!;
    rows.push({
      ...at,
      what: 'validate in-process',
      ours: stats(o.fresh.ms),
      base: stats(y.fresh.ms),
      how: 'yaml-language-server getLanguageService().doValidation, each side in a process of its own (no timer), fresh URI each run',
    });
    rows.push({
      ...at,
      what: 'validate in-process, CPU time',
      ours: stats(o.fresh.cpuMs),
      base: stats(y.fresh.cpuMs),
      how: "the same runs, process CPU time (user + system): what a shared machine's load does not inflate",
    });
    rows.push({
      ...at,
      what: 'validate an edit, in-process',
      ours: stats(o.edit.ms),
      base: stats(y.edit.ms),
      how: 'a digit typed at the end of a value line, a new version of one document; yaml-language-server doValidation of that version',
    });
    rows.push({
      ...at,
      what: 'validate an edit, CPU time',
      ours: stats(o.edit.cpuMs),
      base: stats(y.edit.cpuMs),
      how: 'the same edits, process CPU time (user + system)',
    });
    const v: Record<string, number[]> = {};
    const c: Record<string, Timed> = {};
    const typing: Record<string, Timed> = {};
    for (const s of [ours, yls]) {
      await validateOnce(s, dir, text); // warm up
      const times: number[] = [];
      for (let i = 0; i < N; i++) times.push(await validateOnce(s, dir, text));
      v[s.name] = times;
      c[s.name] = await completionTimes(s, dir, text, N);
      typing[s.name] = await typingTimes(s, dir, text, N);
    }
    rows.push({
      ...at,
      what: 'didOpen -> publishDiagnostics',
      ours: stats(v.agentjet!),
      base: stats(v['yaml-ls']!.map((x) => Math.max(0, x - delayMs))),
      how: `yaml-language-server over stdio, minus its fixed ${delayMs} ms validationDelayMs`,
    });
    rows.push({
      ...at,
      what: 'completion request',
      ours: stats(c.agentjet!.ms),
      base: stats(c['yaml-ls']!.ms),
      how: 'yaml-language-server over stdio, same document and position',
    });
    rows.push({
      ...at,
      what: 'completion request, server CPU',
      ours: stats(c.agentjet!.cpuMs),
      base: stats(c['yaml-ls']!.cpuMs),
      how: "the same requests, the server process's CPU time (all threads, /proc schedstat)",
    });
    rows.push({
      ...at,
      what: 'typing: didChange + completion',
      ours: stats(typing.agentjet!.ms),
      base: stats(typing['yaml-ls']!.ms),
      how: 'yaml-language-server over stdio, the same keystrokes (a full-text change, then completion)',
    });
    rows.push({
      ...at,
      what: 'typing, server CPU',
      ours: stats(typing.agentjet!.cpuMs),
      base: stats(typing['yaml-ls']!.cpuMs),
      how: "the same keystrokes, the server process's CPU time (includes its validation of each change)",
    });
    const mainOnly = (t: Timed): Stat => stats(t.mainMs);
    split.push(
      {
        ...at,
        what: 'validate, main thread',
        ours: stats(o.fresh.mainMs),
        base: stats(y.fresh.mainMs),
        how: 'the part of "validate in-process, CPU time" on the main thread',
      },
      {
        ...at,
        what: 'validate an edit, main thread',
        ours: stats(o.edit.mainMs),
        base: stats(y.edit.mainMs),
        how: 'the part of "validate an edit, CPU time" on the main thread',
      },
      {
        ...at,
        what: 'completion, server main thread',
        ours: mainOnly(c.agentjet!),
        base: mainOnly(c['yaml-ls']!),
        how: 'the part of "completion request, server CPU" on the main thread',
      },
      {
        ...at,
        what: 'typing, server main thread',
        ours: mainOnly(typing.agentjet!),
        base: mainOnly(typing['yaml-ls']!),
        how: 'the part of "typing, server CPU" on the main thread',
      },
    );
  }
  printTable(rows);
  // Not rows of the comparison above: where its CPU rows' time goes. The rest of a row's CPU is on
  // V8's background threads (mostly optimising compiles of code that has just become hot).
  console.log("\nThe CPU rows split: the main thread alone (it validates and answers); the rest is V8's background threads.");
  printTable(split);
  console.log(
    `server memory (RSS) after the run: ours ${rssMb(ours.proc.pid).toFixed(1)} MB, baseline ${rssMb(yls.proc.pid).toFixed(1)} MB (yaml-language-server over stdio, same documents)`,
  );
  for (const s of [ours, yls]) await stopServer(s.conn, s.proc);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
