// The `agentjet` debug session: a DAP session of ours in front of debugpy's own adapter.
// It answers `initialize`, runs the preflight on `launch`, then starts `<python> -m debugpy.adapter`
// and relays the protocol both ways, rewriting our `launch` into debugpy's (module ajet.launcher,
// no sub-process attach so the vLLM companion runs at full speed). Stop ends the launcher and
// everything it started except companions (unless `autokill`). With `noDebug` it runs the same
// command without debugpy.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { DebugSession, Event, OutputEvent, InitializedEvent, TerminatedEvent, ExitedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DapChannel } from './channel';
import { lintFile } from '../core/config/lint';
import { resolveAttributes, mergedEnv, type AgentJetLaunchAttributes, type ResolvedLaunch } from '../core/launch/attributes';
import { expDirFromArgs, launcherArgs, launcherModule, readConfigFacts, shellQuote, type ConfigFacts, type Dialect } from '../core/launch/plan';
import { whichSync } from '../core/launch/interpreter';
import { judgeProbe, runProbe } from '../core/launch/preflight';
import { listProcesses, planKill, terminate } from '../core/launch/processes';
import { companionFolder, readCompanions, stopCompanions } from '../core/launch/companions';
import { experimentFromOutput, findExperimentFolder, findRolloutLog } from '../core/launch/experiment';
import { join, isAbsolute } from 'node:path';
import { EVENT_EXPERIMENT, EVENT_FINISHED, LAUNCH_ERRORS, type ExperimentEventBody, type FinishedEventBody } from '../core/protocol/debug';
import { AttachRelay } from './attach';
import { rayLaunchAdditions } from '../core/ray/tags';

const ERR = LAUNCH_ERRORS;
const T0 = performance.now();
/** AGENTJET_DAP_TRACE=1: phase timings on stderr (for the benchmark and bug reports). */
function trace(what: string): void {
  if (process.env.AGENTJET_DAP_TRACE) process.stderr.write(`agentjet-dap +${(performance.now() - T0).toFixed(0)}ms ${what}\n`);
}

// What debugpy announces; debugpy's real answer follows as a `capabilities` event once it runs.
const DEBUGPY_CAPABILITIES: DebugProtocol.Capabilities = {
  supportsCompletionsRequest: true,
  supportsConditionalBreakpoints: true,
  supportsConfigurationDoneRequest: true,
  supportsDelayedStackTraceLoading: true,
  supportsEvaluateForHovers: true,
  supportsExceptionInfoRequest: true,
  supportsExceptionOptions: true,
  supportsFunctionBreakpoints: true,
  supportsHitConditionalBreakpoints: true,
  supportsLogPoints: true,
  supportsModulesRequest: true,
  supportsSetExpression: true,
  supportsSetVariable: true,
  supportsValueFormattingOptions: true,
  supportsTerminateRequest: true,
  supportsGotoTargetsRequest: true,
  supportsClipboardContext: true,
  supportsStepInTargetsRequest: true,
  exceptionBreakpointFilters: [
    { filter: 'raised', label: 'Raised Exceptions', default: false },
    { filter: 'uncaught', label: 'Uncaught Exceptions', default: true },
    { filter: 'userUnhandled', label: 'User Uncaught Exceptions', default: false },
  ],
};

type LaunchArgs = DebugProtocol.LaunchRequestArguments & AgentJetLaunchAttributes & { rayDebug?: boolean; debugTags?: string[] };

