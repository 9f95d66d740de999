// F5 through the REAL AgentJet launcher (agentjet-d20cce0 of January 2026 and agentjet-c68c154 =
// 0.0.4 of May 2026, `python -m ajet.launcher`), driven over
// DAP against debugpy 1.8 from the tests' venv. The launcher runs the rollout in a child process
// (`python -m ajet.backbone.main_vllm`, subprocess.run in execute_training_process) whose thread
// pool runs the user's workflow: the breakpoint binds only when the adapter follows child
// processes. debugpy asks for the child session with a `startDebugging` reverse request, which the
// adapter passes on as an `agentjet` attach; here the test plays VS Code's part and connects to
// debugpy for the child, as the extension's descriptor factory does (DebugAdapterServer).
// Both shells of the adapter run on January's tree: the session class in this process (as the
// extension runs it inline) and dist/adapter.js (as other clients run it), when built; 0.0.4 runs the
// inline one (the shells do not differ by AgentJet version, and each launch costs seconds).
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { adapterJs, lineOf } from '../util/debugWorkspace';
import { INIT, TIMEOUT, collect, inlineShell, onReverseRequests, processShell, type Shell } from './dapShells';
import { findUpstream, withUpstream, type UpstreamName } from '../util/upstream';
import { listProcesses } from '../../core/launch/processes';
import { companionsOf } from '../../core/launch/companions';
import { LAUNCH_RECORD_DIR, derivedNamePattern, type LayoutVersion } from '../../core/agentjet';
import { collectRuns } from '../../cli/runs';
import { ChildStopWatcher } from '../../core/launch/childStop';
import { realAgentJetMissing, realWorkspace, type RealWorkspace } from './realAgentJet';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';

const TREES: { tree: UpstreamName; layout: LayoutVersion }[] = [
  { tree: 'agentjet-d20cce0', layout: 'agentjet' },
  { tree: 'agentjet-c68c154', layout: 'agentjet-0.0.4' },
];

