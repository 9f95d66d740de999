// Issue 27: Stop always stops, with the session served as VS Code serves it: inline, in a process
// that outlives the session (here this test process, through the same session class over TCP), so no
// adapter exit and no watchdog hide a launch that goes on. The backbone is shaped like AgentJet's:
// the launcher runs the rollout in a child process (AJET_STANDIN_CHILD_PROCESS=1), whose workflow
// writes the time it started and then holds. A Stop (terminate; disconnect with terminateDebuggee)
// 0, 50, 100, 150 and 300 ms after the launch request, at a breakpoint in the child process, and
// after the run ended by itself: within 10 s nothing of the launch is alive, no workflow started
// after the Stop, and `agentjet runs` reads "stopped" for a launch that was started ("finished" for
// the one that ended by itself).
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { demoCopy, lineOf, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { holdConfig, killLeft, lateStarts, launchAlive, runRow, startsOf, waitQuiet } from '../util/holdLaunch';
import { descendants, listProcesses, type ProcInfo } from '../../core/launch/processes';
import { companionFolder, readCompanions } from '../../core/launch/companions';
import { INIT, collect, inlineShell, onReverseRequests, type Shell } from '../conformance/dapShells';

const python = ensureTestPython().python;

/** Closes a client's connection (the session stays served; DebugClient keeps this private). */
function closeClient(dc: DebugClient | undefined): void {
  (dc as unknown as { stopAdapter(): void } | undefined)?.stopAdapter();
}

describe('Stop always stops: the session served inline, a workflow in a child process that holds', { timeout: 900_000 }, () => {
  let w: DemoCopy;
  let shell: Shell;
  let spare = new Set<number>();
  /** Processes of this test process that are not the launch's (tsx's esbuild service). */
  let baseline = new Set<number>();
  before(async () => {
    baseline = new Set(descendants(process.pid, await listProcesses()).map((p) => p.pid));
    w = await demoCopy('aj-stop-');
    shell = await inlineShell();
    // The companion (the stand-in vLLM server) is started once and spared by every Stop.
    const dc = await shell.client();
    const { config } = holdConfig(w, 'ajwarm', 0);
    await dc.initializeRequest(INIT);
    await Promise.all([
      dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
      dc.launchRequest({
        config,
        cwd: w.dir,
        python,
        env: { PYTHONPATH: standInBackbone },
        noDebug: true,
      } as DebugProtocol.LaunchRequestArguments),
      dc.waitForEvent('terminated', 60_000),
    ]);
    await dc.stop();
    spare = new Set(readCompanions(companionFolder(w.dir, 'saved_experiments')).map((c) => c.pgid));
    assert.ok(spare.size > 0, 'the companion runs');
  });
  after(async () => {
    await shell?.close();
    await w?.dispose();
  });

  const ours = (marker: string): Promise<ProcInfo[]> => launchAlive(w, marker, spare, baseline);
  const quiet = (marker: string): Promise<void> => waitQuiet(() => ours(marker));

  const launchArgs = (config: string, noDebug: boolean): DebugProtocol.LaunchRequestArguments =>
    ({
      config,
      cwd: w.dir,
      python,
      noDebug,
      env: { PYTHONPATH: standInBackbone, AJET_STANDIN_CHILD_PROCESS: '1' },
    }) as DebugProtocol.LaunchRequestArguments;

  /**
   * VS Code's part when debugpy reports the launcher's child: a session for it, straight to
   * debugpy's adapter, with `bp` set before configurationDone.
   */
  async function attachChild(
    children: DebugProtocol.StartDebuggingRequestArguments[],
    bp?: { path: string; line: number },
  ): Promise<DebugClient> {
    const req = await waitFor(() => children.at(-1), "debugpy to report the launcher's child process", 60_000, 100);
    const cfg = req.configuration as Record<string, unknown> & { connect: { host: string; port: number } };
    const child = new DebugClient('node', '', 'python');
    await child.start(cfg.connect.port);
    await child.initializeRequest({ ...INIT, adapterID: 'debugpy' });
    const attached = child.attachRequest(cfg as DebugProtocol.AttachRequestArguments);
    await child.waitForEvent('initialized');
    if (bp) await child.setBreakpointsRequest({ source: { path: bp.path }, breakpoints: [{ line: bp.line }] });
    // With a breakpoint: resolves once the child stopped there.
    await Promise.all([child.configurationDoneRequest(), attached, bp ? child.assertStoppedLocation('breakpoint', bp) : undefined]);
    return child;
  }

  /** VS Code's Stop: `terminate` (then `disconnect` once the session says it ended), or `disconnect { terminateDebuggee }`. */
  async function stop(dc: DebugClient, how: 'terminate' | 'disconnect'): Promise<void> {
    if (how === 'terminate') {
      const terminated = dc.waitForEvent('terminated', 10_000);
      await dc.terminateRequest({});
      await terminated;
    }
    await dc.disconnectRequest({ terminateDebuggee: true });
  }

  for (const noDebug of [true, false])
    for (const how of ['terminate', 'disconnect'] as const)
      for (const delay of [0, 50, 100, 150, 300])
        test(`${noDebug ? 'run' : 'debug'}: ${how} ${delay} ms after the launch request ends everything and starts nothing after it`, async () => {
          const marker = `ajstop${noDebug ? 'r' : 'd'}${how[0]}${delay}`;
          const { config, started } = holdConfig(w, marker);
          const dc = await shell.client();
          onReverseRequests(dc, () => undefined);
          const processes = collect(dc, 'process');
          try {
            await dc.initializeRequest(INIT);
            dc.on('initialized', () => void dc.configurationDoneRequest().catch(() => undefined));
            void dc.launchRequest(launchArgs(config, noDebug)).catch(() => undefined);
            // The moment of the Stop is the test's input, not a wait for a state.
            await new Promise((r) => setTimeout(r, delay));
            const stopMs = Date.now();
            // What runs as the Stop is sent (ps starts now, beside the Stop).
            const atStop = listProcesses();
            await stop(dc, how);
            const answeredMs = Date.now();
            await quiet(marker);
            assert.deepEqual(lateStarts(started, stopMs, answeredMs, await atStop), [], 'no workflow started after the Stop');
            const row = runRow(w.dir, marker);
            if (processes.length) assert.ok(row, 'the started launch is a run');
            if (row) assert.equal(row.status, 'stopped', JSON.stringify(row.evidence));
          } finally {
            closeClient(dc);
            killLeft(await ours(marker));
          }
        });

  for (const how of ['terminate', 'disconnect'] as const)
    test(`debug: ${how} at a breakpoint in the launcher's child process ends the whole launch; the run reads "stopped"`, async () => {
      const marker = `ajstopbp${how[0]}`;
      const { config, workflow, started } = holdConfig(w, marker);
      const dc = await shell.client();
      const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
      onReverseRequests(dc, (r) => {
        if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
      });
      let child: DebugClient | undefined;
      try {
        await dc.initializeRequest(INIT);
        await Promise.all([
          dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
          dc.launchRequest(launchArgs(config, false)),
        ]);
        const line = lineOf(workflow, '# HOLD');
        child = await attachChild(children, { path: workflow, line });
        const stopMs = Date.now();
        await stop(dc, how);
        await quiet(marker);
        assert.deepEqual(
          startsOf(started).filter((t) => t > stopMs),
          [],
          'no workflow started after the Stop',
        );
        const row = runRow(w.dir, marker);
        assert.ok(row, 'the launch is a run');
        assert.equal(row.status, 'stopped', JSON.stringify(row.evidence));
      } finally {
        closeClient(child);
        closeClient(dc);
        killLeft(await ours(marker));
      }
    });

  for (const noDebug of [true, false])
    test(`${noDebug ? 'run' : 'debug'}: a Stop after the run ended by itself ends nothing more; the run reads "finished"`, async () => {
      const marker = `ajstopend${noDebug ? 'r' : 'd'}`;
      const { config } = holdConfig(w, marker, 0);
      const dc = await shell.client();
      const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
      onReverseRequests(dc, (r) => {
        if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
      });
      let child: DebugClient | undefined;
      try {
        await dc.initializeRequest(INIT);
        const terminated = dc.waitForEvent('terminated');
        await Promise.all([
          dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
          dc.launchRequest(launchArgs(config, noDebug)),
        ]);
        // debugpy holds the launcher's child until a session attaches to it, as VS Code's does.
        if (!noDebug) child = await attachChild(children);
        await waitFor(() => terminated.then(() => true), 'the run to end by itself', 60_000);
        await stop(dc, 'disconnect');
        await quiet(marker);
        const row = runRow(w.dir, marker);
        assert.ok(row, 'the launch is a run');
        assert.equal(row.status, 'finished', JSON.stringify(row.evidence));
      } finally {
        closeClient(child);
        closeClient(dc);
        killLeft(await ours(marker));
      }
    });

  test('a launcher that prints no "Experiment ..." lines: stopped reads "stopped", a clean one "finished"', async () => {
    for (const [marker, hold] of [
      ['ajnonamestop', 60],
      ['ajnonameend', 0],
    ] as const) {
      const { config } = holdConfig(w, marker, hold);
      const dc = await shell.client();
      const outputs = collect(dc, 'output');
      try {
        await dc.initializeRequest(INIT);
        const args = launchArgs(config, true) as unknown as { env: Record<string, string> };
        args.env.AJET_STANDIN_NO_NAMES = '1';
        const ended = dc.waitForEvent('terminated', 60_000);
        await Promise.all([
          dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
          dc.launchRequest(args as unknown as DebugProtocol.LaunchRequestArguments),
        ]);
        if (hold) {
          await waitFor(() => outputs.some((o) => o.body.output.includes('hold workflow running')), 'the workflow to run', 30_000);
          assert.ok(!outputs.some((o) => /Experiment (Name|Yaml Dir):/.test(o.body.output)), 'the launcher names no folder');
          await stop(dc, 'disconnect');
        } else {
          await ended;
          await stop(dc, 'disconnect');
        }
        await quiet(marker);
        const row = runRow(w.dir, marker);
        assert.ok(row, 'the launch is a run');
        assert.equal(row.status, hold ? 'stopped' : 'finished', JSON.stringify(row.evidence));
      } finally {
        closeClient(dc);
        killLeft(await ours(marker));
      }
    }
  });
});
