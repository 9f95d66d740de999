// npm run bench:debug — time from launch to the first breakpoint in the demo workflow, through our
// adapter vs. plain debugpy launching the same command (`-m ajet.launcher --backbone debug --conf`),
// interleaved in one run. Prints medians and their ratio (target: ours / plain <= 1.2).
// Uses the tests' Python (test/harness/python.ts: pip venv, debugpy >= 1.8) and the stand-in backbone.
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { AgentJetDebugSession } from '../debug-adapter/session';
import { join } from 'node:path';
import { adapterJs, demoCopy, lineOf, standInBackbone } from '../test/util/debugWorkspace';
import { ensureTestPython } from '../test/harness/python';

/** The tests' Python: a pip venv with debugpy >= 1.8 (Debian's python3-debugpy only as the fallback). */
const python = ensureTestPython().python;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

async function timeToBreakpoint(
  dc: DebugClient,
  args: Record<string, unknown>,
  file: string,
  line: number,
  port?: number,
): Promise<number> {
  dc.defaultTimeout = 60_000;
  const t0 = performance.now();
  await dc.start(port);
  await dc.hitBreakpoint(args, { path: file, line });
  const ms = performance.now() - t0;
  await dc.stop();
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  const w = await demoCopy('aj-bench-debug-');
  try {
    const line = lineOf(w.workflow, 'answer = reply.choices');
    const debugpyDir = execFileSync(python, ['-c', 'import debugpy, os; print(os.path.dirname(debugpy.__file__))']).toString().trim();
    const version = execFileSync(python, ['-c', 'import debugpy; print(debugpy.__version__)']).toString().trim();
    const env = { PYTHONPATH: standInBackbone };
    const ours = { config: w.config, cwd: w.dir, python, env };
    const plain = {
      type: 'python',
      request: 'launch',
      name: 'plain',
      module: 'ajet.launcher',
      args: ['--backbone', 'debug', '--conf', w.config],
      cwd: w.dir,
      env,
      console: 'internalConsole',
      justMyCode: true,
      subProcess: false,
    };
    // As VS Code runs it: inline in the (extension host) process, here served on a local socket.
    const server = createServer((socket) => {
      const session = new AgentJetDebugSession();
      session.setRunAsServer(true);
      session.start(socket, socket);
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const viaInline = () => timeToBreakpoint(new DebugClient('node', adapterJs, 'agentjet'), ours, w.workflow, line, port);
    // As other DAP clients run it: dist/adapter.js as its own node process.
    const viaOurs = () => timeToBreakpoint(new DebugClient('node', adapterJs, 'agentjet'), ours, w.workflow, line);
    // `python <debugpy>/adapter` runs debugpy's adapter as VS Code's Python debugger does.
    const viaPlain = () => timeToBreakpoint(new DebugClient(python, join(debugpyDir, 'adapter'), 'python'), plain, w.workflow, line);
    // Warm-up (starts the shared stand-in companion, fills OS caches); not counted.
    await viaPlain();
    await viaOurs();
    await viaInline();
    const inl: number[] = [];
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      inl.push(await viaInline());
      b.push(await viaPlain());
      a.push(await viaOurs());
    }
    server.close();
    const mi = median(inl),
      mo = median(a),
      mp = median(b);
    const list = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(', ');
    console.log(`debugpy ${version} on ${python}, stand-in backbone, ${ROUNDS} rounds (interleaved)`);
    console.log(`agentjet adapter, inline (as in VS Code)  launch -> first breakpoint: median ${mi.toFixed(0)} ms  [${list(inl)}]`);
    console.log(`agentjet adapter, node process            launch -> first breakpoint: median ${mo.toFixed(0)} ms  [${list(a)}]`);
    console.log(`plain debugpy                             launch -> first breakpoint: median ${mp.toFixed(0)} ms  [${list(b)}]`);
    console.log(`ratio agentjet/plain: ${(mi / mp).toFixed(2)} inline (target <= 1.2), ${(mo / mp).toFixed(2)} as a node process`);
  } finally {
    await w.dispose();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
