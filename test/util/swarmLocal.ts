// AgentJet's real swarm server for tests (test/fixtures/swarm): the server as `ajet-swarm start`
// starts it, an engine driver playing the trainer's side over the server's HTTP API, and the real
// SwarmClient. The server binds 0.0.0.0, so the tests that start it run inside a loopback-only
// network namespace (test/util/rayLocal.ts: rerunInNetns). Every process is in its own group and
// killed by dispose().
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths';
import { upstreamCandidates } from './upstream';
import { freePort } from './net';

export const swarmFixture = join(repoRoot, 'test', 'fixtures', 'swarm');
/** AgentJet 0.0.4, the first with swarm mode. */
export const SWARM_TREE = 'agentjet-c68c154';
const BEAST_TREE = 'beast-logger-6ba1ca5';

/** The AgentJet 0.0.4 and beast-logger trees, or undefined when a candidate folder lacks them. */
export function swarmTrees(): { agentjet: string; beast: string } | undefined {
  for (const dir of upstreamCandidates()) {
    const agentjet = join(dir, SWARM_TREE);
    const beast = join(dir, BEAST_TREE);
    if (existsSync(join(agentjet, 'ajet', 'swarm_cli.py')) && existsSync(join(beast, 'beast_logger'))) return { agentjet, beast };
  }
  return undefined;
}

interface Proc {
  child: ChildProcess;
  output(): string;
  waitOutput(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
  kill(): Promise<void>;
}

function start(python: string, script: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(python, ['-u', join(swarmFixture, script), ...args], {
    cwd: swarmFixture,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
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
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  return {
    child,
    output: () => out,
    exited,
    waitOutput(re, ms = 30_000) {
      const m = re.exec(out);
      if (m) return Promise.resolve(m);
      return new Promise((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`timed out waiting for ${re} from ${script}:\n${out.slice(-2000)}`)), ms);
        waiters.push({
          re,
          res: (mm) => {
            clearTimeout(timer);
            res(mm);
          },
        });
      });
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 3000);
      await exited;
      clearTimeout(t);
    },
  };
}

export interface SwarmServer {
  url: string;
  port: number;
  proc: Proc;
  dispose(): Promise<void>;
}

/** Starts the real swarm server on a free port; resolves once /health answers. */
export async function startSwarmServer(python: string, port?: number): Promise<SwarmServer> {
  const trees = swarmTrees();
  if (!trees) throw new Error(`${SWARM_TREE} not found`);
  const p = port ?? (await freePort());
  const ipc = mkdtempSync(join(tmpdir(), 'ajsw-'));
  const proc = start(python, 'server.py', [trees.agentjet, trees.beast, String(p)], { AJET_IPC_DIR: ipc });
  proc.child.stdout!.on('data', (b: Buffer) => void b);
  const url = `http://127.0.0.1:${p}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`swarm server exited:\n${proc.output().slice(-2000)}`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      await proc.kill();
      throw new Error(`swarm server did not answer /health within 30 s:\n${proc.output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port: p,
    proc,
    async dispose() {
      await proc.kill();
      rmSync(ipc, { recursive: true, force: true });
    },
  };
}

export interface EngineAnswer {
  ok: boolean;
  error?: string;
  episodes?: string[];
  done?: number;
}

export interface Engine {
  send(cmd: Record<string, unknown>): Promise<EngineAnswer>;
  /** Moves the server to `status` as AgentJet's trainer does; throws when the server refused. */
  state(status: string, globalStep?: number, detail?: string): Promise<void>;
  dispose(): Promise<void>;
}

/** The engine driver for a server (AgentJet's own interchange_utils calls). */
export function startEngine(python: string, server: SwarmServer): Engine {
  const trees = swarmTrees()!;
  const proc = start(python, 'engine.py', [trees.agentjet, trees.beast, String(server.port)]);
  const rl = createInterface({ input: proc.child.stdout! });
  const pending: ((a: EngineAnswer) => void)[] = [];
  rl.on('line', (l) => {
    const r = pending.shift();
    if (!r) return;
    try {
      r(JSON.parse(l) as EngineAnswer);
    } catch {
      r({ ok: false, error: `not JSON: ${l}` });
    }
  });
  let chain: Promise<unknown> = Promise.resolve();
  const send = (cmd: Record<string, unknown>): Promise<EngineAnswer> => {
    const p = chain.then(
      () =>
        new Promise<EngineAnswer>((res, rej) => {
          const timer = setTimeout(
            () => rej(new Error(`engine driver: no answer to ${JSON.stringify(cmd)}:\n${proc.output().slice(-2000)}`)),
            60_000,
          );
          pending.push((a) => {
            clearTimeout(timer);
            res(a);
          });
          proc.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
        }),
    );
    chain = p.catch(() => undefined);
    return p;
  };
  return {
    send,
    async state(status, globalStep, detail) {
      const a = await send({ op: 'state', status, global_step: globalStep ?? null, detail: detail ?? null });
      if (!a.ok) throw new Error(`engine driver: ${a.error}`);
    },
    async dispose() {
      try {
        proc.child.stdin!.end();
      } catch {
        /* closed */
      }
      await proc.kill();
    },
  };
}

/** Runs the real SwarmClient for `episodes` episodes; resolves with its client uuid and output. */
export function runSwarmClient(
  python: string,
  url: string,
  episodes: number,
  taskPrefix = 'task',
): { proc: Proc; done: Promise<{ code: number | null; clientUuid: string; output: string }> } {
  const trees = swarmTrees()!;
  const proc = start(python, 'client.py', [trees.agentjet, trees.beast, url, String(episodes), taskPrefix]);
  let stdout = '';
  proc.child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  const done = proc.exited.then((code) => ({ code, clientUuid: /CLIENT (\S+)/.exec(stdout)?.[1] ?? '', output: stdout + proc.output() }));
  return { proc, done };
}

/** Runs a swarm client script (a template's) with the fixture's stand-ins; env AJET_SWARM_URL = url. */
export function runSwarmScript(
  python: string,
  url: string,
  script: string,
  args: string[],
): Promise<{ code: number | null; output: string }> {
  const trees = swarmTrees()!;
  const proc = start(python, 'run_script.py', [trees.agentjet, trees.beast, script, ...args], { AJET_SWARM_URL: url });
  let stdout = '';
  proc.child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  return proc.exited.then((code) => ({ code, output: stdout + proc.output() }));
}
