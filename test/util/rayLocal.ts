// A real local Ray for tests, on loopback only. Ray's debugger listens on the node's routed address
// (ray/util/debugpy.py uses the worker's node_ip_address), so the Ray tests run inside a network
// namespace whose only interface is `lo` (`unshare --net`, needs root or user namespaces): the
// outer test re-runs its own file there. Everything a run starts is found by its private temp dir
// and killed at the end, even on failure; `ray stop` is not used because it would stop every Ray
// on the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths';
import { findUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from './upstream';
import { ensureTestPython } from '../harness/python';
import { descendants, listProcesses, terminate } from '../../core/launch/processes';
import { newLaunchToken, processesWithToken, withLaunchToken } from '../../core/launch/launchToken';
import { skipForEnvironment } from './envSkip';

export const rayFixture = join(repoRoot, 'test', 'fixtures', 'ray-training');

/**
 * AgentJet's own `ajet/utils` folder (upstream, 0.0.4 else January; both have the same vsdb.py), whose
 * real `vsdb.py` gives the fixture its `bp()` (test/fixtures/ray-training/README.md); undefined
 * without the upstream trees (the Ray tests then skip).
 */
export function agentJetUtils(): string | undefined {
  const tree = findUpstream('agentjet-c68c154') ?? findUpstream('agentjet-d20cce0');
  return tree ? join(tree, 'ajet', 'utils') : undefined;
}

/** The environment that gives the fixture AgentJet's real bp() (see agentJetUtils). */
export function fixtureEnv(): Record<string, string> {
  const utils = agentJetUtils();
  if (!utils) throw new Error(`AgentJet's ajet/utils/vsdb.py is needed: ${UPSTREAM_SKIP}`);
  return { AJ_AGENTJET_UTILS: utils };
}
export const rayFixtureRollout = join(rayFixture, 'train', 'rollout.py');
export const NETNS_ENV = 'AGENTJET_LOOPBACK_NETNS';

/** True when this process sees no interface but loopback. */
export function loopbackOnly(): boolean {
  return Object.keys(networkInterfaces()).every((n) => n === 'lo');
}

/** Why a loopback-only namespace cannot be made here, or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  const r = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && true'], { encoding: 'utf8' });
  if (r.error) return `unshare not available: ${r.error.message}`;
  if (r.status !== 0) return `cannot make a loopback-only network namespace (unshare --net): ${(r.stderr || '').trim().slice(0, 200)}`;
  return undefined;
}

/**
 * Runs `node --import tsx --test <file>` inside a loopback-only namespace; resolves with its exit
 * code and the namespace (`net:[inode]`), which tells its processes from those of other test files
 * running at the same time.
 */
export async function rerunInNetns(
  file: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; netns: string | undefined }> {
  const nsDir = mkdtempSync(join(tmpdir(), 'aj-netns-'));
  const nsFile = join(nsDir, 'ns');
  const cmd = `readlink /proc/self/ns/net > "${nsFile}"; ip link set lo up && exec "${process.execPath}" --import tsx --test --test-reporter=spec "${file}"`;
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, [NETNS_ENV]: '1' };
  // Otherwise the inner node:test sees it runs under a parent runner and skips the file.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn('unshare', ['--net', 'sh', '-c', cmd], { cwd: repoRoot, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number>((res) => child.on('close', (c) => res(c ?? 1)));
  let netns: string | undefined;
  try {
    netns = readFileSync(nsFile, 'utf8').trim() || undefined;
  } catch {
    netns = undefined;
  }
  rmSync(nsDir, { recursive: true, force: true });
  return { code, netns };
}

/** The network namespace of a process (`net:[inode]`), undefined when it has gone or is not ours to read. */
function netnsOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** True in the outer run of a file whose real tests need the loopback-only namespace. */
export function outsideLoopbackNetns(): boolean {
  return !loopbackOnly() && process.env[NETNS_ENV] !== '1';
}

/** Processes of a Ray instance (or a test's temp folders) that must not outlive a run. */
const RAY_STRAY = /ray::|raylet|gcs_server|ajr-|agentjet-vscode-raybp/;

/**
 * The outer test of such a file: skips, saying why, when no namespace can be made or AgentJet's
 * vsdb.py (the fixture's bp()) is missing; else re-runs the file inside the namespace and fails when
 * that run failed or left a Ray process running. A zombie ("<defunct>") has exited: it does not count.
 */
export function testInLoopbackNetns(file: string, title: string, timeoutMs: number): void {
  test(`${title} (re-run in a loopback-only network namespace)`, { timeout: timeoutMs }, async (t) => {
    if (skipForEnvironment(t, netnsUnavailable())) return;
    if (!agentJetUtils() && skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} AgentJet's ajet/utils/vsdb.py missing; ${UPSTREAM_SKIP}`)) return;
    ensureTestPython();
    const before = new Set((await listProcesses()).map((p) => p.pid));
    const { code, netns } = await rerunInNetns(file);
    // Only this run's namespace: other test files may run Ray at the same time.
    const strays = (await listProcesses()).filter(
      (p) => !before.has(p.pid) && RAY_STRAY.test(p.args) && !/<defunct>\s*$/.test(p.args) && (!netns || netnsOf(p.pid) === netns),
    );
    assert.deepEqual(
      strays.map((p) => p.args),
      [],
      'no Ray process is left running',
    );
    assert.equal(code, 0, 'the tests passed inside the namespace (see their output above)');
  });
}

