// npm run bench:startup - what opening a window costs (issue 23 item 1, issue 42 item 2), in the
// real VS Code server with the packaged .vsix, in headless Chromium, for this tree ("after") and for
// the tree before the first stage (extension/gate) existed ("before", packaged in the same run from
// `git archive`; `--baseline <rev>` picks another, `--no-baseline` skips it):
//   A. AgentJet's own repository (the agentjet-c68c154 tree copied to a temporary folder), no file
//      opened: seconds from opening the window to the first problem of a config nobody opened.
//   B. A workspace of 5,000 unrelated YAML files (Kubernetes manifests, CI files) and some Python:
//      whether AgentJet activates and what loads, what activation and its probe cost, the extension
//      host's memory with and without AgentJet installed, and whether a language server started.
// Prints figures; asserts nothing about timings. Packages the extension first (`--no-package` skips).
// `--only A|B` runs one case; `--rounds N` repeats each case N times, the builds alternating, and prints each
// build's median and spread; `--no-after` leaves this tree out; `--ext label=dir` adds an extensions
// folder prepared beforehand (a variant under study, e.g. an empty extension with our manifest);
// `--gc` (Node 22, or `node --experimental-websocket`) starts the extension host with its inspector
// and, after the plain samples, forces full garbage collections and samples again: what is held
// without the garbage, and V8's heap beside RSS.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, startServer, type VSCodeServer } from '../test/harness/server';
import { ensureAll } from '../test/harness/install';
import { vsixPath } from '../test/harness/workbench';
import { waitFor } from '../test/util/poll';
import { findUpstream, UPSTREAM_SKIP } from '../test/util/upstream';
import { repoRoot } from '../test/util/paths';

interface Proc {
  pid: number;
  ppid: number;
  rssKb: number;
  args: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const status = readFileSync(`/proc/${d}/status`, 'utf8');
      const args = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.push({
        pid: Number(d),
        ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0),
        rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0),
        args,
      });
    } catch {
      /* gone */
    }
  }
  return out;
}

function descendants(root: number): Proc[] {
  const all = processes();
  const out: Proc[] = [];
  let level = [root];
  while (level.length) {
    const next = all.filter((p) => level.includes(p.ppid));
    out.push(...next);
    level = next.map((p) => p.pid);
  }
  return out;
}

/** When a log line matching `re` was written (the logs' local wall-clock stamps), in ms since the epoch. */
function stampOf(log: string, re: RegExp): number | undefined {
  for (const line of log.split('\n')) {
    if (!re.test(line)) continue;
    const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line.trim());
    if (m) return new Date(`${m[1]}T${m[2]}`).getTime();
  }
  return undefined;
}

/** Our output channel's log file (the extension host writes it under the server's data folder). */
function agentJetLog(server: VSCodeServer, name = /AgentJet\.log$/): string {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (name.test(e.name)) found.push(p);
    }
  };
  try {
    walk(server.dataDir);
  } catch {
    /* not yet */
  }
  return found.map((f) => readFileSync(f, 'utf8')).join('\n');
}

function installVsix(vsix: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bench-ext-'));
  const install = ensureAll();
  execFileSync(install.node, [install.serverMain, '--install-extension', vsix, '--extensions-dir', dir, '--accept-server-license-terms'], {
    stdio: 'ignore',
  });
  return dir;
}

/** The commit before the first stage was added (its parent), else HEAD. */
function defaultBaseline(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  const added = git('log', '--diff-filter=A', '--format=%H', '--', 'extension/gate/main.ts').split('\n').filter(Boolean).at(-1);
  return added ? `${added}^` : 'HEAD';
}

