// The editor-breakpoints hook's doorbell, on the real Python and debugpy of the test venv, with a
// stand-in `ray` module (the real-Ray path is test/protocol/ray-breakpoints.test.ts). An idle worker
// has not even imported debugpy and runs with no trace function; ringing the doorbell starts debugpy
// and answers its port (the same port on every ring); our adapter's attach with `rayDoorbell`
// rings, attaches, and a breakpoint set afterwards in code the main thread runs is hit.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { adapterJs } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { ensureHookDir, hookSource, LISTENER_MARKER } from '../../core/ray/breakpoints';
import { ringDoorbell } from '../../core/ray/doorbell';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';

const WORKER = `import sys
import agentjet_ray_breakpoints as h
h._worker_setup()
print("idle", "debugpy" in sys.modules, sys.gettrace() is None, flush=True)

def work(n):
    total = n * 2  # breakpoint
    return total

for line in sys.stdin:
    cmd = line.strip()
    if cmd == "go":
        print("result", work(21), flush=True)
    elif cmd == "port":
        import ray
        print("port", ray._private.worker.global_worker.debugger_port, flush=True)
    elif cmd == "quit":
        break
`;

const FAKE_WORKER = `class _Worker:
    node_ip_address = "127.0.0.1"
    debugger_port = None

    def set_debugger_port(self, port):
        self.debugger_port = port


global_worker = _Worker()
`;

test(
  'doorbell: no debugger until rung, then debugpy on one port; attach with rayDoorbell hits a breakpoint set afterwards',
  { timeout: 120_000 },
  async () => {
    const py = ensureTestPython();
    const dir = mkdtempSync(join(tmpdir(), 'ajr-doorbell-'));
    mkdirSync(join(dir, 'ray', '_private'), { recursive: true });
    writeFileSync(join(dir, 'ray', '__init__.py'), 'from . import _private\n');
    writeFileSync(join(dir, 'ray', '_private', '__init__.py'), 'from . import worker\n');
    writeFileSync(join(dir, 'ray', '_private', 'worker.py'), FAKE_WORKER);
    const script = join(dir, 'worker.py');
    writeFileSync(script, WORKER);
    const hookDir = ensureHookDir(await hookSource());
    const child = spawn(py.python, [script], {
      env: { ...process.env, PYTHONPATH: [dir, hookDir].join(':'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: string[] = [];
    const err: string[] = [];
    createInterface({ input: child.stdout }).on('line', (l) => out.push(l));
    createInterface({ input: child.stderr }).on('line', (l) => err.push(l));
    const line = (re: RegExp, from: string[]): Promise<RegExpExecArray> =>
      waitFor(
        () => from.map((l) => re.exec(l)).find((m) => m) ?? undefined,
        () => `${re} in ${JSON.stringify({ out, err })}`,
        30_000,
        50,
      );
    let dc: DebugClient | undefined;
    try {
      const announced = await line(/Ray debugger is listening on 127\.0\.0\.1:(\d+) (.*)$/, err);
      assert.equal(announced[2], LISTENER_MARKER);
      const doorbell = Number(announced[1]);
      assert.deepEqual((await line(/^idle .*/, out))[0], 'idle False True', 'idle: debugpy not imported, no trace function');
      assert.deepEqual(
        (await listProcesses()).filter((p) => p.ppid === child.pid && /debugpy/.test(p.args)),
        [],
        'no debugpy adapter before the doorbell rings',
      );

      dc = new DebugClient('node', adapterJs, 'agentjet');
      dc.defaultTimeout = 60_000;
      await dc.start();
      await dc.initializeRequest({ adapterID: 'agentjet', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      const initialized = dc.waitForEvent('initialized');
      const attached = dc.attachRequest({
        connect: { host: '127.0.0.1', port: doorbell },
        rayDoorbell: true,
        justMyCode: false,
      } as DebugProtocol.AttachRequestArguments);
      await initialized;
      const bpLine = WORKER.split('\n').findIndex((l) => l.includes('# breakpoint')) + 1;
      const r = await dc.setBreakpointsRequest({ source: { path: script }, breakpoints: [{ line: bpLine }] });
      assert.ok(r.body.breakpoints[0]?.verified, JSON.stringify(r.body.breakpoints));
      await dc.configurationDoneRequest();
      await attached;

      const port = await ringDoorbell('127.0.0.1', doorbell, 10_000);
      assert.notEqual(port, doorbell);
      assert.equal(await ringDoorbell('127.0.0.1', doorbell, 10_000), port, 'ringing again answers the same port');
      child.stdin.write('port\n');
      assert.equal(Number((await line(/^port (\d+)/, out))[1]), port, "the port is Ray's debugger port: bp() reuses it");
      assert.ok(err.some((l) => l.includes(`debugpy listening on port ${port} (doorbell rung)`)));

      const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
      child.stdin.write('go\n');
      const ev = await stopped;
      assert.equal(ev.body.reason, 'breakpoint');
      const st = await dc.stackTraceRequest({ threadId: ev.body.threadId!, startFrame: 0, levels: 1 });
      assert.equal(st.body.stackFrames[0]?.line, bpLine);
      assert.equal(st.body.stackFrames[0]?.name, 'work');
      await dc.continueRequest({ threadId: ev.body.threadId! });
      assert.equal((await line(/^result (\d+)/, out))[1], '42');
      await dc.disconnectRequest({});
    } finally {
      await dc?.stop().catch(() => undefined);
      child.stdin.end('quit\n');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
