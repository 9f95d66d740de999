// The `agentjet` debug session: a DAP session of ours in front of debugpy's own adapter.
// It answers `initialize`, runs the preflight on `launch` (core/launch/lifecycle.ts), then starts
// debugpy's adapter and relays the protocol both ways, rewriting our `launch` into debugpy's (the
// launcher the installed version really has, following sub-processes: the real launcher runs the
// rollout in a child `python -m ajet.backbone.main_vllm`, whose workflows run in a thread pool).
// debugpy asks for each child session with a `startDebugging` reverse request; we pass it on as an
// `agentjet` attach that the extension connects straight to debugpy's adapter. Companions started
// with `nohup` (the vLLM server) are not Python command lines, so debugpy leaves them untraced.
// The launch's life (every step checked against the user's stop, the process groups, stop, the
// watchdog) is its owner's, core/launch/owner.ts, named for the session in debug-adapter/processes.ts;
// the launch record is core/launch/record.ts,
// debugpy's particulars debug-adapter/debugpy.ts, the Ray attach path debug-adapter/attach.ts.
// Stop ends the launcher and everything it started except companions (unless `autokill`). With
// `noDebug` it runs the same command without debugpy.
import type { ChildProcess } from 'node:child_process';
import { DebugSession, Event, OutputEvent, InitializedEvent, TerminatedEvent, ExitedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DapChannel, PendingRequests, dialogFormat, isStopRequest, okResponse, relayReverseRequest } from './channel';
import { mergedEnv, resolveAttributes, type AgentJetLaunchAttributes, type ResolvedLaunch } from '../core/launch/attributes';
import {
  checkSwarmServer,
  isSwarmClientLaunch,
  planSwarmClient,
  swarmClientCommand,
  type SwarmClientAttributes,
} from '../core/launch/swarmClient';
import { statusText } from '../core/swarm/format';
import { type LauncherTarget } from '../core/launch/plan';
import { shellCommand } from '../core/process/quote';
import { AUTOKILL_GUARD, commandLine, describeTarget, planLaunch, preflightLaunch, type LaunchPlan } from '../core/launch/lifecycle';
import { EVENT_EXPERIMENT, EVENT_FINISHED, LAUNCH_ERRORS, SUBPROCESS_FLAG, type ExperimentEventBody } from '../core/protocol/debug';
import { AttachRelay } from './attach';
import { rayLaunchAdditions } from '../core/ray/tags';
import { ensureHookDir, hookSource, rayBreakpointsEnv } from '../core/ray/breakpoints';
import { REQUEST_CONSOLE } from '../core/protocol/ray';
import { t } from '../core/l10n';
import { ADAPTER_BOOT, LauncherShim, debugpyLaunch, localCapabilities, trace } from './debugpy';
import { LaunchProcesses } from './processes';
import { LaunchStopped } from '../core/launch/owner';
import { isAlive } from '../core/launch/processes';
import { LaunchRecordKeeper } from '../core/launch/record';

const ERR = LAUNCH_ERRORS;

type LaunchArgs = DebugProtocol.LaunchRequestArguments &
  AgentJetLaunchAttributes & { rayDebug?: boolean; debugTags?: string[]; rayBreakpoints?: boolean };

export class AgentJetDebugSession extends DebugSession {
  private initializeArgs: DebugProtocol.InitializeRequestArguments | undefined;
  private upstream: DapChannel | undefined;
  /** Our seq toward debugpy -> the client's request it answers. */
  private readonly requests = new PendingRequests();
  /** Requests debugpy is still waiting on that we answer ourselves (initialize, launch). */
  private launch: ResolvedLaunch | undefined;
  private plan: LaunchPlan | undefined;
  private readonly procs = new LaunchProcesses();
  private readonly record = new LaunchRecordKeeper();
  private readonly shim = new LauncherShim();
  private finished = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private debuggeeGone = false;
  private launchSent = false;
  private attachRelay: AttachRelay | undefined;

