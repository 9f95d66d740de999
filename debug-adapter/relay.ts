// The relay between the client and debugpy's own adapter: starts `<python> -m debugpy.adapter`
// (through the launch's owner: refused after a stop), initializes it, then passes the client's
// requests on and brings back debugpy's responses, events and reverse requests. debugpy asks for
// each child session with `startDebugging`; it goes to the client as an `agentjet` attach that the
// extension connects straight to debugpy's adapter.
import type { ChildProcess } from 'node:child_process';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DapChannel, PendingRequests, relayReverseRequest, type RelayHost } from './channel';
import type { ResolvedLaunch } from '../core/launch/attributes';
import { AUTOKILL_GUARD } from '../core/launch/lifecycle';
import { RESUMING_REQUESTS, SUBPROCESS_FLAG } from '../core/protocol/debug';
import type { LaunchRecordKeeper } from '../core/launch/record';
import { LaunchStopped } from '../core/launch/owner';
import { t } from '../core/l10n';
import { ADAPTER_BOOT, trace } from './debugpy';
import type { LaunchProcesses } from './processes';

/** What the relay needs of the session in front of debugpy. */
export interface DebugpyRelayHost extends RelayHost {
  readonly procs: LaunchProcesses;
  readonly record: LaunchRecordKeeper;
  /** The run was recorded as ended (once). */
  readonly finished: boolean;
  readonly initializeArgs: DebugProtocol.InitializeRequestArguments | undefined;
  onOutput(text: string, category: 'stdout' | 'stderr', emit: boolean): void;
  finish(): Promise<void>;
  onUpstreamGone(): Promise<void>;
  /** The launcher's own process paused in the debugger or went on. */
  ownPaused(paused: boolean): void;
}

/** Requests after which the debuggee runs again. */
const RESUMING: ReadonlySet<string> = new Set(RESUMING_REQUESTS);

export class DebugpyRelay {
  private upstream: DapChannel | undefined;
  /** Our seq toward debugpy -> the client's request it answers. */
  private readonly requests = new PendingRequests();
  /** Our launch went to debugpy: from then on the client's requests go there too. */
  private launchSent = false;

  constructor(private readonly host: DebugpyRelayHost) {}

  /** debugpy's adapter runs our launch: the client's requests are relayed. */
  get relaying(): boolean {
    return this.upstream !== undefined && this.launchSent;
  }

  /**
   * Starts `<python> -m debugpy.adapter` (through the launch's owner: refused after a stop) and
   * initializes it; resolves with its answer or a reason.
   */
  spawn(r: ResolvedLaunch, env: NodeJS.ProcessEnv): Promise<DebugProtocol.Response | string> {
    let child: ChildProcess;
    try {
      // Its own process group, so Stop can end debugpy, its launcher and the debuggee together.
      child = this.host.procs.owner.spawn(r.python, ['-c', ADAPTER_BOOT, AUTOKILL_GUARD], {
        cwd: r.cwd,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      if (e instanceof LaunchStopped) throw e;
      return Promise.resolve(t('could not start {0} -m debugpy.adapter: {1}', r.python, (e as Error).message));
    }
    this.host.procs.debugpy = child;
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4000);
    });
    return new Promise<DebugProtocol.Response | string>((resolveReady) => {
      child.on('error', (e) => resolveReady(t('could not start {0} -m debugpy.adapter: {1}', r.python, e.message)));
      child.on('exit', (code) => {
        if (!this.host.finished && this.upstream === undefined)
          resolveReady(t("debugpy's adapter exited (code {0}) {1}", String(code), stderr.trim()));
        else if (!this.host.finished && this.launchSent) void this.host.onUpstreamGone();
      });
      const { stdout, stdin } = child;
      if (!stdout || !stdin) {
        resolveReady(`could not talk to ${r.python} -m debugpy.adapter (no pipes)`);
        return;
      }
      const channel = new DapChannel(stdout, stdin, (m) => this.fromDebugpy(m));
      const seq = channel.send({
        type: 'request',
        command: 'initialize',
        arguments: { ...this.host.initializeArgs, adapterID: 'debugpy' },
      });
      this.requests.own.set(seq, (resp) => {
        this.upstream = channel;
        resolveReady(resp);
      });
    });
  }

  /** Sends our launch (rewritten for debugpy) in answer of the client's `request`. */
  sendLaunch(request: DebugProtocol.Request, launchArgs: unknown): void {
    this.launchSent = true;
    const seq = this.upstream!.send({ type: 'request', command: 'launch', arguments: launchArgs });
    this.requests.relayed.set(seq, request);
  }

  forward(request: DebugProtocol.Request): void {
    // Resuming needs no `continued` event from debugpy: the request says it.
    if (RESUMING.has(request.command)) this.host.ownPaused(false);
    const seq = this.upstream!.send({ type: 'request', command: request.command, arguments: request.arguments });
    this.requests.relayed.set(seq, request);
  }

  /** Asks debugpy `command` and waits at most `ms`: its answer, or undefined on a timeout. */
  ask(command: string, args: unknown, ms: number): Promise<DebugProtocol.Response | undefined> {
    return this.requests.ask(this.upstream!, command, args, ms);
  }

  private fromDebugpy(m: DebugProtocol.ProtocolMessage): void {
    if (m.type === 'response') {
      const resp = m as DebugProtocol.Response;
      const orig = this.requests.settle(resp);
      if (!orig) return;
      this.host.sendResponse({ ...resp, seq: 0, request_seq: orig.seq, command: orig.command });
    } else if (m.type === 'event') {
      const ev = m as DebugProtocol.Event;
      trace(`debugpy event ${ev.event}`);
      if (ev.event === 'output') {
        const body = ev.body as DebugProtocol.OutputEvent['body'];
        if (body.category === 'stdout' || body.category === 'stderr') this.host.onOutput(body.output, body.category, false);
      } else if (ev.event === 'process') {
        const pid = (ev.body as DebugProtocol.ProcessEvent['body']).systemProcessId;
        if (pid) {
          this.host.procs.debuggeePid = pid;
          this.host.procs.addDebuggee(pid);
          this.host.record.setPid(pid);
        }
      } else if (ev.event === 'stopped' || ev.event === 'continued') {
        // The launcher paused at a breakpoint (or a step) or went on: the live record says so.
        this.host.ownPaused(ev.event === 'stopped');
      } else if (ev.event === 'exited') {
        this.host.record.exitCode = (ev.body as DebugProtocol.ExitedEvent['body']).exitCode;
      } else if (ev.event === 'terminated') {
        void this.host.finish().then(() => this.host.sendEvent({ ...ev, seq: 0 }));
        return;
      }
      this.host.sendEvent({ ...ev, seq: 0 });
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
      relayReverseRequest(this.host, this.upstream, req, args);
    }
  }
}