for (const { tree, layout } of TREES)
  describe(`F5 through the real AgentJet launcher (${tree})`, { timeout: 600_000 }, () => {
    let w: RealWorkspace | undefined;
    const why = realAgentJetMissing();
    // Without the upstream trees every test skips (withUpstream); the workspace needs them.
    before(async () => {
      if (!why && findUpstream(tree) && findUpstream('beast-logger-6ba1ca5')) w = await realWorkspace(tree);
    });
    after(async () => {
      await w?.dispose();
    });

    const launchArgs = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      config: w!.config,
      cwd: w!.dir,
      python: w!.python,
      env: { PYTHONPATH: w!.pythonPath },
      ...extra,
    });

    const shells: (() => Promise<Shell> | Shell)[] = tree === 'agentjet-d20cce0' ? [inlineShell, processShell] : [inlineShell];
    for (const [i, makeShell] of shells.entries()) {
      test(
        `${i === 0 ? 'inline session' : 'dist/adapter.js'}: a breakpoint in the workflow stops in the launcher's child process, in a rollout thread`,
        withUpstream(tree, async (_dir, t) => {
          if (skipForEnvironment(t, why)) return;
          // The runner builds dist/ before this layer; a missing bundle is a broken build, not a skip.
          if (i === 1) assert.ok(existsSync(adapterJs), 'dist/adapter.js is built (node scripts/build.mjs)');
          const shell = await makeShell();
          const dc = await shell.client();
          const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
          onReverseRequests(dc, (r) => {
            if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
          });
          const experiments = collect(dc, 'agentjet.experiment');
          const finished = collect(dc, 'agentjet.runFinished');
          const outputs = collect(dc, 'output');
          const processes = collect(dc, 'process');
          let child: DebugClient | undefined;
          const line = lineOf(w!.workflow, '# BREAK HERE');
          const testStarted = Date.now();
          try {
            await dc.initializeRequest(INIT);
            await Promise.all([
              dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
              dc.launchRequest(launchArgs() as DebugProtocol.LaunchRequestArguments),
            ]);
            const command = outputs.find((o) => o.body.output.startsWith('AgentJet: '))?.body.output ?? '';
            assert.match(
              command,
              /-m ajet\.launcher --backbone debug --conf \S+conformance\.yaml {2}\(module ajet\.launcher;/,
              'the probed module of the installed version',
            );
            // The launcher's child reports in: debugpy asks for a session for it.
            const req = await waitFor(() => children[0], "debugpy to report the launcher's child process", TIMEOUT, 100);
            const cfg = req.configuration as Record<string, unknown> & { connect: { host: string; port: number }; subProcessId: number };
            assert.equal(req.request, 'attach');
            assert.equal(cfg.type, 'agentjet', 'rewritten to our debug type');
            assert.equal(cfg.agentjetSubprocess, true);
            const ps = await listProcesses();
            const childProc = ps.find((p) => p.pid === cfg.subProcessId);
            // debugpy rewrote `python -m X` into pydevd's `--module ... --file X`.
            assert.ok(
              childProc && /ajet\.backbone\.main_vllm --config-path \S+ --config-name yaml_backup\.yaml/.test(childProc.args),
              `the child is the debug backbone: ${childProc?.args}`,
            );
            const launcherPid = (processes[0]?.body as DebugProtocol.ProcessEvent['body'] | undefined)?.systemProcessId;
            assert.ok(launcherPid && launcherPid !== cfg.subProcessId, 'the child is another process than the launcher');
            assert.equal(childProc.ppid, launcherPid, 'spawned by the launcher (subprocess.run)');
            // VS Code's part: a client for the child, straight to debugpy's adapter.
            child = new DebugClient('node', '', 'python');
            child.defaultTimeout = TIMEOUT;
            await child.start(cfg.connect.port);
            await child.initializeRequest({ ...INIT, adapterID: 'debugpy' });
            // debugpy answers `attach` after configurationDone, as VS Code expects.
            const attached = child.attachRequest(cfg as DebugProtocol.AttachRequestArguments);
            await child.waitForEvent('initialized');
            const bps = await child.setBreakpointsRequest({ source: { path: w!.workflow }, breakpoints: [{ line }] });
            assert.equal(bps.body.breakpoints.length, 1);
            await Promise.all([
              child.configurationDoneRequest(),
              attached,
              child.assertStoppedLocation('breakpoint', { path: w!.workflow, line }),
            ]);
            const threads = (await child.threadsRequest()).body.threads;
            const stack = await Promise.all(
              threads.map(async (th) => ({ th, frames: (await child!.stackTraceRequest({ threadId: th.id })).body.stackFrames })),
            );
            const stopped = stack.find((s) => s.frames[0]?.line === line && s.frames[0]?.source?.path === w!.workflow);
            assert.ok(stopped, 'a thread is stopped in the workflow');
            assert.equal(stopped.frames[0]!.name, 'execute');
            assert.notEqual(
              stopped.th.name,
              'MainThread',
              `the workflow runs in a rollout thread, not the main thread (${stopped.th.name})`,
            );
            if (i === 0) await checkAutokillGuard(launcherPid, w!);
            const scopes = await child.scopesRequest({ frameId: stopped.frames[0]!.id });
            const locals = (await child.variablesRequest({ variablesReference: scopes.body.scopes[0]!.variablesReference })).body.variables;
            assert.ok(
              locals.some((v) => v.name === 'workflow_task') && locals.some((v) => v.name === 'tuner'),
              "the workflow's arguments are visible",
            );
            await child.setBreakpointsRequest({ source: { path: w!.workflow }, breakpoints: [] });
            await Promise.all([child.continueRequest({ threadId: stopped.th.id }), dc.waitForEvent('terminated', TIMEOUT)]);
            // The run, as the launcher named it (read_yaml_name: `<config stem>_<YYYYmmdd_HHMM>`, 0.0.4
            // `<config stem>_<YYYYmmdd_HHMMSS_mmm>`).
            const exp = experiments[0]?.body as { folder: string; yamlBackup?: string } | undefined;
            assert.ok(exp, 'the experiment was announced');
            assert.equal(dirname(exp.folder), join(w!.dir, 'saved_experiments'));
            assert.match(basename(exp.folder), derivedNamePattern(w!.config, layout));
            assert.equal(exp.yamlBackup, join(exp.folder, 'yaml_backup.yaml'));
            assert.ok(existsSync(exp.yamlBackup!), 'the launcher wrote the snapshot where it said');
            // The launch is recorded beside the run: the launcher's exit status and output.
            const fin = finished[0]?.body as { experimentFolder: string; exitCode: number | null } | undefined;
            assert.equal(fin?.experimentFolder, exp.folder);
            const records = join(exp.folder, LAUNCH_RECORD_DIR, 'launches');
            // Both shells run in one workspace: a launch in the same minute lands in the same experiment
            // folder (read_yaml_name has minute resolution), so only this test's launch counts.
            const mine = readdirSync(records)
              .filter((f) => f.endsWith('.json'))
              .map((f) => ({
                f,
                r: JSON.parse(readFileSync(join(records, f), 'utf8')) as {
                  exitCode: number | null;
                  command: string[];
                  via: string;
                  startMs: number;
                },
              }))
              .filter((x) => x.r.startMs >= testStarted);
            assert.equal(mine.length, 1);
            const { f: recFile, r: rec } = mine[0]!;
            assert.equal(rec.exitCode, fin?.exitCode, "the recorded exit status is the launcher's");
            assert.equal(rec.via, 'debug');
            assert.deepEqual(rec.command.slice(1, 3), ['-m', 'ajet.launcher']);
            const kept = readFileSync(join(records, recFile.replace(/\.json$/, '.output.txt')), 'utf8');
            assert.ok(kept.includes(`Experiment Name: ${basename(exp.folder)}`), "the launcher's output is kept");
            // The vLLM companion the backbone started stays up for the next launch.
            const companions = companionsOf(w!.dir).filter((c) => c.alive && c.tag === 'external_vllm_server');
            assert.equal(companions.length, 1, 'one live vLLM companion under <cwd>/saved_experiments/companion_logs');
            // 0.0.4 keeps a `<id>.lock` beside each record (ajet/utils/smart_daemon.py:246): no companion, no run.
            const records2 = readdirSync(join(w!.dir, 'saved_experiments', 'companion_logs', 'companion'));
            if (layout === 'agentjet-0.0.4')
              assert.ok(
                records2.some((f) => f.endsWith('.lock')),
                records2.join(', '),
              );
            const names = (await collectRuns([w!.dir])).rows.map((r) => r.experiment);
            assert.ok(names.includes(basename(exp.folder)), names.join(', '));
            assert.ok(!names.includes('companion_logs'), 'companion_logs (and its locks) is not a run');
          } finally {
            await child?.stop();
            await dc.stop();
            await shell.close();
          }
        }),
      );
    }

    test(
      'one Stop on the child session ends the whole launch: the launcher and its tree go, the companion stays',
      withUpstream(tree, async (_dir, t) => {
        if (skipForEnvironment(t, why)) return;
        const shell = await inlineShell();
        const dc = await shell.client();
        const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
        onReverseRequests(dc, (r) => {
          if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
        });
        let child: DebugClient | undefined;
        const line = lineOf(w!.workflow, '# BREAK HERE');
        let childStopped = false;
        const step = (what: string): void => {
          if (process.env.AJ_TEST_TRACE) process.stderr.write(`TEST step: ${what}\n`);
        };
        const ours = async () => (await listProcesses()).filter((p) => p.args.includes(w!.dir) && !/vllm\.entrypoints/.test(p.args));
        try {
          await dc.initializeRequest(INIT);
          await Promise.all([
            dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
            dc.launchRequest(launchArgs() as DebugProtocol.LaunchRequestArguments),
          ]);
          const req = await waitFor(() => children[0], "debugpy to report the launcher's child process", TIMEOUT, 100);
          const cfg = req.configuration as Record<string, unknown> & { connect: { host: string; port: number } };
          // VS Code's part for the child session, with the extension's tracker watching its traffic.
          const watcher = new ChildStopWatcher();
          child = new DebugClient('node', '', 'python');
          child.defaultTimeout = TIMEOUT;
          await child.start(cfg.connect.port);
          child.on('terminated', (e: DebugProtocol.Event) => watcher.fromAdapter(e));
          child.on('exited', (e: DebugProtocol.Event) => watcher.fromAdapter(e));
          await child.initializeRequest({ ...INIT, adapterID: 'debugpy' });
          const attached = child.attachRequest(cfg as DebugProtocol.AttachRequestArguments);
          await child.waitForEvent('initialized');
          await child.setBreakpointsRequest({ source: { path: w!.workflow }, breakpoints: [{ line }] });
          await Promise.all([
            child.configurationDoneRequest(),
            attached,
            child.assertStoppedLocation('breakpoint', { path: w!.workflow, line }),
          ]);
          assert.ok(
            (await ours()).some((p) => /ajet\.backbone\.main_vllm/.test(p.args)),
            'the backbone child runs while paused',
          );
          // The user presses Shift+F5 with the child focused: VS Code 1.100 sends this to an attach session.
          const stop: DebugProtocol.DisconnectRequest = {
            type: 'request',
            seq: 0,
            command: 'disconnect',
            arguments: { restart: false, terminateDebuggee: false, suspendDebuggee: false },
          };
          assert.equal(watcher.toAdapter(stop), true, 'the tracker takes it for a Stop of the launch');
          // ...and the extension stops the parent session (vscode.debug.stopDebugging -> terminate).
          childStopped = true;
          await Promise.all([
            child.disconnectRequest(stop.arguments).catch(() => undefined),
            dc.terminateRequest(),
            dc.waitForEvent('terminated', TIMEOUT),
          ]);
          step('parent terminated');
          const left = await waitFor(
            async () => {
              const l = await ours();
              return l.length === 0 ? ([] as const) : undefined;
            },
            'the launcher tree to end',
            30_000,
            100,
          ).catch(async () => ours());
          assert.deepEqual(left, [], 'nothing of the launch is left after one Stop');
          assert.equal(companionsOf(w!.dir).filter((c) => c.alive).length, 1, 'the vLLM companion is spared');
          step('asserted');
        } finally {
          // After the Stop the child's debugpy session is gone (a second disconnect would get no answer):
          // close the connection only.
          if (child && childStopped) (child as unknown as { stopAdapter(): void }).stopAdapter();
          else await child?.stop();
          step('child client stopped');
          await dc.stop();
          step('parent client stopped');
          await shell.close();
          step('shell closed');
        }
      }),
    );

    test(
      'a second launch reuses our live vLLM companion: the port it holds is not "held by a stranger"',
      withUpstream(tree, async (_dir, t) => {
        if (skipForEnvironment(t, why)) return;
        /** One launch without debugging, to its end; its output. */
        const runNoDebug = async (): Promise<string> => {
          const shell = await inlineShell();
          const dc = await shell.client();
          const outputs = collect(dc, 'output');
          try {
            await dc.initializeRequest(INIT);
            await Promise.all([
              dc.launchRequest(launchArgs({ noDebug: true }) as DebugProtocol.LaunchRequestArguments),
              dc.waitForEvent('terminated', TIMEOUT),
            ]);
            return outputs.map((o) => o.body.output).join('');
          } finally {
            await dc.stop();
            await shell.close();
          }
        };
        // Independent of the tests before: when no companion of ours is up, a first launch starts one.
        if (companionsOf(w!.dir).filter((c) => c.alive).length === 0) await runNoDebug();
        assert.ok(
          companionsOf(w!.dir).some((c) => c.alive),
          'a launch leaves its vLLM companion running',
        );
        const text = await runNoDebug();
        assert.doesNotMatch(text, /is held by/);
        assert.match(text, /Script is already running, skipping launch\. pgid: (\d+)/, "AgentJet's own daemon found it");
        const pgid = Number(/Script is already running, skipping launch\. pgid: (\d+)/.exec(text)![1]);
        assert.deepEqual(
          companionsOf(w!.dir)
            .filter((c) => c.alive)
            .map((c) => c.pgid),
          [pgid],
          'the same companion, still up',
        );
      }),
    );
  });