  constructor() {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  protected override dispatchRequest(request: DebugProtocol.Request): void {
    trace(`request ${request.command}`);
    // Ray: attach to a paused worker's debugpy listener (debug-adapter/attach.ts).
    if (this.attachRelay) {
      this.attachRelay.handle(request);
      return;
    }
    if (request.command === REQUEST_CONSOLE) {
      const text = (request.arguments as { text?: unknown } | undefined)?.text;
      if (typeof text === 'string') this.sendEvent(new OutputEvent(text.endsWith('\n') ? text : `${text}\n`, 'console'));
      this.reply(request);
      return;
    }
    if (request.command === 'attach') {
      (this.attachRelay = new AttachRelay(this, this.initializeArgs)).handle(request);
      return;
    }
    switch (request.command) {
      case 'initialize':
        this.initializeArgs = request.arguments as DebugProtocol.InitializeRequestArguments;
        this.reply(request, { body: localCapabilities() });
        return;
      case 'launch':
        this.answerFailure(request, this.launchOrStopped(request));
        return;
      default:
        if (isStopRequest(request)) {
          // Before anything else: no step of a launch in preparation may start a process after this.
          this.procs.owner.requestStop();
          this.answerFailure(request, this.onStop(request));
        } else if (this.upstream && this.launchSent) this.forward(request);
        else this.answerLocally(request);
    }
  }

  // ---- launch -------------------------------------------------------------------------------

  /** The launch; a user's stop during it ends it quietly (the stop answered and ended the session). */
  private async launchOrStopped(request: DebugProtocol.Request): Promise<void> {
    try {
      await this.onLaunch(request);
    } catch (e) {
      if (!(e instanceof LaunchStopped)) throw e;
      trace(`launch given up: ${e.message}`);
      // Whatever the interrupted step had started goes too (the stop's own end covers the rest).
      await this.procs.cleanup(true);
      this.reply(request);
    }
  }

  private async onLaunch(request: DebugProtocol.Request): Promise<void> {
    const a = (request.arguments ?? {}) as LaunchArgs;
    if (isSwarmClientLaunch(request.arguments as Record<string, unknown>)) {
      await this.onSwarmClientLaunch(request, request.arguments as SwarmClientAttributes);
      return;
    }
    if (typeof a.config !== 'string' || !a.config.trim()) {
      this.fail(request, ERR.args, t('The launch configuration has no "config" (the AgentJet YAML file to run).'));
      return;
    }
    const r = resolveAttributes(a);
    // Ray debugging (`rayDebug`, `debugTags`): RAY_DEBUG=1 and AgentJet's --debug tags.
    const ray = rayLaunchAdditions(a.rayDebug, a.debugTags, r.args, mergedEnv(r));
    Object.assign(r.envAdditions, ray.env);
    r.args.push(...ray.args);
    // Editor breakpoints in Ray workers: the start-up hook on the driver's path (core/ray/breakpoints.ts).
    if (a.rayBreakpoints === true) {
      try {
        const add = rayBreakpointsEnv(ensureHookDir(await hookSource()), mergedEnv(r));
        Object.assign(r.envAdditions, add);
        r.envRemovals = r.envRemovals.filter((k) => !(k in add));
      } catch (e) {
        this.sendEvent(new OutputEvent(`AgentJet: ${t('Editor breakpoints in Ray workers are off: {0}', String(e))}\n`, 'important'));
      }
    }
    this.launch = r;
    this.procs.launch = r;
    const owner = this.procs.owner;
    // 1. config, dialect, interpreter
    const planned = await owner.step('plan', () => planLaunch(r));
    trace('plan done');
    if (!planned.ok) {
      this.fail(request, planned.refusal.code, planned.refusal.message);
      return;
    }
    const plan = planned.plan;
    this.plan = plan;
    // 2. debugpy, the launcher the installed version has, the vLLM port (debug backbone): one probe.
    // debugpy's adapter (idle until it gets our launch) starts while the probe runs: that hides
    // most of the probe's cost. The launcher itself never starts before the preflight passed, and
    // a refused launch ends the idle adapter.
    const adapterReady = r.noDebug ? undefined : this.spawnDebugpy(r, plan.env);
    const pre = await owner.step('preflight', (signal) => preflightLaunch(plan, !r.noDebug, { signal }));
    trace('probe done');
    if (!pre.ok) {
      if (adapterReady) await this.procs.killDebugpy();
      this.fail(request, pre.refusal.code, pre.refusal.message);
      return;
    }
    for (const w of pre.warnings) this.sendEvent(new OutputEvent(`AgentJet: ${w}\n`, 'important'));
    const cmd = commandLine(plan, pre.target);
    this.record.command = [cmd.command, ...cmd.args];
    this.record.where = { ...(pre.layout ? { layout: pre.layout } : {}), args: r.args ?? [], env: plan.env };
    this.sendEvent(
      new OutputEvent(
        `AgentJet: ${shellCommand(this.record.command)}  (${describeTarget(pre.target)}; cwd ${r.cwd}${r.envFile ? `, env from ${r.envFile}` : ''})\n`,
        'console',
      ),
    );
    const launcherOwnArgs = cmd.args.slice(pre.target.kind === 'script' ? 1 : 2);
    if (r.noDebug || !adapterReady) this.startWithoutDebugger(request, r, cmd.command, cmd.args, plan.env);
    else {
      const init = await owner.step('debugpy', () => adapterReady);
      await this.startDebugpy(request, r, pre.target, launcherOwnArgs, init, pre.probe.debugpy);
    }
  }

  /** `swarmClient`: the server checked first (its state in the Debug Console), then `python <client.py>` under debugpy. */
  private async onSwarmClientLaunch(request: DebugProtocol.Request, a: SwarmClientAttributes): Promise<void> {
    const planned = planSwarmClient(a);
    if (!planned.ok) {
      this.fail(request, ERR.args, planned.message);
      return;
    }
    const r = planned.launch;
    this.launch = r;
    this.procs.launch = r;
    const owner = this.procs.owner;
    const env = mergedEnv(r);
    owner.check('plan');
    // debugpy's adapter starts while the server is asked (it ends again if the server is not there).
    const adapterReady = r.noDebug ? undefined : this.spawnDebugpy(r, env);
    if (r.url) {
      const url = r.url;
      const checked = await owner.step('preflight', () => checkSwarmServer(url));
      if (!checked.ok) {
        if (adapterReady) await this.procs.killDebugpy();
        this.fail(request, ERR.preflight, checked.message);
        return;
      }
      this.sendEvent(new OutputEvent(`AgentJet: ${statusText(checked.status)}`, 'console'));
    } else {
      this.sendEvent(
        new OutputEvent(
          `AgentJet: ${t('no swarm server URL found (no "swarmUrl", no AJET_SWARM_URL, no SwarmClient("http://…") in the script): the server was not checked.')}\n`,
          'important',
        ),
      );
    }
    const cmd = swarmClientCommand(r);
    this.record.command = [cmd.command, ...cmd.args];
    this.sendEvent(
      new OutputEvent(
        `AgentJet: ${shellCommand(this.record.command)}  (cwd ${r.cwd}${r.envFile ? `, env from ${r.envFile}` : ''})\n`,
        'console',
      ),
    );
    if (r.noDebug || !adapterReady) this.startWithoutDebugger(request, r, cmd.command, cmd.args, env);
    else {
      const init = await owner.step('debugpy', () => adapterReady);
      await this.startDebugpy(request, r, { kind: 'script', path: r.script }, r.args, init, null);
    }
  }

  private startWithoutDebugger(
    request: DebugProtocol.Request,
    r: ResolvedLaunch,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ): void {
    let child: ChildProcess;
    const owner = this.procs.owner;
    owner.check('launcher');
    this.record.startedAt = Date.now();
    try {
      child = owner.spawn(command, ['-u', ...args], { cwd: r.cwd, env });
    } catch (e) {
      if (e instanceof LaunchStopped) throw e;
      this.fail(request, ERR.start, t('Could not start {0}: {1}', r.python, (e as Error).message));
      return;
    }
    owner.running();
    this.procs.launcher = child;
    child.stdout?.on('data', (b: Buffer) => this.onOutput(b.toString(), 'stdout', true));
    child.stderr?.on('data', (b: Buffer) => this.onOutput(b.toString(), 'stderr', true));
    child.on('error', (e) => this.onOutput(`AgentJet: ${e.message}\n`, 'stderr', true));
    let ended = false;
    const onEnd = (code: number | null, sig: NodeJS.Signals | null) => {
      if (ended) return;
      ended = true;
      this.record.exitCode = code ?? (sig ? 128 : 1);
      if (sig) this.record.exitSignal = sig;
      void this.finish().then(() => {
        this.sendEvent(new ExitedEvent(this.record.exitCode ?? 1));
        this.sendEvent(new TerminatedEvent());
      });
    };
    child.on('close', onEnd);
    // The launcher is gone but its pipes stay open: a child of it (killed launcher, or one that
    // outlived it) still holds them. The launch's tree goes with its launcher (companions aside),
    // and the session ends now rather than when that child does.
    child.on('exit', (code, sig) => {
      setTimeout(() => {
        if (ended) return;
        trace('launcher exited with its pipes still held: ending the rest of its tree');
        void this.procs.cleanup(false).finally(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          onEnd(code, sig);
        });
      }, 500).unref();
    });
    if (child.pid) {
      this.sendEvent(new Event('process', { name: r.config, systemProcessId: child.pid, isLocalProcess: true, startMethod: 'launch' }));
    }
    this.reply(request);
    this.sendEvent(new InitializedEvent());
  }