/** Packages `rev` from `git archive` into a temporary folder (this checkout's node_modules linked); the .vsix. */
function packageBaseline(rev: string, tmp: string): string {
  const dir = join(tmp, 'baseline');
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${JSON.stringify(rev)} | tar -x -C ${JSON.stringify(dir)}`], { cwd: repoRoot });
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'scripts', 'package.mjs')], { cwd: dir, stdio: 'ignore' });
  const vsix = readdirSync(dir).find((f) => f.endsWith('.vsix'));
  if (!vsix) throw new Error(`packaging ${rev} wrote no .vsix`);
  return join(dir, vsix);
}

/** 5,000 YAML files that are not AgentJet configs, 100 per folder, a CI file and a Python service. */
function unrelatedYamlWorkspace(root: string): void {
  for (let d = 0; d < 50; d++) {
    const dir = join(root, 'deploy', `service-${String(d).padStart(2, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(
        join(dir, `manifest-${f}.yaml`),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: svc-${d}-${f}\n  labels:\n    app: svc-${d}\ndata:\n  LOG_LEVEL: info\n  REPLICAS: "${f % 5}"\n`,
      );
  }
  mkdirSync(join(root, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(root, '.github', 'workflows', 'ci.yml'), 'name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n');
  mkdirSync(join(root, 'app'), { recursive: true });
  for (let i = 0; i < 20; i++)
    writeFileSync(join(root, 'app', `handler_${i}.py`), `import os\n\n\ndef handler_${i}(event):\n    return os.environ.get("X", ${i})\n`);
}

/** A free loopback port (for the extension host's inspector, `--gc`). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function openWindow(folder: string, extensionsDir: string | undefined, inspectPort?: number) {
  const server = await startServer({
    ...(extensionsDir ? { extensionsDir } : {}),
    // The web workbench asks for the host's inspector through the URL's payload, which it reads
    // only from a server started with the smoke-test driver (every window of a `--gc` run alike).
    ...(inspectPort ? { extensionDevelopment: true } : {}),
  });
  const browser = await launchBrowser().catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const close = async () => {
    await browser.close();
    await server.stop();
  };
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const opened = Date.now();
    // A loaded machine takes long to serve the workbench: give it minutes, not Playwright's 30 s.
    await page.goto(server.url(folder, inspectPort ? [['inspect-extensions', String(inspectPort)]] : undefined), { timeout: 300_000 });
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ state: 'visible', timeout: 300_000 });
    return { server, page, opened, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function extHost(server: VSCodeServer): Proc | undefined {
  return descendants(server.process.pid!).find((p) => /--type=extensionHost/.test(p.args));
}

const fmt = (n: number | undefined, unit: string) => (n === undefined ? 'n/a' : `${n.toFixed(unit === 's' ? 1 : 0)} ${unit}`);

interface Build {
  label: string;
  extensionsDir: string;
  /** Prepared outside this script (`--ext`): kept, and its probe line is not required. */
  extra?: boolean;
}

async function benchRepository(builds: readonly Build[], rounds: number): Promise<void> {
  const tree = findUpstream('agentjet-c68c154');
  if (!tree) {
    console.log(`A. AgentJet's repository: skipped (${UPSTREAM_SKIP})`);
    return;
  }
  console.log("A. AgentJet's repository (agentjet-c68c154), no file opened");
  // Per build: seconds to the first problem, and from activation to it (the part the extension owns).
  const firsts = new Map<string, { total: number[]; own: number[] }>(builds.map((b) => [b.label, { total: [], own: [] }]));
  const order = Array.from({ length: rounds }, () => builds).flat();
  for (const [i, build] of order.entries()) {
    if (rounds > 1 && i % builds.length === 0) console.log(`   round ${i / builds.length + 1} of ${rounds}`);
    const tmp = mkdtempSync(join(tmpdir(), 'agentjet-bench-repo-'));
    const ws = join(tmp, 'AgentJet');
    cpSync(tree, ws, { recursive: true });
    // The reference tree is read-only; a user's clone is not (and the copy must be removable).
    execFileSync('chmod', ['-R', 'u+w', ws]);
    const w = await openWindow(ws, build.extensionsDir);
    try {
      const status = w.page.locator('[id="status.problems"]').first();
      const problems = async () => {
        const label = (await status.getAttribute('aria-label').catch(() => null)) ?? (await status.innerText().catch(() => '')) ?? '';
        // "Errors: 85, Warnings: 3": every problem counts.
        return (label.match(/\d+/g) ?? []).reduce((n, x) => n + Number(x), 0);
      };
      const firstProblemMs = await waitFor(
        async () => ((await problems()) > 0 ? Date.now() - w.opened : undefined),
        'the first problem of an unopened config',
        180_000,
        100,
      ).catch(() => undefined);
      // Let the background pass finish (the server logs its count).
      const done = await waitFor(
        () => /checked (\d+) configs? in the workspace/.exec(agentJetLog(w.server) + w.server.output()),
        'the pass',
        120_000,
        250,
      ).catch(() => undefined);
      const log = agentJetLog(w.server);
      const host = agentJetLog(w.server, /remoteexthost\.log$/);
      if (process.env.BENCH_KEEP_LOG) writeFileSync(`${process.env.BENCH_KEEP_LOG}.${build.label.replace(/\W+/g, '_')}.log`, log);
      const at = (t: number | undefined) => (t === undefined ? 'n/a' : `${((t - w.opened) / 1000).toFixed(1)} s`);
      const event = /activationEvent: '([^']+)'/.exec(host.split('\n').find((l) => l.includes('agentjet-vscode, startup')) ?? '')?.[1];
      const ls = descendants(w.server.process.pid!).find((p) => /dist\/server\.js/.test(p.args));
      console.log(
        `   ${build.label}: window open -> first problem of an unopened config: ${fmt(firstProblemMs !== undefined ? firstProblemMs / 1000 : undefined, 's')}`,
      );
      console.log(
        `      activated ${at(stampOf(log, /AgentJet (first stage )?activated/))} (event ${event ?? '?'})` +
          `, full extension loaded ${at(stampOf(log, /AgentJet (loaded|activated in)/))}` +
          `, language server started ${at(stampOf(log, /starting the AgentJet config language server/))}` +
          `, first pass done ${at(stampOf(log, /checked \d+ configs? in the workspace/))}`,
      );
      const probe = /workspace probe: (.*)/.exec(log);
      if (probe) console.log(`      probe: ${probe[1]}`);
      console.log(
        `      problems in the status bar after the pass: ${await problems()}${done ? ` (${done[0]})` : ''}; language server RSS ${fmt(ls ? ls.rssKb / 1024 : undefined, 'MB')}`,
      );
      const activated = stampOf(log, /AgentJet (first stage )?activated/);
      if (firstProblemMs !== undefined) {
        firsts.get(build.label)!.total.push(firstProblemMs / 1000);
        if (activated !== undefined) firsts.get(build.label)!.own.push((w.opened + firstProblemMs - activated) / 1000);
      }
    } finally {
      await w.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  if (rounds > 1)
    for (const [label, f] of firsts) {
      const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!.toFixed(1) : 'n/a');
      const all = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
      console.log(
        `   ${label}: first problem median ${med(f.total)} s (${all(f.total)}); from activation to it median ${med(f.own)} s (${all(f.own)})`,
      );
    }
}

/** Over the extension host's inspector: two full garbage collections, then V8's used heap in MB. */
async function collectGarbage(inspectPort: number): Promise<number | undefined> {
  const Ws = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!Ws) throw new Error('--gc needs a global WebSocket (Node 22, or node --experimental-websocket)');
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (!url) return undefined;
  const ws = new Ws(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const my = ++id;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s`)), 30_000);
      ws.onmessage = (e: MessageEvent) => {
        const msg = JSON.parse(String(e.data)) as { id?: number; result?: Record<string, unknown> };
        if (msg.id !== my) return;
        clearTimeout(timer);
        resolve(msg.result ?? {});
      };
      ws.send(JSON.stringify({ id: my, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.getHeapUsage');
    return typeof usage.usedSize === 'number' ? usage.usedSize / 1024 / 1024 : undefined;
  } finally {
    ws.close();
  }
}

/** The extension host's RSS: the median of five samples a second apart. */
async function hostRss(server: VSCodeServer): Promise<number | undefined> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const eh = extHost(server);
    if (eh) samples.push(eh.rssKb / 1024);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

/** The host's RSS and, with `--gc` (its inspector's port), V8's used heap after full collections. */
interface HostMemory {
  rss: number | undefined;
  heap: number | undefined;
  /** RSS after the collections (`--gc`). */
  rssGc: number | undefined;
}

async function hostMemory(server: VSCodeServer, inspectPort: number | undefined): Promise<HostMemory> {
  // The plain figure first (what a user's host holds, garbage and all), then after full collections.
  const rss = await hostRss(server);
  const heap = inspectPort ? await collectGarbage(inspectPort) : undefined;
  return { rss, heap, rssGc: inspectPort ? await hostRss(server) : undefined };
}

const delta = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined ? `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(1)} MB` : 'n/a';

async function benchUnrelated(builds: readonly Build[], rounds: number, gc: boolean): Promise<void> {
  console.log('B. 5,000 unrelated YAML files (50 folders of Kubernetes manifests, a CI file, 20 Python files), no file opened');
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-bench-yaml-'));
  unrelatedYamlWorkspace(tmp);
  // Per build (undefined: without AgentJet), the host's RSS over the same round's window without it.
  const over = new Map<string, { rss: number[]; heap: number[]; rssGc: number[] }>();
  try {
    let without: HostMemory | undefined;
    // Rounds alternate the builds, so that a machine's drift touches each alike.
    const order = Array.from({ length: rounds }, () => [undefined, ...builds]).flat();
    for (const [i, build] of order.entries()) {
      if (rounds > 1 && !build) console.log(`   round ${Math.floor(i / (builds.length + 1)) + 1} of ${rounds}`);
      const inspectPort = gc ? await freePort() : undefined;
      const w = await openWindow(tmp, build?.extensionsDir, inspectPort);
      try {
        const hostLog = () => agentJetLog(w.server, /remoteexthost\.log$/);
        await waitFor(() => /Eager extensions activated/.test(hostLog()), 'the extension host', 120_000, 250);
        if (build) {
          const extra = build.extra === true;
          // Settled: the probe logged its answer (both builds log a "workspace probe:" line).
          // (A variant under study may not probe at all: it is given half a minute.)
          const line = await waitFor(
            () => /workspace probe: (.*)/.exec(agentJetLog(w.server)),
            'the probe to finish',
            extra ? 30_000 : 120_000,
            250,
          ).catch(() => undefined);
          // What the probe might still start (a server for a config found) has its moment.
          await new Promise((r) => setTimeout(r, 3000));
          const log = agentJetLog(w.server);
          const activated = /AgentJet (first stage )?activated in ([\d.]+) ms/.exec(log);
          const loaded = /AgentJet loaded \(([^)]+)\) in ([\d.]+) ms/.exec(log);
          const event = /activationEvent: '([^']+)'/.exec(
            hostLog()
              .split('\n')
              .find((l) => l.includes('agentjet-vscode, startup')) ?? '',
          )?.[1];
          const ls = descendants(w.server.process.pid!).find((p) => /dist\/server\.js/.test(p.args));
          const mem = await hostMemory(w.server, inspectPort);
          console.log(`   ${build.label}:`);
          console.log(
            `      activated: ${activated ? `yes (${event ?? '?'}), activate() ${activated[2]} ms${activated[1] ? ' (first stage)' : ' (whole extension)'}` : 'no'}` +
              (activated?.[1] ? `; full extension loaded: ${loaded ? `yes (${loaded[1]}, ${loaded[2]} ms)` : 'no'}` : ''),
          );
          console.log(`      probe: ${line ? line[1] : 'did not finish'}`);
          console.log(`      language server started: ${ls ? `yes (${(ls.rssKb / 1024).toFixed(0)} MB)` : 'no'}`);
          console.log(
            `      extension host RSS: ${fmt(mem.rss, 'MB')} (${delta(mem.rss, without?.rss)} against the window without AgentJet)` +
              (gc
                ? `; after full GCs: RSS ${fmt(mem.rssGc, 'MB')} (${delta(mem.rssGc, without?.rssGc)}), V8 heap ${fmt(mem.heap, 'MB')} (${delta(mem.heap, without?.heap)})`
                : ''),
          );
          const o = over.get(build.label) ?? { rss: [], heap: [], rssGc: [] };
          if (mem.rss !== undefined && without?.rss !== undefined) o.rss.push(mem.rss - without.rss);
          if (mem.heap !== undefined && without?.heap !== undefined) o.heap.push(mem.heap - without.heap);
          if (mem.rssGc !== undefined && without?.rssGc !== undefined) o.rssGc.push(mem.rssGc - without.rssGc);
          over.set(build.label, o);
        } else {
          // The same moment as with AgentJet: its probe takes a few seconds at most.
          await new Promise((r) => setTimeout(r, 5000));
          without = await hostMemory(w.server, inspectPort);
          console.log(
            `   without AgentJet: extension host RSS ${fmt(without.rss, 'MB')}` +
              (gc ? `; after full GCs: RSS ${fmt(without.rssGc, 'MB')}, V8 heap ${fmt(without.heap, 'MB')}` : ''),
          );
        }
      } finally {
        await w.close();
      }
    }
    const summary = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return `median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1) ?? 'n/a'} MB (${sorted.map((x) => x.toFixed(1)).join(', ')})`;
    };
    if (rounds > 1)
      for (const [label, o] of over)
        console.log(
          `   ${label}, over the window without AgentJet: host RSS ${summary(o.rss)}` +
            (gc ? `; after full GCs: RSS ${summary(o.rssGc)}, V8 heap ${summary(o.heap)}` : ''),
        );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (!argv.includes('--no-package')) execFileSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { stdio: 'ignore' });
  if (!existsSync(vsixPath())) throw new Error('no .vsix');
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-bench-startup-'));
  const builds: Build[] = [];
  try {
    if (!argv.includes('--no-baseline')) {
      const i = argv.indexOf('--baseline');
      const rev = i >= 0 && argv[i + 1] ? argv[i + 1]! : defaultBaseline();
      const sha = execFileSync('git', ['rev-parse', '--short', rev], { cwd: repoRoot, encoding: 'utf8' }).trim();
      console.log(`before: ${rev} (${sha}), packaged from git archive; after: this tree`);
      builds.push({ label: `before (${sha})`, extensionsDir: installVsix(packageBaseline(rev, tmp)) });
    }
    if (!argv.includes('--no-after')) builds.push({ label: 'after', extensionsDir: installVsix(vsixPath()) });
    // `--ext label=dir`: an extensions folder prepared beforehand (a variant under study), compared alike; kept.
    const extra: Build[] = [];
    argv.forEach((a, i) => {
      const m = a === '--ext' ? /^([^=]+)=(.+)$/.exec(argv[i + 1] ?? '') : null;
      if (m) extra.push({ label: m[1]!, extensionsDir: m[2]!, extra: true });
    });
    const all = [...builds, ...extra];
    const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
    const rounds = argv.includes('--rounds') ? Math.max(1, Number(argv[argv.indexOf('--rounds') + 1]) || 1) : 1;
    if (only !== 'B') await benchRepository(all, rounds);
    if (only !== 'A') await benchUnrelated(all, rounds, argv.includes('--gc'));
  } finally {
    for (const b of builds) rmSync(b.extensionsDir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
