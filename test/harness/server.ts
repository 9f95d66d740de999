// Starts a real VS Code server (from install.ts) on a free loopback port, with its own user,
// server-data and extensions folders, and opens its workbench in headless Chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumPath, ensureAll, type ServerInstall } from './install';

export interface ServerOptions {
  /** Extra environment for the server and so for the extension host it starts. */
  env?: Record<string, string>;
  /** Folder with installed extensions (UI tests); default: an empty temporary one. */
  extensionsDir?: string;
  /** User settings written to the profile before start. */
  settings?: Record<string, unknown>;
  /** Enable workspace trust prompts (off by default: the test workspace is trusted). */
  workspaceTrust?: boolean;
  /** Display language (`--locale`, e.g. 'zh-cn', with a registered language pack, see registerLanguagePack). */
  displayLanguage?: string;
  /** The loopback port to listen on (`npm run demo -- --port N`); default: a free one. */
  port?: number;
  /**
   * Honour the URL's `payload` (extensionDevelopmentPath, extensionTestsPath): what the
   * extension-host layer needs. A built VS Code web workbench reads it only when the server runs with
   * `--enable-smoke-test-driver` (since about 1.10x; VS Code's own web smoke tests start it so).
   */
  extensionDevelopment?: boolean;
  /** Which server: `newest`, `oldest` or a code-server version (default: $AGENTJET_CODE_SERVER_VERSION, else newest). */
  server?: string;
  /**
   * The server's `--reconnection-grace-time` in seconds, where the server has it (VS Code 1.139 does,
   * 1.100 does not): how long it keeps the extension host of a window that went without saying so
   * (3 h by default; 5 min once another window connected).
   */
  reconnectionGraceSeconds?: number;
}

export interface VSCodeServer {
  readonly port: number;
  readonly dataDir: string;
  readonly extensionsDir: string;
  readonly process: ChildProcess;
  /** The VS Code server that runs, and its Node. */
  readonly install: ServerInstall;
  /** Everything the server printed so far. */
  output(): string;
  url(folder: string, payload?: Array<[string, string]>): string;
  remoteUri(path: string): string;
  stop(): Promise<void>;
}

export async function startServer(opts: ServerOptions = {}): Promise<VSCodeServer> {
  const install = ensureAll(opts.server);
  process.stderr.write(`[harness] ${install.label}\n`);
  const dataDir = mkdtempSync(join(tmpdir(), 'agentjet-vscode-'));
  const userDataDir = join(dataDir, 'user');
  const extensionsDir = opts.extensionsDir ?? join(dataDir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  // The web workbench keeps user settings in the browser; the server's machine settings apply to
  // the extension host, which is what the tests exercise.
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'security.workspace.trust.enabled': opts.workspaceTrust ?? false,
    // The demo and test folders sit inside this repository's checkout.
    'git.openRepositoryInParentFolders': 'never',
    // VS Code 1.10x+ opens its Chat view beside the editor on first start and starts an agent
    // host: neither is part of what these tests drive, and the view takes a third of the width.
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    ...opts.settings,
  };
  mkdirSync(join(dataDir, 'server', 'data', 'Machine'), { recursive: true });
  writeFileSync(join(dataDir, 'server', 'data', 'Machine', 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  if (opts.displayLanguage) registerLanguagePack(userDataDir, opts.displayLanguage);

  const args = [
    install.serverMain,
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--telemetry-level',
    'off',
    '--user-data-dir',
    userDataDir,
    '--server-data-dir',
    join(dataDir, 'server'),
    '--extensions-dir',
    extensionsDir,
  ];
  if (!(opts.workspaceTrust ?? false)) args.push('--disable-workspace-trust');
  if (opts.extensionDevelopment) args.push('--enable-smoke-test-driver');
  if (opts.displayLanguage) args.push('--locale', opts.displayLanguage);
  if (opts.reconnectionGraceSeconds !== undefined && readFileSync(install.serverMain, 'utf8').includes('reconnection-grace-time'))
    args.push('--reconnection-grace-time', String(opts.reconnectionGraceSeconds));
  const child = spawn(install.node, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`VS Code server did not start within 60 s:\n${out}`)), 60_000);
    const onData = (buf: Buffer) => {
      out += buf.toString();
      const m = /Extension host agent listening on (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`VS Code server exited (${code}) before listening:\n${out}`));
    });
  });
  const remoteUri = (p: string) => `vscode-remote://127.0.0.1:${port}${p.startsWith('/') ? '' : '/'}${p}`;
  return {
    port,
    dataDir,
    extensionsDir,
    process: child,
    install,
    output: () => out,
    remoteUri,
    url(folder, payload) {
      let u = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
      if (payload) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      return u;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          /* already gone */
        }
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, 5_000);
        await exited;
        clearTimeout(timer);
      }
      // AGENTJET_HARNESS_KEEP=1 keeps the logs (user/logs/…/AgentJet.log) for a failure's post-mortem.
      if (process.env.AGENTJET_HARNESS_KEEP === '1') console.log(`harness: kept ${dataDir}`);
      else rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * The server serves a display language only when a language pack for it is registered in
 * languagepacks.json (the Marketplace's packs are not reachable offline). This registers an empty
 * one: VS Code's own strings stay English, but the workbench runs in `lang`, so extensions'
 * package.nls.<lang>.json and l10n bundles apply — what the tests of our translations need.
 */
function registerLanguagePack(serverUserData: string, lang: string): void {
  const dir = join(serverUserData, 'test-language-pack');
  mkdirSync(dir, { recursive: true });
  const translations = join(dir, 'main.i18n.json');
  writeFileSync(translations, JSON.stringify({ contents: {} }));
  writeFileSync(
    join(serverUserData, 'languagepacks.json'),
    JSON.stringify({
      [lang]: {
        hash: `test-${lang}`,
        extensions: [{ extensionIdentifier: { id: `agentjet-test.language-pack-${lang}` }, version: '0.0.0' }],
        translations: { vscode: translations },
        label: lang,
      },
    }),
  );
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/**
 * Opens a page sized like a laptop screen, echoing the workbench console when asked. `locale`
 * (e.g. 'zh-CN') is the browser's language; the display language itself comes from the server
 * (startServer's `displayLanguage`).
 */
export async function openPage(browser: Browser, url: string, onConsole?: (text: string) => void, locale?: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, ...(locale ? { locale } : {}) });
  if (onConsole) page.on('console', (m) => onConsole(m.text()));
  await page.goto(url);
  return page;
}
