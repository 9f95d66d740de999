// A launch's processes die with their owner (the extension host, the adapter process, the CLI).
// The launcher, debugpy's adapter and their children run detached (own process groups, so Stop can
// end each tree whole); when the owner itself dies (SIGKILL, a crashed or reloaded extension host),
// nothing would end them. The watchdog is a tiny node process holding a pipe from the owner: when the
// pipe closes without a "done" line, the owner is gone, and the watchdog ends every group it was
// told about, sparing the companions listed in the companion folders (their .pgid files) at that
// moment, and every process that carries the launch's token in its environment (a daemon that left
// the groups; core/launch/launchToken.ts; Linux), companions aside. On Windows (no groups, no signals) it ends the trees under the pids it was told about with
// `taskkill /T /F` (core/launch/treeKill.ts builds the same command for the owner's own stop).
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The watchdog's program (run with `node -e`); lines on stdin: `g <pgid>` (POSIX), `p <pid>` (a tree
 * root, Windows), `s <companion folder>`, `t <launch token>`, `d` (done).
 */
export const WATCHDOG_SCRIPT = `
const fs = require('fs'), path = require('path'), cp = require('child_process');
const groups = new Set(), dirs = new Set(), roots = new Set(), tokens = new Set();
let done = false, buf = '', fired = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
    const l = buf.slice(0, i); buf = buf.slice(i + 1);
    if (l[0] === 'g') { const g = Number(l.slice(2)); if (Number.isInteger(g) && g > 1) groups.add(g); }
    else if (l[0] === 'p') { const p = Number(l.slice(2)); if (Number.isInteger(p) && p > 1) roots.add(p); }
    else if (l[0] === 's') dirs.add(l.slice(2));
    else if (l[0] === 't' && /^[0-9a-f]{8,}$/.test(l.slice(2))) tokens.add(l.slice(2));
    else if (l[0] === 'd') done = true;
  }
});
const fire = () => {
  if (fired) return; fired = true;
  if (done) process.exit(0);
  if (process.platform === 'win32') {
    for (const p of roots) { try { cp.spawnSync('taskkill', ['/PID', String(p), '/T', '/F'], { windowsHide: true, timeout: 10000 }); } catch {} }
    process.exit(0);
  }
  const spare = new Set();
  for (const d of dirs) {
    try { for (const f of fs.readdirSync(d)) if (f.endsWith('.pgid')) spare.add(parseInt(fs.readFileSync(path.join(d, f), 'utf8'), 10)); } catch {}
  }
  const gs = [...groups].filter((g) => !spare.has(g) && g !== process.pid);
  // Processes whose environment (read bounded) carries a token, outside the spared groups.
  const marked = () => {
    const out = [];
    if (!tokens.size || process.platform !== 'linux') return out;
    const needles = [...tokens].map((t) => Buffer.from('\\0AGENTJET_LAUNCH_TOKEN=' + t + '\\0'));
    let names = [];
    try { names = fs.readdirSync('/proc'); } catch {}
    const chunk = Buffer.alloc(65536);
    for (const n of names) {
      const pid = Number(n);
      if (!/^\\d+$/.test(n) || pid <= 1 || pid === process.pid) continue;
      let fd, hit = false;
      try {
        fd = fs.openSync('/proc/' + n + '/environ', 'r');
        let carry = Buffer.from([0]);
        for (let read = 0; !hit && read < 1048576; ) {
          const got = fs.readSync(fd, chunk, 0, chunk.length, null);
          const w = Buffer.concat([carry, chunk.subarray(0, got), got ? Buffer.alloc(0) : Buffer.from([0])]);
          hit = needles.some((x) => w.includes(x));
          if (!got) break;
          read += got; carry = w.subarray(Math.max(0, w.length - 256));
        }
      } catch {} finally { if (fd !== undefined) try { fs.closeSync(fd); } catch {} }
      if (!hit) continue;
      try {
        const st = fs.readFileSync('/proc/' + n + '/stat', 'utf8');
        const pg = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[2]);
        if (!spare.has(pg)) out.push(pid);
      } catch {}
    }
    return out;
  };
  const sig = (s) => {
    for (const g of gs) { try { process.kill(-g, s); } catch {} }
    for (const p of marked()) { try { process.kill(p, s); } catch {} }
  };
  sig('SIGTERM');
  setTimeout(() => { sig('SIGKILL'); process.exit(0); }, 1500);
};
process.stdin.on('end', fire);
process.stdin.on('close', fire);
process.stdin.on('error', fire);
`;

export class Watchdog {
  private child: ChildProcess | undefined;
  private readonly sent = new Set<string>();
  private released = false;

  /** Starts the watchdog process (every platform; `spawnIt` false: a watchdog that guards nothing, for tests). */
  constructor(spawnIt = true) {
    if (!spawnIt) return;
    try {
      this.child = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT], {
        // In the extension host process.execPath is Electron: run it as plain node.
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        detached: true,
        windowsHide: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      this.child.on('error', () => (this.child = undefined));
      this.child.stdin?.on('error', () => undefined);
      this.child.unref();
      // The pipe must not keep the adapter's event loop alive.
      (this.child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    } catch {
      this.child = undefined;
    }
  }

  /** Pid of the watchdog process (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private send(line: string): void {
    if (this.released || !this.child?.stdin || this.sent.has(line)) return;
    this.sent.add(line);
    this.child.stdin.write(line + '\n');
  }

  /** A process group to end if the adapter dies. */
  guard(pgid: number | undefined): void {
    if (pgid && pgid > 1) this.send(`g ${pgid}`);
  }

  /** A process whose tree to end if the owner dies (Windows, where there are no groups). */
  guardTree(pid: number | undefined): void {
    if (pid && pid > 1) this.send(`p ${pid}`);
  }

  /** The launch's token: processes whose environment carries it are ended too (Linux). */
  sweepToken(token: string): void {
    if (/^[0-9a-f]{8,}$/.test(token)) this.send(`t ${token}`);
  }

  /** A companion folder: groups named by its .pgid files are spared. */
  spare(folder: string): void {
    if (!folder.includes('\n')) this.send(`s ${folder}`);
  }

  /** The session ended its own processes: the watchdog exits without touching anything. */
  release(): void {
    if (this.released) return;
    this.send('d');
    this.released = true;
    this.child?.stdin?.end();
  }
}