  /**
   * Starts `<python> -m debugpy.adapter` (through the launch's owner: refused after a stop) and
   * initializes it; resolves with its answer or a reason.
   */
  private spawnDebugpy(r: ResolvedLaunch, env: NodeJS.ProcessEnv): Promise<DebugProtocol.Response | string> {
    let child: ChildProcess;
    try {
      // Its own process group, so Stop can end debugpy, its launcher and the debuggee together.
      child = this.procs.owner.spawn(r.python, ['-c', ADAPTER_BOOT, AUTOKILL_GUARD], { cwd: r.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      if (e instanceof LaunchStopped) throw e;
      return Promise.resolve(t('could not start {0} -m debugpy.adapter: {1}', r.python, (e as Error).message));
    }
    this.procs.debugpy = child;
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4000);
    });
    return new Promise<DebugProtocol.Response | string>((resolveReady) => {
      child.on('error', (e) => resolveReady(t('could not start {0} -m debugpy.adapter: {1}', r.python, e.message)));
      child.on('exit', (code) => {
        if (!this.finished && this.upstream === undefined)
          resolveReady(t("debugpy's adapter exited (code {0}) {1}", String(code), stderr.trim()));
        else if (!this.finished && this.launchSent) void this.onUpstreamGone();
      });
      const { stdout, stdin } = child;
      if (!stdout || !stdin) {
        resolveReady(`could not talk to ${r.python} -m debugpy.adapter (no pipes)`);
        return;
      }
      const channel = new DapChannel(stdout, stdin, (m) => this.fromDebugpy(m));
      const seq = channel.send({ type: 'request', command: 'initialize', arguments: { ...this.initializeArgs, adapterID: 'debugpy' } });
      this.requests.own.set(seq, (resp) => {
        this.upstream = channel;
        resolveReady(resp);
      });
    });
  }

  private async startDebugpy(
    request: DebugProtocol.Request,
    r: ResolvedLaunch,
    target: LauncherTarget,
    args: string[],
    init: DebugProtocol.Response | string,
    debugpyVersion: string | null,
  ): Promise<void> {
    if (typeof init === 'string' || !init.success) {
      await this.procs.killDebugpy();
      this.fail(request, ERR.start, typeof init === 'string' ? init : t('debugpy refused to initialize: {0}', init.message ?? ''));
      return;
    }
    trace('debugpy initialized');
    if (init.body) this.sendEvent(new Event('capabilities', { capabilities: init.body as DebugProtocol.Capabilities }));
    const { launchArgs, warning } = debugpyLaunch(r, target, args, debugpyVersion);
    if (warning) this.sendEvent(new OutputEvent(`AgentJet: ${warning}\n`, 'important'));
    const shim = this.shim.write();
    if (shim) launchArgs.debugLauncherPath = shim;
    // The last moment a stop can keep the launcher from starting.
    this.procs.owner.check('launcher');
    this.record.startedAt = Date.now();
    this.procs.owner.running();
    this.launchSent = true;
    const seq = this.upstream!.send({ type: 'request', command: 'launch', arguments: launchArgs });
    this.requests.relayed.set(seq, request);
    this.sweepTimer = setInterval(() => void this.sweep(), 2000);
  }

  // ---- relay --------------------------------------------------------------------------------

  private forward(request: DebugProtocol.Request): void {
    const seq = this.upstream!.send({ type: 'request', command: request.command, arguments: request.arguments });
    this.requests.relayed.set(seq, request);
  }

  private fromDebugpy(m: DebugProtocol.ProtocolMessage): void {
    if (m.type === 'response') {
      const resp = m as DebugProtocol.Response;
      const orig = this.requests.settle(resp);
      if (!orig) return;
      this.sendResponse({ ...resp, seq: 0, request_seq: orig.seq, command: orig.command });
    } else if (m.type === 'event') {
      const ev = m as DebugProtocol.Event;
      trace(`debugpy event ${ev.event}`);
      if (ev.event === 'output') {
        const body = ev.body as DebugProtocol.OutputEvent['body'];
        if (body.category === 'stdout' || body.category === 'stderr') this.onOutput(body.output, body.category, false);
      } else if (ev.event === 'process') {
        const pid = (ev.body as DebugProtocol.ProcessEvent['body']).systemProcessId;
        if (pid) {
          this.procs.debuggeePid = pid;
          this.procs.addDebuggee(pid);
        }
      } else if (ev.event === 'exited') {
        this.record.exitCode = (ev.body as DebugProtocol.ExitedEvent['body']).exitCode;
      } else if (ev.event === 'terminated') {
        void this.finish().then(() => this.sendEvent({ ...ev, seq: 0 }));
        return;
      }
      this.sendEvent({ ...ev, seq: 0 });
    } else if (m.type === 'request') {
      // Reverse requests (runInTerminal, startDebugging): pass to the client, answer debugpy.
      const req = m as DebugProtocol.Request;
      let args: unknown = req.arguments;
      if (req.command === 'startDebugging') {
        // A sub-process to attach to (`configuration.connect` is debugpy's adapter, `subProcessId`
        // the child). Ours: the extension connects such a session straight to debugpy.
        const sd = req.arguments as DebugProtocol.StartDebuggingRequestArguments;
        args = { ...sd, configuration: { ...sd.configuration, type: 'agentjet', [SUBPROCESS_FLAG]: true } };
        trace(`child session for ${String(sd.configuration.subProcessId)}`);
      }
      relayReverseRequest(this, this.upstream, req, args);
    }
  }

  /** Keeps the output and reads the launcher's own lines; `emit` when we own the stream (noDebug). */
  private onOutput(text: string, category: 'stdout' | 'stderr', emit: boolean): void {
    if (emit) this.sendEvent(new OutputEvent(text, category));
    const experiment = this.record.push(text, category, this.launch);
    if (experiment) this.sendExperiment(experiment);
  }

  private sendExperiment(body: ExperimentEventBody): void {
    this.sendEvent(new Event(EVENT_EXPERIMENT, body));
  }

  private answerLocally(request: DebugProtocol.Request): void {
    switch (request.command) {
      case 'threads':
        this.reply(request, { body: { threads: [] } });
        return;
      case 'setBreakpoints': {
        const bps = (request.arguments as DebugProtocol.SetBreakpointsArguments).breakpoints ?? [];
        this.reply(request, {
          body: {
            breakpoints: bps.map((b) => ({ verified: false, line: b.line, message: t('Run Without Debugging: breakpoints are off') })),
          },
        });
        return;
      }
      default:
        this.reply(request);
    }
  }

  // ---- end of run ---------------------------------------------------------------------------

  /** Once: record the launch beside the run, link the experiment and its rollout log for the extension. */
  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const r = this.launch;
    if (r && this.plan && this.record.startedAt) {
      const body = this.record.finish(
        r,
        this.plan,
        this.procs.runPid,
        (b) => this.sendExperiment(b),
        (message) => this.sendEvent(new OutputEvent(`AgentJet: ${message}\n`, 'stderr')),
      );
      this.shim.remove();
      this.sendEvent(new Event(EVENT_FINISHED, body));
    } else {
      this.shim.remove();
    }
  }

  /** Every 2 s of a debug run: note new process groups; when the debuggee died (killed) and debugpy
   * still waits on pipes its children hold, end the rest of its tree so debugpy can report the end. */
  private async sweep(): Promise<void> {
    await this.procs.noteGroups();
    const pid = this.procs.debuggeePid;
    if (pid && !this.debuggeeGone && !isAlive(pid) && !this.finished) {
      this.debuggeeGone = true;
      trace('debuggee gone: ending what is left of its tree');
      await this.procs.cleanup(false);
    }
  }

  private async onUpstreamGone(): Promise<void> {
    await this.finish();
    this.sendEvent(new TerminatedEvent());
  }

  private async onStop(request: DebugProtocol.Request): Promise<void> {
    const isDisconnect = request.command === 'disconnect';
    // A stop while the launch still runs is the user's (VS Code also disconnects after a run ended by itself).
    if (!this.finished && this.record.startedAt) this.record.stopRequestedMs ??= this.procs.owner.stopRequestedMs ?? Date.now();
    // Snapshot the tree first: once the debuggee dies its children are re-parented out of reach.
    await this.procs.noteGroups();
    const upstream = this.upstream;
    if (upstream && this.launchSent && this.procs.debugpy && this.procs.debugpy.exitCode === null) {
      // debugpy may not answer while the debuggee sits in native code; we end it ourselves then.
      const resp = await this.requests.ask(upstream, request.command, request.arguments, 1000);
      trace(`debugpy answered ${request.command}: ${resp ? 'yes' : 'timeout'}`);
      if (!isDisconnect) {
        // `terminate`: debugpy ends the debuggee; we sweep what it left.
        await this.procs.cleanup(false);
        if (resp) this.sendResponse({ ...resp, seq: 0, request_seq: request.seq, command: request.command });
        else this.reply(request);
        return;
      }
    }
    if (!isDisconnect && this.procs.launcherRunning) {
      await this.procs.cleanup(false);
      this.reply(request);
      return;
    }
    await this.procs.cleanup(true);
    if (!this.finished) {
      await this.finish();
      this.sendEvent(new TerminatedEvent());
    }
    this.reply(request);
    if (isDisconnect) this.shutdown();
  }

  override dispose(): void {
    this.attachRelay?.dispose();
    // Inline in the extension host: VS Code disposes the adapter when the session goes away; a
    // launch still being prepared must not start after that.
    this.procs.owner.requestStop();
    void this.procs.cleanup(true);
  }

  override shutdown(): void {
    // The client went away or the session ended: leave nothing of ours running.
    this.procs.owner.requestStop();
    void this.procs.cleanup(true).finally(() => super.shutdown());
  }

  // ---- helpers ------------------------------------------------------------------------------

  private reply(request: DebugProtocol.Request, extra: Partial<DebugProtocol.Response> = {}): void {
    this.sendResponse(okResponse(request, extra));
  }

  /** An unexpected error answers the request; left unhandled, the rejection would end the adapter. */
  private answerFailure(request: DebugProtocol.Request, work: Promise<void>): void {
    work.catch((e: unknown) => {
      const why = e instanceof Error ? e.message : String(e);
      this.fail(request, ERR.start, t('AgentJet could not complete "{0}": {1}', request.command, why));
    });
  }

  private fail(request: DebugProtocol.Request, id: number, message: string): void {
    this.sendEvent(new OutputEvent(`AgentJet: ${message}\n`, 'stderr'));
    this.sendErrorResponse(
      { type: 'response', seq: 0, request_seq: request.seq, command: request.command, success: false },
      { id, format: dialogFormat(message), showUser: true },
    );
  }
}
