// npm run bench:facts - how long a config waits for the user's own AgentJet: the language server
// (dist/server.js) opened on a copy of an AgentJet checkout, timed from didOpen to the first
// diagnostics and to the first diagnostics judged by the checkout, with an empty facts cache (the
// checkout must be read first) and with the cache the first run left. Then its memory with two
// AgentJet versions loaded (a January 2026 and a 0.0.4 checkout open side by side). Prints figures.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, tmpdir } from 'node:os';
import { URI } from 'vscode-uri';
import { LspClient, type Diag } from '../test/util/lspClient';
import { findUpstream, UPSTREAM_SKIP } from '../test/util/upstream';

const CONFIG = `ajet:
  model:
    path: Qwen/Qwen2.5-7B-Instruct
  rollout:
    user_workflow: my_workflow->MyWorkflow
  task_reader:
    type: random_dummy
  lora:
    lora_rank: 16
`;

const source = (d: Diag) => (d as Diag & { source?: string }).source ?? '';

function checkout(tree: string, into: string): string {
  const dir = join(into, tree.split('/').pop() ?? 'tree');
  cpSync(join(tree, 'ajet'), join(dir, 'ajet'), { recursive: true });
  cpSync(join(tree, 'pyproject.toml'), join(dir, 'pyproject.toml'));
  writeFileSync(join(dir, 'exp.yaml'), CONFIG);
  return dir;
}

async function start(folders: string[], cache: string): Promise<LspClient> {
  const lsp = new LspClient();
  lsp.conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'agentjet' ? { pythonPath: '', config: { problems: 'openFiles' } } : null)),
  );
  lsp.conn.onRequest('workspace/workspaceFolders', () => folders.map((f) => ({ uri: URI.file(f).toString(), name: f })));
  lsp.conn.listen();
  await lsp.conn.sendRequest('initialize', {
    processId: process.pid,
    workspaceFolders: folders.map((f) => ({ uri: URI.file(f).toString(), name: f })),
    capabilities: { workspace: { configuration: true } },
    initializationOptions: { reportSyntaxErrors: true, factsCacheDir: cache },
  });
  await lsp.conn.sendNotification('initialized', {});
  return lsp;
}

/** ms to the first diagnostics, and to the first judged by the checkout. */
async function openAndTime(lsp: LspClient, dir: string): Promise<{ first: number; own: number; firstSource: string }> {
  const uri = URI.file(join(dir, 'exp.yaml')).toString();
  const t0 = performance.now();
  await lsp.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: CONFIG } });
  const first = await lsp.nextDiagnostics(uri, () => true, 60_000);
  const t1 = performance.now();
  await lsp.until('diagnostics judged by the checkout', () => lsp.latest(uri)?.diagnostics.find((d) => source(d).includes(' at ')), 60_000);
  const t2 = performance.now();
  return { first: t1 - t0, own: t2 - t0, firstSource: source(first.diagnostics[0] as Diag) };
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const v4 = findUpstream('agentjet-c68c154');
  const jan = findUpstream('agentjet-d20cce0');
  if (!v4 || !jan) {
    process.stdout.write(`bench:facts skipped: ${UPSTREAM_SKIP}\n`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'bench-facts-'));
  try {
    const dir4 = checkout(v4, work);
    // Three rounds: each a cold start (empty cache) and a start on the cache it left; medians.
    const runs: { cold: Awaited<ReturnType<typeof openAndTime>>; cached: Awaited<ReturnType<typeof openAndTime>> }[] = [];
    for (let round = 0; round < 3; round++) {
      const cache = join(work, `cache-${round}`);
      const times: Awaited<ReturnType<typeof openAndTime>>[] = [];
      for (let i = 0; i < 2; i++) {
        const lsp = await start([dir4], cache);
        times.push(await openAndTime(lsp, dir4));
        await lsp.stop();
      }
      runs.push({ cold: times[0]!, cached: times[1]! });
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    process.stdout.write('AgentJet 0.0.4 checkout as the workspace, one config opened (median of 3):\n');
    for (const kind of ['cold', 'cached'] as const)
      process.stdout.write(
        `  ${(kind === 'cold' ? 'cold (read the checkout first)' : 'cached (facts on disk)').padEnd(32)} first diagnostics ${median(
          runs.map((r) => r[kind].first),
        )
          .toFixed(0)
          .padStart(5)} ms, judged by the checkout ${median(runs.map((r) => r[kind].own))
          .toFixed(0)
          .padStart(5)} ms  (first source: ${runs[0]![kind].firstSource})\n`,
      );
    process.stdout.write(`  (load average ${loadavg()[0]?.toFixed(1) ?? '?'} on ${cpus().length} cores)\n`);

    // Memory: a bare server, then with a January and a 0.0.4 checkout open (two versions loaded).
    const dirJan = checkout(jan, join(work, 'j'));
    const bare = await start([], join(work, 'cache2'));
    await new Promise((r) => setTimeout(r, 500));
    const bareRss = rssMb(bare.proc.pid);
    await bare.stop();
    const lsp = await start([dirJan, dir4], join(work, 'cache2'));
    await openAndTime(lsp, dirJan);
    await openAndTime(lsp, dir4);
    const twoRss = rssMb(lsp.proc.pid);
    await lsp.stop();
    process.stdout.write(
      `Language server memory (RSS): ${bareRss.toFixed(0)} MB idle; ${twoRss.toFixed(0)} MB with AgentJet 0.0.1 (January 2026) and 0.0.4 checkouts loaded and a config of each open\n`,
    );
    process.stdout.write('Baseline (before run-time facts): the bundled January schema only, first diagnostics as in npm run bench:lsp.\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
