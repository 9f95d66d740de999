// `npm run demo`: builds and packages the extension, installs the .vsix into a VS Code and opens
// the demo workspace. Uses the desktop `code` CLI when present, otherwise the VS Code server from
// the test harness (printing the URL to open). `--screenshot FILE` opens it headless instead,
// shows the AgentJet view and the demo config, writes a screenshot and exits.
//   npm run demo [-- --port 18100] [-- --screenshot demo.png] [-- --server]
// `--port N` serves on 127.0.0.1:N (the VS Code server; the desktop `code` CLI has no port).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ensureDebianPackages, ensureVSCodeServer } from '../test/harness/install';
import { launchBrowser, openPage, startServer } from '../test/harness/server';
import { vsixPath } from '../test/harness/workbench';

const root = resolve(__dirname, '..');
const demo = join(root, 'demo');
const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const screenshot = opt('--screenshot');
const forceServer = args.includes('--server');
// A fixed port is what one forwards over SSH once and keeps; without it a free one is taken.
const portArg = opt('--port');
const port = portArg === undefined ? undefined : Number(portArg);
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error(`--port wants a port number (1-65535), got ${portArg ?? ''}`);
  process.exit(2);
}

execFileSync(process.execPath, [join(root, 'scripts', 'package.mjs')], { cwd: root, stdio: 'inherit' });
const vsix = vsixPath();

async function main(): Promise<void> {
  const hasCode = !screenshot && !forceServer && spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
  if (hasCode) {
    execFileSync('code', ['--install-extension', vsix, '--force'], { stdio: 'inherit' });
    execFileSync('code', [demo], { stdio: 'inherit' });
    console.log(`Opened ${demo} in VS Code with AgentJet installed.`);
    return;
  }
  if (screenshot) ensureDebianPackages();
  const install = ensureVSCodeServer();
  const extensionsDir = screenshot ? mkdtempSync(join(tmpdir(), 'agentjet-demo-ext-')) : join(root, '.vscode-test', 'demo-extensions');
  mkdirSync(extensionsDir, { recursive: true });
  execFileSync(
    install.node,
    [install.serverMain, '--install-extension', vsix, '--force', '--extensions-dir', extensionsDir, '--accept-server-license-terms'],
    { stdio: 'ignore' },
  );
  const server = await startServer({ extensionsDir, workspaceTrust: !screenshot, ...(port !== undefined ? { port } : {}) });
  const url = server.url(demo);
  if (!screenshot) {
    console.log(
      `\nVS Code with AgentJet is serving the demo workspace.\nOpen: ${url}\n(over SSH: forward port ${server.port} first). Ctrl+C stops it.`,
    );
    const stop = () => {
      void server.stop().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    await new Promise<void>((r) => server.process.once('exit', () => r()));
    return;
  }
  const browser = await launchBrowser();
  try {
    const page = await openPage(browser, url);
    const item = page.locator('.part.activitybar .action-item a[aria-label^="AgentJet"]').first();
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    await item.click();
    await page.locator('.pane-header', { hasText: 'Runs' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('math_agent.yaml');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'math_agent.yaml' }).first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines .view-line').first().waitFor({ state: 'visible', timeout: 30_000 });
    // Let the tree fill in and the config features arrive (the CodeLens comes with them).
    await page
      .locator('.pane-body .monaco-list-row')
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 })
      .catch(() => undefined);
    await page
      .locator('.codelens-decoration', { hasText: 'Debug rollout' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 })
      .catch(() => undefined);
    await page
      .locator('.statusbar', { hasText: 'Activating Extensions' })
      .waitFor({ state: 'detached', timeout: 30_000 })
      .catch(() => undefined);
    const file = resolve(screenshot);
    mkdirSync(dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    console.log(`screenshot: ${file}`);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(extensionsDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