export interface RayRun {
  child: ChildProcess;
  tempDir: string;
  output: () => string;
  /** Resolves when the output matches. */
  waitOutput(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
  /** Kills the driver and every process of this Ray instance, removes its temp dir. */
  dispose(): Promise<void>;
}

/** Starts the fixture's stand-in launcher (a real Ray driver) with a private Ray temp dir. */
export function startFixtureRun(python: string, opts: { tags?: string; fail?: boolean; env?: Record<string, string> } = {}): RayRun {
  const aj = fixtureEnv();
  // Short: Ray puts unix sockets under it (107-byte limit).
  const tempDir = mkdtempSync('/tmp/ajr-');
  const args = ['-u', '-m', 'ajet.launcher', '--conf', 'ray_train.yaml', '--backbone', 'verl', '--with-ray'];
  if (opts.tags) args.push('--debug', opts.tags);
  if (opts.fail) args.push('--fail');
  const child = spawn(python, args, {
    cwd: rayFixture,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PYTHONPATH: rayFixture,
      ...aj,
      AJ_RAY_TEMP: tempDir,
      RAY_DEBUG: '1',
      RAY_DEDUP_LOGS: '0',
      RAY_USAGE_STATS_ENABLED: '0',
      ...opts.env,
    },
  });
  let out = '';
  const waiters: { re: RegExp; res: (m: RegExpExecArray) => void }[] = [];
  const onData = (b: Buffer): void => {
    out += b.toString();
    for (const w of [...waiters]) {
      const m = w.re.exec(out);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.res(m);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  return {
    child,
    tempDir,
    output: () => out,
    exited,
    waitOutput(re, ms = 90_000) {
      const m = re.exec(out);
      if (m) return Promise.resolve(m);
      return new Promise((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`timed out waiting for ${re} in the Ray driver's output:\n${out.slice(-3000)}`)), ms);
        waiters.push({
          re,
          res: (mm) => {
            clearTimeout(timer);
            res(mm);
          },
        });
      });
    },
    async dispose() {
      try {
        if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      await killRayProcesses(tempDir, child.pid);
      rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** Every process whose command line names `tempDir` (raylet, GCS, workers...) or in the driver's group. */
export async function killRayProcesses(tempDir: string, driverPid?: number): Promise<number[]> {
  const procs = await listProcesses();
  const roots = procs.filter(
    (p) => p.pid !== process.pid && (p.args.includes(tempDir) || p.pid === driverPid || (driverPid !== undefined && p.pgid === driverPid)),
  );
  // Workers rename themselves (`ray::rollout`): take everything below the raylet and the driver too.
  const pids = [...new Set([...roots.map((p) => p.pid), ...roots.flatMap((r) => descendants(r.pid, procs).map((p) => p.pid))])].filter(
    (p) => p !== process.pid,
  );
  const groups = driverPid ? [driverPid] : [];
  return terminate({ pids, pgids: groups }, 3000);
}

/** The 1-based line of the first line containing `needle` in `text`. */
export function lineIn(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not found`);
  return i + 1;
}

export interface TwoNodeRay {
  /** GCS address of the head node, for RAY_ADDRESS. */
  address: string;
  /** The head node's temp dir (its session holds the driver's and the head workers' logs). */
  headTemp: string;
  /** The second node's temp dir: its worker logs are kept apart, as on another machine. */
  farTemp: string;
  /** Kills every process of both nodes and removes their temp dirs. */
  dispose(): Promise<void>;
}

/**
 * A two-node Ray cluster on this machine (`ray start --head`, then `ray start --address`), each node
 * with its own temp dir, so the second node's worker logs are not where the head's session is, as
 * on another machine. The second node has the custom resource `far` to pin work to it.
 */
export function startTwoNodeRay(python: string): TwoNodeRay {
  const ray = join(python, '..', process.platform === 'win32' ? 'ray.exe' : 'ray');
  const headTemp = mkdtempSync('/tmp/ajr-h-');
  const farTemp = mkdtempSync('/tmp/ajr-f-');
  const address = '127.0.0.1:6379';
  // Every process `ray start` leaves carries this token: the Ray client server it starts names
  // neither temp dir and is no one's child once `ray start` exits (it was found left running).
  const token = newLaunchToken();
  const env = withLaunchToken({ ...process.env, RAY_USAGE_STATS_ENABLED: '0' }, token);
  const dispose = async (): Promise<void> => {
    await killRayProcesses(headTemp);
    await killRayProcesses(farTemp);
    await terminate({ pids: await processesWithToken(token), pgids: [] }, 3000);
    rmSync(headTemp, { recursive: true, force: true });
    rmSync(farTemp, { recursive: true, force: true });
  };
  const start = (args: string[]): void => {
    const r = spawnSync(ray, ['start', ...args, '--node-ip-address=127.0.0.1', '--disable-usage-stats'], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) {
      void dispose();
      throw new Error(`ray start ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
    }
  };
  start(['--head', '--port=6379', `--temp-dir=${headTemp}`, '--num-cpus=1', '--include-dashboard=false']);
  start([`--address=${address}`, `--temp-dir=${farTemp}`, '--num-cpus=3', '--resources={"far": 8}']);
  return { address, headTemp, farTemp, dispose };
}
