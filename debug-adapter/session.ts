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
// the launch record is core/launch/record.ts, debugpy's particulars debug-adapter/debugpy.ts, the
// Ray attach path debug-adapter/attach.ts. The relay to debugpy is relay.ts; the launch paths are
// launch.ts (an AgentJet config), swarmLaunch.ts (a swarm client) and noDebug.ts (Run Without Debugging).
// Stop ends the launcher and everything it started except companions (unless `autokill`). With
// `noDebug` it runs the same command without debugpy.
import { DebugSession, Event, OutputEvent, TerminatedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { dialogFormat, isStopRequest, okResponse } from './channel';
import { type ResolvedLaunch } from '../core/launch/attributes';
import { isSwarmClientLaunch, type SwarmClientAttributes } from '../core/launch/swarmClient';
import { type LaunchPlan } from '../core/launch/lifecycle';
import {
  EVENT_EXPERIMENT,
  EVENT_FINISHED,
  LAUNCH_ERRORS,
  REQUEST_CHILDREN_PAUSED,
  type ChildrenPausedArguments,
  type ExperimentEventBody,
} from '../core/protocol/debug';
import { AttachRelay } from './attach';
import { REQUEST_CONSOLE } from '../core/protocol/ray';
import { t } from '../core/l10n';
import { LauncherShim, localCapabilities, trace } from './debugpy';
import { LaunchProcesses } from './processes';
import { LaunchStopped } from '../core/launch/owner';
import { isAlive } from '../core/launch/processes';
import { LaunchRecordKeeper } from '../core/launch/record';
import { DebugpyRelay } from './relay';
import type { LaunchHost } from './host';
import { launchAgentJet } from './launch';
import { launchSwarmClient } from './swarmLaunch';

const ERR = LAUNCH_ERRORS;

export class AgentJetDebugSession extends DebugSession implements LaunchHost {
  initializeArgs: DebugProtocol.InitializeRequestArguments | undefined;
  readonly relay = new DebugpyRelay(this);
  launch: ResolvedLaunch | undefined;
  plan: LaunchPlan | undefined;
  readonly procs = new LaunchProcesses();
  readonly record = new LaunchRecordKeeper();
  readonly shim = new LauncherShim();
  private ended = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private finishing: Promise<void> | undefined;
  private debuggeeGone = false;
  private attachRelay: AttachRelay | undefined;
  /** Paused in the debugger: the launcher's own process, and (the extension says) a child session. */
  private selfPaused = false;
  private childrenPaused = false;

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
    if (request.command === REQUEST_CHILDREN_PAUSED) {
      this.childrenPaused = (request.arguments as Partial<ChildrenPausedArguments> | undefined)?.paused === true;
      this.procs.owner.setPaused(this.selfPaused || this.childrenPaused);
      this.reply(request);
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
        } else if (this.relay.relaying) this.relay.forward(request);
        else this.answerLocally(request);
    }
  }

  /** The run was recorded as ended (once). */
  get finished(): boolean {
    return this.ended;
  }

  /** The launch; a user's stop during it ends it quietly (the stop answered and ended the session). */
  private async launchOrStopped(request: DebugProtocol.Request): Promise<void> {
    try {
      if (isSwarmClientLaunch(request.arguments as Record<string, unknown>))
        await launchSwarmClient(this, request, request.arguments as SwarmClientAttributes);
      else await launchAgentJet(this, request);
    } catch (e) {
      if (!(e instanceof LaunchStopped)) throw e;
      trace(`launch given up: ${e.message}`);
      // Whatever the interrupted step had started goes too (the stop's own end covers the rest).
      await this.procs.cleanup(true);
      this.reply(request);
    }
  }

  /** Keeps the output and reads the launcher's own lines; `emit` when we own the stream (noDebug). */
  onOutput(text: string, category: 'stdout' | 'stderr', emit: boolean): void {
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

  ownPaused(paused: boolean): void {
    this.selfPaused = paused;
    this.procs.owner.setPaused(this.selfPaused || this.childrenPaused);
  }

  startSweep(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), 2000);
  }

  // ---- end of run ---------------------------------------------------------------------------

  /**
   * Once: record the launch beside the run, link the experiment and its rollout log for the
   * extension. Every caller waits for the same end (its folder lookup is asynchronous: this runs in
   * the extension host), so nothing is sent after it before its finished event.
   */
  finish(): Promise<void> {
    return (this.finishing ??= this.finishOnce());
  }

  private async finishOnce(): Promise<void> {
    this.ended = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const r = this.launch;
    if (r && this.plan && this.record.startedAt) {
      const body = await this.record.finish(
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
      // Ended before the launcher started: a stop leaves "stopped", a refusal nothing.
      await this.record.abandon(this.procs.owner.stopRequestedMs);
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

  async onUpstreamGone(): Promise<void> {
    await this.finish();
    this.sendEvent(new TerminatedEvent());
  }

  private async onStop(request: DebugProtocol.Request): Promise<void> {
    const isDisconnect = request.command === 'disconnect';
    // A stop while the launch still runs is the user's (VS Code also disconnects after a run ended by itself).
    if (!this.finished && this.record.startedAt) this.record.stopRequestedMs ??= this.procs.owner.stopRequestedMs ?? Date.now();
    // A launcher of our own (no debugpy to ask first): frozen before anything is read, so nothing
    // of it runs or forks meanwhile. With debugpy, its end of the debuggee comes first.
    if (!this.relay.relaying) await this.procs.owner.freeze();
    // Snapshot the tree first: once the debuggee dies its children are re-parented out of reach.
    await this.procs.noteGroups();
    if (this.relay.relaying && this.procs.debugpy && this.procs.debugpy.exitCode === null) {
      // debugpy may not answer while the debuggee sits in native code; we end it ourselves then.
      const resp = await this.relay.ask(request.command, request.arguments, 1000);
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

  reply(request: DebugProtocol.Request, extra: Partial<DebugProtocol.Response> = {}): void {
    this.sendResponse(okResponse(request, extra));
  }

  /** An unexpected error answers the request; left unhandled, the rejection would end the adapter. */
  private answerFailure(request: DebugProtocol.Request, work: Promise<void>): void {
    work.catch((e: unknown) => {
      const why = e instanceof Error ? e.message : String(e);
      this.fail(request, ERR.start, t('AgentJet could not complete "{0}": {1}', request.command, why));
    });
  }

  fail(request: DebugProtocol.Request, id: number, message: string): void {
    this.sendEvent(new OutputEvent(`AgentJet: ${message}\n`, 'stderr'));
    this.sendErrorResponse(
      { type: 'response', seq: 0, request_seq: request.seq, command: request.command, success: false },
      { id, format: dialogFormat(message), showUser: true },
    );
  }
}