/**
 * AgentJet's --autokill kills command lines with `python` and without `vscode`
 * (ajet/utils/cleaner.py). Our debugpy adapter and debugpy's launcher (the launcher process's
 * parent) carry the guard; AgentJet's real `fast_kill_by_keyword_bash` is run with a keyword only
 * the shim's command line holds (a machine-wide `python` sweep would hit other programs) and
 * must target nothing.
 */
async function checkAutokillGuard(launcherPid: number, w: RealWorkspace): Promise<void> {
  const ps = await listProcesses();
  const launcher = ps.find((p) => p.pid === launcherPid)!;
  const debugpyLauncher = ps.find((p) => p.pid === launcher.ppid)!;
  const adapter = ps.find((p) => p.pid === debugpyLauncher.ppid)!;
  assert.match(adapter.args, /python.* -c .*debugpy\.adapter.* agentjet-vscode$/, `debugpy's adapter: ${adapter.args}`);
  assert.match(debugpyLauncher.args, /agentjet-vscode-\w+\/debugpy_launcher\.py /, `debugpy's launcher: ${debugpyLauncher.args}`);
  const keyword = /(agentjet-vscode-\w+)\//.exec(debugpyLauncher.args)![1]!;
  // A keyword holding "ray" makes the cleaner run `ray stop --force` for the whole machine.
  if (/ray/.test(keyword)) return;
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(
    w.python,
    ['-c', `from ajet.utils.cleaner import fast_kill_by_keyword_bash as k; print(k(${JSON.stringify(keyword)}, grace_seconds=0))`],
    { cwd: w.dir, env: { ...process.env, PYTHONPATH: w.pythonPath }, encoding: 'utf8' },
  );
  assert.equal(out.trim().split('\n').at(-1), '[]', "AgentJet's cleaner spares debugpy's launcher");
  assert.ok(
    (await listProcesses()).some((p) => p.pid === debugpyLauncher.pid),
    'still running',
  );
}
