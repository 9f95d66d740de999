// npm run bench:startup - what opening a window costs (issue 23, item 1), in the real VS Code
// server with the packaged .vsix, in headless Chromium:
//   A. AgentJet's own repository (the agentjet-c68c154 tree copied to a temporary folder), no file
//      opened: seconds from opening the window to the first problem of a config nobody opened.
//   B. A workspace of 5,000 unrelated YAML files (Kubernetes manifests, CI files): whether AgentJet
//      activates, what activation and its probe cost, the extension host's memory with and without
//      AgentJet installed, and whether a language server process started.
// Prints figures; asserts nothing about timings. Needs `npm run package` first (the script does it).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

function installVsix(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bench-ext-'));
  const install = ensureAll();
  execFileSync(
    install.node,
    [install.serverMain, '--install-extension', vsixPath(), '--extensions-dir', dir, '--accept-server-license-terms'],
    {
      stdio: 'ignore',
    },
  );
  return dir;
}

/** 5,000 YAML files that are not AgentJet configs, 100 per folder. */
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
}

async function openWindow(folder: string, extensionsDir: string | undefined) {
  const server = await startServer(extensionsDir ? { extensionsDir } : {});
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
    await page.goto(server.url(folder), { timeout: 300_000 });
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

async function benchRepository(extensionsDir: string): Promise<void> {
  const tree = findUpstream('agentjet-c68c154');
  if (!tree) {
    console.log(`A. AgentJet's repository: skipped (${UPSTREAM_SKIP})`);
    return;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-bench-repo-'));
  const ws = join(tmp, 'AgentJet');
  cpSync(tree, ws, { recursive: true });
  // The reference tree is read-only; a user's clone is not (and the copy must be removable).
  execFileSync('chmod', ['-R', 'u+w', ws]);
  const w = await openWindow(ws, extensionsDir);
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
    const probe = /workspace probe: (\d+) YAML files searched in (\d+) ms/.exec(log);
    const host = agentJetLog(w.server, /remoteexthost\.log$/);
    const at = (t: number | undefined) => (t === undefined ? 'n/a' : `${((t - w.opened) / 1000).toFixed(1)} s`);
    console.log(
      `   after window open: extension host started ${at(stampOf(host, /Extension host with pid/))}, AgentJet activated ${at(stampOf(log, /AgentJet activated/))}` +
        ` (event ${/activationEvent: '([^']+)'/.exec(host.split('\n').find((l) => l.includes('agentjet-vscode, startup')) ?? '')?.[1] ?? '?'}),` +
        ` language server started ${at(stampOf(log, /starting the AgentJet config language server/))}, first pass done ${at(stampOf(log, /checked \d+ configs in the workspace/))}`,
    );
    const ls = descendants(w.server.process.pid!).find((p) => /dist\/server\.js/.test(p.args));
    console.log("A. AgentJet's repository (agentjet-c68c154), no file opened");
    console.log(
      `   window open -> first problem of an unopened config: ${fmt(firstProblemMs !== undefined ? firstProblemMs / 1000 : undefined, 's')}`,
    );
    console.log(`   problems in the status bar after the pass: ${await problems()}`);
    if (probe) console.log(`   probe: ${probe[1]} YAML files, first config found in ${probe[2]} ms`);
    if (done) console.log(`   background pass: ${done[0]}`);
    console.log(`   language server RSS: ${fmt(ls ? ls.rssKb / 1024 : undefined, 'MB')}`);
    console.log('   baseline (before this change): no problems until a config is opened (the server started only then)');
  } finally {
    await w.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function benchUnrelated(extensionsDir: string): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-bench-yaml-'));
  unrelatedYamlWorkspace(tmp);
  const rss: Record<string, number | undefined> = {};
  try {
    for (const installed of [false, true]) {
      const w = await openWindow(tmp, installed ? extensionsDir : undefined);
      try {
        if (installed) {
          const line = await waitFor(
            () => /workspace probe: (\d+) YAML files searched in (\d+) ms, no AgentJet config/.exec(agentJetLog(w.server)),
            'the probe to finish',
            120_000,
            250,
          ).catch(() => undefined);
          const log = agentJetLog(w.server);
          const act = /AgentJet activated in ([\d.]+) ms/.exec(log);
          const ls = descendants(w.server.process.pid!).find((p) => /dist\/server\.js/.test(p.args));
          console.log(`   activated: ${act ? `yes, activate() ${act[1]} ms (workspaceContains:**/*.yaml)` : 'no'}`);
          console.log(`   probe: ${line ? `${line[1]} YAML files read by head in ${line[2]} ms, no config` : 'did not finish'}`);
          console.log(`   language server started: ${ls ? `yes (${(ls.rssKb / 1024).toFixed(0)} MB)` : 'no'}`);
        } else {
          // The same moment for the window without AgentJet: its eager extensions activated, then as long as the probe took.
          await waitFor(
            () => /Eager extensions activated/.test(agentJetLog(w.server, /remoteexthost\.log$/)),
            'the extension host',
            120_000,
            250,
          );
          await new Promise((r) => setTimeout(r, 5000));
        }
        const eh = await waitFor(() => extHost(w.server), 'the extension host', 60_000, 250).catch(() => undefined);
        rss[installed ? 'with' : 'without'] = eh ? eh.rssKb / 1024 : undefined;
      } finally {
        await w.close();
      }
    }
    console.log(
      `   extension host RSS: ${fmt(rss.without, 'MB')} without AgentJet, ${fmt(rss.with, 'MB')} with it` +
        (rss.with !== undefined && rss.without !== undefined ? ` (+${(rss.with - rss.without).toFixed(0)} MB)` : ''),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!process.argv.includes('--no-package'))
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { stdio: 'ignore' });
  if (!existsSync(vsixPath())) throw new Error('no .vsix');
  const extensionsDir = installVsix();
  try {
    await benchRepository(extensionsDir);
    console.log('B. 5,000 unrelated YAML files (50 folders of Kubernetes manifests + a CI file)');
    await benchUnrelated(extensionsDir);
  } finally {
    rmSync(extensionsDir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
