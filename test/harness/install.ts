// Installs, once and idempotently, what the real-VS-Code test layers need on a fresh machine:
// Debian packages (Chromium, ripgrep, debugpy for /usr/bin/python3) and the open-source VS Code
// server that the npm package `code-server` ships. The server goes into a cache folder shared by
// all checkouts: $AGENTJET_VSCODE_DIR, default ~/.cache/agentjet-vscode-test.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, lstatSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { withDirLock } from '../util/poll';

/** code-server 4.100.x is the last line that runs on Node 20; it carries VS Code 1.100.3. */
const CODE_SERVER_VERSION = process.env.AGENTJET_CODE_SERVER_VERSION ?? '4.100.3';
const cacheDir = process.env.AGENTJET_VSCODE_DIR ?? join(homedir(), '.cache', 'agentjet-vscode-test');
export const serverMain = join(cacheDir, 'vscode', 'out', 'server-main.js');
export const chromiumPath = process.env.AGENTJET_CHROMIUM ?? '/usr/bin/chromium';

function log(msg: string): void {
  process.stderr.write(`[harness] ${msg}\n`);
}

function sh(cmd: string, args: string[], cwd?: string): void {
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, npm_config_yes: 'true' },
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
}

/** Debian packages the layers use, by the file each provides. */
const DEBIAN: Array<[string, () => boolean]> = [
  ['chromium', () => existsSync(chromiumPath)],
  ['ripgrep', () => existsSync('/usr/bin/rg')],
  ['python3-debugpy', () => spawnSync('/usr/bin/python3', ['-c', 'import debugpy'], { stdio: 'ignore' }).status === 0],
  ['python3-yaml', () => spawnSync('/usr/bin/python3', ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0],
  // CJK glyphs for the Simplified Chinese UI screenshots (otherwise boxes).
  ['fonts-noto-cjk', () => existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc')],
  // OmegaConf and its ANTLR runtime for the conformance layer: pip's mirror has no antlr4 4.9.
  ['python3-omegaconf', () => spawnSync('/usr/bin/python3', ['-c', 'import omegaconf'], { stdio: 'ignore' }).status === 0],
];

export function ensureDebianPackages(): void {
  const missing = DEBIAN.filter(([, present]) => !present()).map(([name]) => name);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`missing system packages: ${missing.join(', ')} (install them with apt-get, or point AGENTJET_CHROMIUM at a Chromium)`);
  }
  log(`apt-get install ${missing.join(' ')}`);
  sh('apt-get', ['update', '-qq']);
  sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

/** A lock so that parallel test runs do not install into the same folder at once. */
function withLock<T>(fn: () => T): T {
  mkdirSync(cacheDir, { recursive: true });
  return withDirLock(join(cacheDir, '.install-lock'), fn, 10 * 60_000, 500);
}

function linkForce(target: string, path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink() && readlinkSync(path) === target) return;
    unlinkSync(path);
  } catch {
    /* did not exist */
  }
  symlinkSync(target, path);
}

export function ensureVSCodeServer(): string {
  const marker = join(cacheDir, `.installed-${CODE_SERVER_VERSION}`);
  if (existsSync(marker) && existsSync(serverMain)) return serverMain;
  return withLock(() => {
    if (existsSync(marker) && existsSync(serverMain)) return serverMain;
    const started = Date.now();
    log(`installing VS Code server (code-server@${CODE_SERVER_VERSION}) into ${cacheDir}`);
    const pkgDir = join(cacheDir, 'pkg');
    const vscodeDir = join(pkgDir, 'node_modules', 'code-server', 'lib', 'vscode');
    if (!existsSync(join(vscodeDir, 'out', 'server-main.js'))) {
      mkdirSync(pkgDir, { recursive: true });
      writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: 'agentjet-vscode-test-server', private: true }));
      // --ignore-scripts: the package's own postinstall refuses root and downloads things.
      sh('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`], pkgDir);
    }
    // The server's own dependencies, again without scripts (ripgrep's would download a binary)...
    sh('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], vscodeDir);
    // ...then its native modules built against this Node.
    sh('npm', ['rebuild', '@parcel/watcher', '@vscode/spdlog', 'node-pty', 'native-watchdog', '@vscode/deviceid'], vscodeDir);
    mkdirSync(join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin'), { recursive: true });
    linkForce('/usr/bin/rg', join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'));
    linkForce('node_modules', join(vscodeDir, 'node_modules.asar'));
    linkForce(vscodeDir, join(cacheDir, 'vscode'));
    const version = execFileSync(process.execPath, [serverMain, '--version'], { encoding: 'utf8' }).split('\n')[0];
    writeFileSync(marker, `${version}\n`);
    log(`VS Code server ${version} ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return serverMain;
  });
}

export function ensureAll(): string {
  ensureDebianPackages();
  return ensureVSCodeServer();
}

if (require.main === module) {
  ensureAll();
  log(`ok: ${serverMain}`);
}