export class AgentJetDebugSession extends DebugSession {
  private initializeArgs: DebugProtocol.InitializeRequestArguments | undefined;
  private upstream: DapChannel | undefined;
  private debugpy: ChildProcess | undefined;
  private launcher: ChildProcess | undefined;
  /** Our seq toward debugpy -> the client's request it answers. */
  private readonly pendingUp = new Map<number, DebugProtocol.Request>();
  /** Requests debugpy is still waiting on that we answer ourselves (initialize, launch). */
  private readonly internal = new Map<number, (r: DebugProtocol.Response) => void>();
  private launch: ResolvedLaunch | undefined;
  private facts: ConfigFacts | undefined;
  private dialect: Dialect = 'ajet';
  private startedAt = 0;
  private debuggeePid: number | undefined;
  private readonly seenGroups = new Set<number>();
  private experiment: string | undefined;
  private exitCode: number | undefined;
  private finished = false;
  private stopping: Promise<void> | undefined;
  private readonly lineBuf = new Map<string, string>();
  private sweepTimer: NodeJS.Timeout | undefined;
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
    if (this.attachRelay) { this.attachRelay.handle(request); return; }
    if (request.command === 'attach') { (this.attachRelay = new AttachRelay(this, this.initializeArgs)).handle(request); return; }
    switch (request.command) {
      case 'initialize':
        this.initializeArgs = request.arguments as DebugProtocol.InitializeRequestArguments;
        this.reply(request, { body: DEBUGPY_CAPABILITIES });
        return;
      case 'launch':
        void this.onLaunch(request);
        return;
      case 'disconnect':
      case 'terminate':
        void this.onStop(request);
        return;
      default:
        if (this.upstream && this.launchSent) this.forward(request);
        else this.answerLocally(request);
    }
  }

  // ---- launch -------------------------------------------------------------------------------

  private async onLaunch(request: DebugProtocol.Request): Promise<void> {
    const a = (request.arguments ?? {}) as LaunchArgs;
    if (typeof a.config !== 'string' || !a.config.trim()) {
      this.fail(request, ERR.args, 'The launch configuration has no "config" (the AgentJet YAML file to run).');
      return;
    }
    const r = resolveAttributes(a);
    // Ray debugging (`rayDebug`, `debugTags`): RAY_DEBUG=1 and AgentJet's --debug tags.
    const ray = rayLaunchAdditions(a.rayDebug, a.debugTags, r.args);
    Object.assign(r.envAdditions, ray.env);
    r.args.push(...ray.args);
    this.launch = r;
    // 1. the config itself
    // Class references resolve from where the launcher will run.
    const problems = (await lintFile(r.config, { root: r.cwd })).filter((d) => d.severity === 'error');
    if (problems.length) {
      const list = problems.slice(0, 10).map((d) => `  line ${d.range.start.line + 1}: ${d.message}`).join('\n');
      this.fail(request, ERR.config, `${r.config} has ${problems.length} error(s); nothing was started. Fix them first (see Problems):\n${list}`);
      return;
    }
    let text = '';
    try { text = readFileSync(r.config, 'utf8'); } catch { /* lint reported it */ }
    trace('lint done');
    const facts = readConfigFacts(text);
    if (!facts.dialect) {
      this.fail(request, ERR.notAgentJet, `${r.config} is not an AgentJet config (no ajet: or astuner: root key).`);
      return;
    }
    this.facts = facts;
    this.dialect = facts.dialect;
    const env = mergedEnv(r);
    // 2. the interpreter
    const exists = (p: string): boolean => existsSync(p);
    if (!whichSync(r.python, exists, env.PATH ?? '')) {
      this.fail(request, ERR.python, `The Python interpreter "${r.python}" does not exist. Set agentjet.pythonPath (or "python" in launch.json) to an environment with AgentJet installed.`);
      return;
    }
    // 3. debugpy, framework, port: one probe
    const expDir = expDirFromArgs(r.args, facts.dialect);
    const companions = readCompanions(companionFolder(r.cwd, expDir)).filter((c) => c.alive);
    const module = launcherModule(facts.dialect);
    // debugpy's adapter (idle until it gets our launch) starts while the probe runs: that hides
    // most of the probe's cost. The launcher itself never starts before the preflight passed, and
    // a refused launch ends the idle adapter.
    const adapterReady = r.noDebug ? undefined : this.spawnDebugpy(r, env);
    const probe = await runProbe({ python: r.python, module, port: facts.debugVllmPort, wantDebugpy: !r.noDebug, cwd: r.cwd, env });
    trace('probe done');
    const refuse = async (id: number, message: string): Promise<void> => {
      if (adapterReady) { await adapterReady; await this.killOwn(false); }
      this.fail(request, id, message);
    };
    if (!probe.ok) { await refuse(ERR.python, probe.error); return; }
    const verdict = judgeProbe(probe.result, {
      companionPgids: companions.map((c) => c.pgid),
      portKey: `${facts.dialect}.debug.debug_vllm_port`,
      wantDebugpy: !r.noDebug,
    });
    if (verdict.errors.length) {
      await refuse(ERR.preflight, `Cannot start ${r.config}; nothing was started:\n${verdict.errors.map((e) => `- ${e}`).join('\n')}`);
      return;
    }
    for (const w of verdict.warnings) this.sendEvent(new OutputEvent(`AgentJet: ${w}\n`, 'important'));
    const args = launcherArgs({ config: r.config, backbone: r.backbone, args: r.args });
    this.sendEvent(new OutputEvent(`AgentJet: ${[r.python, '-m', module, ...args].map(shellQuote).join(' ')}  (cwd ${r.cwd}${r.envFile ? `, env from ${r.envFile}` : ''})\n`, 'console'));
    this.startedAt = Date.now();
    if (r.noDebug || !adapterReady) this.startWithoutDebugger(request, r, module, args, env);
    else await this.startDebugpy(request, r, module, args, await adapterReady);
  }

  private startWithoutDebugger(request: DebugProtocol.Request, r: ResolvedLaunch, module: string, args: string[], env: NodeJS.ProcessEnv): void {
    let child: ChildProcess;
    try {
      child = spawn(r.python, ['-u', '-m', module, ...args], { cwd: r.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      this.fail(request, ERR.start, `Could not start ${r.python}: ${(e as Error).message}`);
      return;
    }
    this.launcher = child;
    child.stdout?.on('data', (b: Buffer) => this.onOutput(b.toString(), 'stdout', true));
    child.stderr?.on('data', (b: Buffer) => this.onOutput(b.toString(), 'stderr', true));
    child.on('error', (e) => this.onOutput(`AgentJet: ${e.message}\n`, 'stderr', true));
    child.on('close', (code, sig) => {
      this.exitCode = code ?? (sig ? 128 : 1);
      void this.finish().then(() => {
        this.sendEvent(new ExitedEvent(this.exitCode ?? 1));
        this.sendEvent(new TerminatedEvent());
      });
    });
    if (child.pid) {
      this.seenGroups.add(child.pid);
      this.sendEvent(new Event('process', { name: r.config, systemProcessId: child.pid, isLocalProcess: true, startMethod: 'launch' }));
    }
    this.reply(request);
    this.sendEvent(new InitializedEvent());
  }

  /** Starts `<python> -m debugpy.adapter` and initializes it; resolves with its answer or a reason. */
  private spawnDebugpy(r: ResolvedLaunch, env: NodeJS.ProcessEnv): Promise<DebugProtocol.Response | string> {
    let child: ChildProcess;
    try {
      // Its own process group, so Stop can end debugpy, its launcher and the debuggee together.
      child = spawn(r.python, ['-m', 'debugpy.adapter'], { cwd: r.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      return Promise.resolve(`could not start ${r.python} -m debugpy.adapter: ${(e as Error).message}`);
    }
    this.debugpy = child;
    if (child.pid) this.seenGroups.add(child.pid);
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => { stderr = (stderr + b.toString()).slice(-4000); });
    return new Promise<DebugProtocol.Response | string>((resolveReady) => {
      child.on('error', (e) => resolveReady(`could not start ${r.python} -m debugpy.adapter: ${e.message}`));
      child.on('exit', (code) => {
        if (!this.finished && this.upstream === undefined) resolveReady(`debugpy's adapter exited (code ${code}) ${stderr.trim()}`);
        else if (!this.finished && this.launchSent) void this.onUpstreamGone();
      });
      const channel = new DapChannel(child.stdout!, child.stdin!, (m) => this.fromDebugpy(m));
      const seq = channel.send({ type: 'request', command: 'initialize', arguments: { ...this.initializeArgs, adapterID: 'debugpy' } });
      this.internal.set(seq, (resp) => { this.upstream = channel; resolveReady(resp); });
    });
  }

  private async startDebugpy(request: DebugProtocol.Request, r: ResolvedLaunch, module: string, args: string[], init: DebugProtocol.Response | string): Promise<void> {
    if (typeof init === 'string' || !init.success) {
      await this.killOwn(false);
      this.fail(request, ERR.start, typeof init === 'string' ? init : `debugpy refused to initialize: ${init.message ?? ''}`);
      return;
    }
    trace('debugpy initialized');
    if (init.body) this.sendEvent(new Event('capabilities', { capabilities: init.body as DebugProtocol.Capabilities }));
    const debugpyEnv: Record<string, string> = { ...r.envAdditions };
    const launchArgs = {
      name: 'AgentJet', type: 'python', request: 'launch',
      module, args, cwd: r.cwd, env: debugpyEnv,
      console: 'internalConsole', redirectOutput: true,
      justMyCode: r.justMyCode, stopOnEntry: r.stopOnEntry,
      // Not following children keeps the detached vLLM companion free of the tracer.
      subProcess: false, showReturnValue: true,
    };
    this.launchSent = true;
    const seq = this.upstream!.send({ type: 'request', command: 'launch', arguments: launchArgs });
    this.pendingUp.set(seq, request);
    this.sweepTimer = setInterval(() => void this.noteGroups(), 2000);
  }

  // ---- relay --------------------------------------------------------------------------------

  private forward(request: DebugProtocol.Request): void {
    const seq = this.upstream!.send({ type: 'request', command: request.command, arguments: request.arguments });
    this.pendingUp.set(seq, request);
  }

  private fromDebugpy(m: DebugProtocol.ProtocolMessage): void {
    if (m.type === 'response') {
      const resp = m as DebugProtocol.Response;
      const own = this.internal.get(resp.request_seq);
      if (own) { this.internal.delete(resp.request_seq); own(resp); return; }
      const orig = this.pendingUp.get(resp.request_seq);
      if (!orig) return;
      this.pendingUp.delete(resp.request_seq);
      this.sendResponse({ ...resp, seq: 0, request_seq: orig.seq, command: orig.command });
    } else if (m.type === 'event') {
      const ev = m as DebugProtocol.Event;
      trace(`debugpy event ${ev.event}`);
      if (ev.event === 'output') {
        const body = ev.body as DebugProtocol.OutputEvent['body'];
        if (body.category === 'stdout' || body.category === 'stderr') this.onOutput(body.output, body.category, false);
      } else if (ev.event === 'process') {
        const pid = (ev.body as DebugProtocol.ProcessEvent['body']).systemProcessId;
        if (pid) { this.debuggeePid = pid; this.seenGroups.add(pid); }
      } else if (ev.event === 'exited') {
        this.exitCode = (ev.body as DebugProtocol.ExitedEvent['body']).exitCode;
      } else if (ev.event === 'terminated') {
        void this.finish().then(() => this.sendEvent({ ...ev, seq: 0 }));
        return;
      }
      this.sendEvent({ ...ev, seq: 0 });
    } else if (m.type === 'request') {
      // Reverse requests (runInTerminal, startDebugging): pass to the client, answer debugpy.
      const req = m as DebugProtocol.Request;
      this.sendRequest(req.command, req.arguments, 30_000, (resp) => {
        this.upstream?.send({ type: 'response', request_seq: req.seq, command: req.command, success: resp.success, message: resp.message, body: resp.body });
      });
    }
  }

  /** Scans console output for the experiment folder; `emit` when we own the stream (noDebug). */
  private onOutput(text: string, category: 'stdout' | 'stderr', emit: boolean): void {
    if (emit) this.sendEvent(new OutputEvent(text, category));
    if (this.experiment) return;
    const lines = ((this.lineBuf.get(category) ?? '') + text).split('\n');
    this.lineBuf.set(category, lines.pop()!.slice(-4000));
    for (const line of lines) {
      const found = experimentFromOutput(line.replace(/\r$/, ''));
      if (found) { this.setExperiment(isAbsolute(found) ? found : join(this.launch!.cwd, found)); break; }
    }
  }

  private setExperiment(folder: string): void {
    if (this.experiment) return;
    this.experiment = folder;
    const body: ExperimentEventBody = { folder };
    this.sendEvent(new Event(EVENT_EXPERIMENT, body));
  }

  private answerLocally(request: DebugProtocol.Request): void {
    switch (request.command) {
      case 'threads': this.reply(request, { body: { threads: [] } }); return;
      case 'setBreakpoints': {
        const bps = (request.arguments as DebugProtocol.SetBreakpointsArguments).breakpoints ?? [];
        this.reply(request, { body: { breakpoints: bps.map((b) => ({ verified: false, line: b.line, message: 'Run Without Debugging: breakpoints are off' })) } });
        return;
      }
      default: this.reply(request);
    }
  }

  // ---- end of run ---------------------------------------------------------------------------

  /** Once: link the experiment and its rollout log for the extension. */
  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const r = this.launch;
    if (!r || !this.facts) return;
    const expRoot = (() => { const d = expDirFromArgs(r.args, this.dialect); return isAbsolute(d) ? d : join(r.cwd, d); })();
    if (!this.experiment) {
      const found = findExperimentFolder(expRoot, r.config, this.facts.experimentName, this.startedAt);
      if (found) this.setExperiment(found);
    }
    const rolloutLog = this.experiment ? findRolloutLog(this.experiment, this.startedAt) : undefined;
    const body: FinishedEventBody = {
      experimentFolder: this.experiment ?? null, rolloutLog: rolloutLog ?? null,
      exitCode: this.exitCode ?? null, openTokenLog: r.openTokenLogOnFinish,
    };
    this.sendEvent(new Event(EVENT_FINISHED, body));
  }

  private async onUpstreamGone(): Promise<void> {
    await this.finish();
    this.sendEvent(new TerminatedEvent());
  }

  private async onStop(request: DebugProtocol.Request): Promise<void> {
    const isDisconnect = request.command === 'disconnect';
    // Snapshot the tree first: once the debuggee dies its children are re-parented out of reach.
    await this.noteGroups();
    if (this.upstream && this.launchSent && this.debugpy && this.debugpy.exitCode === null) {
      const answered = new Promise<DebugProtocol.Response | undefined>((res) => {
        const seq = this.upstream!.send({ type: 'request', command: request.command, arguments: request.arguments });
        // debugpy may not answer while the debuggee sits in native code; we end it ourselves then.
        const timer = setTimeout(() => { this.internal.delete(seq); res(undefined); }, 1000);
        this.internal.set(seq, (resp) => { clearTimeout(timer); res(resp); });
      });
      const resp = await answered;
      trace(`debugpy answered ${request.command}: ${resp ? 'yes' : 'timeout'}`);
      if (!isDisconnect) {
        // `terminate`: debugpy ends the debuggee; we sweep what it left.
        await this.cleanup(false);
        if (resp) this.sendResponse({ ...resp, seq: 0, request_seq: request.seq, command: request.command });
        else this.reply(request);
        return;
      }
    }
    if (!isDisconnect && this.launcher && this.launcher.exitCode === null && this.launcher.signalCode === null) {
      await this.cleanup(false);
      this.reply(request);
      return;
    }
    await this.cleanup(true);
    if (!this.finished) { await this.finish(); this.sendEvent(new TerminatedEvent()); }
    this.reply(request);
    if (isDisconnect) this.shutdown();
  }

  /** Records process groups of everything under debugpy, so children that re-group are not lost. */
  private async noteGroups(): Promise<void> {
    const root = this.debugpy?.pid ?? this.launcher?.pid;
    if (!root) return;
    const procs = await listProcesses();
    const spare = new Set(this.companionGroups());
    const stack = [root];
    const seen = new Set<number>();
    while (stack.length) {
      const pid = stack.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      for (const p of procs) if (p.ppid === pid) { stack.push(p.pid); if (!spare.has(p.pgid)) this.seenGroups.add(p.pgid); }
    }
  }

  private companionGroups(): number[] {
    const r = this.launch;
    if (!r) return [];
    return readCompanions(companionFolder(r.cwd, expDirFromArgs(r.args, this.dialect))).map((c) => c.pgid);
  }

  /** Ends the launcher and its tree (and debugpy when `includeDebugpy`), sparing companions unless autokill. */
  private cleanup(includeDebugpy: boolean): Promise<void> {
    const run = async (): Promise<void> => {
      const r = this.launch;
      const procs = await listProcesses();
      const spare = r?.autokill ? [] : this.companionGroups();
      const roots = [this.debuggeePid, this.launcher?.pid, includeDebugpy ? this.debugpy?.pid : undefined].filter((p): p is number => !!p);
      const groups = [...this.seenGroups].filter((g) => includeDebugpy || g !== this.debugpy?.pid);
      const plan = planKill(procs, roots, groups, spare);
      // When only the debuggee should go, keep debugpy's own processes alive to finish the protocol.
      if (!includeDebugpy && this.debugpy?.pid) {
        const keep = new Set(procs.filter((p) => p.pgid === this.debugpy!.pid).map((p) => p.pid));
        plan.pids = plan.pids.filter((p) => !keep.has(p));
      }
      trace(`cleanup: ${plan.pids.length} pids, groups ${plan.pgids.join(',')}`);
      const left = await terminate(plan, 1500);
      trace(`cleanup done, ${left.length} left`);
      if (r?.autokill) await stopCompanions(readCompanions(companionFolder(r.cwd, expDirFromArgs(r.args, this.dialect))));
    };
    if (includeDebugpy) return (this.stopping ??= run());
    return run();
  }

  private async killOwn(includeCompanions: boolean): Promise<void> {
    const procs = await listProcesses();
    const roots = [this.debugpy?.pid].filter((p): p is number => !!p);
    await terminate(planKill(procs, roots, roots, includeCompanions ? [] : this.companionGroups()), 2000);
  }

  override dispose(): void {
    this.attachRelay?.dispose();
    // Inline in the extension host: VS Code disposes the adapter when the session goes away.
    void this.cleanup(true);
  }

  override shutdown(): void {
    // The client went away or the session ended: leave nothing of ours running.
    void this.cleanup(true).finally(() => super.shutdown());
  }

  // ---- helpers ------------------------------------------------------------------------------

  private reply(request: DebugProtocol.Request, extra: Partial<DebugProtocol.Response> = {}): void {
    this.sendResponse({ type: 'response', seq: 0, request_seq: request.seq, command: request.command, success: true, ...extra });
  }

  private fail(request: DebugProtocol.Request, id: number, message: string): void {
    this.sendEvent(new OutputEvent(`AgentJet: ${message}\n`, 'stderr'));
    this.sendErrorResponse({ type: 'response', seq: 0, request_seq: request.seq, command: request.command, success: false }, { id, format: message.replace(/[{}]/g, (c) => (c === '{' ? '(' : ')')), showUser: true });
  }
}
