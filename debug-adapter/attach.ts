// The `agentjet` session's attach path: attach to a debugpy listener that Ray's debugger opened in a
// paused worker (`Ray debugger is listening on HOST:PORT`). debugpy.listen() already runs debugpy's
// adapter inside the worker, so we connect to it over TCP and relay DAP both ways, rewriting our
// `attach` into debugpy's (`connect`, `pathMappings`, `justMyCode`). Stop detaches: the worker goes on
// and the Ray instance is left as it was. Frames of AgentJet's `bp()` helper and Ray's debugger
// glue are marked `deemphasize`, so the editor opens at the user's `bp("TAG")` line.
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DapChannel, PendingRequests, dialogFormat, isStopRequest, okResponse, relayReverseRequest, type RelayHost } from './channel';
import { EVENT_RAY_PAUSE, type RayPauseEventBody } from '../core/protocol/ray';
import { tagOnLine } from '../core/ray/tags';
import { validPathMappings, type PathMapping } from '../core/ray/types';
import { ringDoorbell } from '../core/ray/doorbell';
import { t } from '../core/l10n';

/** `attach` attributes of the agentjet type. */
export interface AgentJetAttachAttributes {
  /** The listener: `{host, port}` as Ray prints it. `host`/`port` at top level are accepted too. */
  connect?: { host?: string; port?: number };
  host?: string;
  port?: number;
  /** Where the worker's files are on this machine (cluster node, container). */
  pathMappings?: PathMapping[];
  justMyCode?: boolean;
  /** Shown in messages. */
  rayWorker?: string;
  /** ms to wait for the TCP connection (default 5000). */
  connectTimeout?: number;
  /**
   * `connect` is the doorbell of the editor-breakpoints hook (core/ray/doorbell.ts), not debugpy: ring
   * it first, and connect to the debugpy port the worker answers, on the same host.
   */
  rayDoorbell?: boolean;
}

const HELPER_FRAMES = [
  /[\\/]ajet[\\/]utils[\\/]vsdb\.py$/,
  /[\\/]astuner[\\/]utils[\\/]vsdb\.py$/,
  /[\\/]ray[\\/]util[\\/]debugpy\.py$/,
  /[\\/]ray[\\/]util[\\/]rpdb\.py$/,
];

export function isHelperFrame(path: string | undefined): boolean {
  return !!path && HELPER_FRAMES.some((r) => r.test(path));
}

export class AttachRelay {
  private upstream: DapChannel | undefined;
  private socket: Socket | undefined;
  private readonly requests = new PendingRequests();
  private terminated = false;
  private reported = false;
  private label = '';

  constructor(
    private readonly host: RelayHost,
    private readonly initializeArgs: DebugProtocol.InitializeRequestArguments | undefined,
  ) {}

  handle(request: DebugProtocol.Request): void {
    if (request.command === 'attach') void this.onAttach(request);
    else if (isStopRequest(request)) void this.onStop(request);
    else if (this.upstream) this.requests.relayed.set(this.send(request.command, this.rewrite(request)), request);
    else this.reply(request, request.command === 'threads' ? { body: { threads: [] } } : {});
  }

  /**
   * VS Code first asks for the top frame only (delayed stack loading) and focuses it when it is the
   * only one. Asking for a few more lets it skip the deemphasized bp() helper frame and focus the
   * caller; it loads the rest from where the answer stops.
   */
  private rewrite(request: DebugProtocol.Request): unknown {
    if (request.command !== 'stackTrace') return request.arguments;
    const a = (request.arguments ?? {}) as DebugProtocol.StackTraceArguments;
    if ((a.startFrame ?? 0) === 0 && a.levels && a.levels < 20) return { ...a, levels: 20 };
    return a;
  }

  private send(command: string, args: unknown): number {
    return this.upstream!.send({ type: 'request', command, arguments: args });
  }

  private ask(command: string, args: unknown, ms = 5000): Promise<DebugProtocol.Response | undefined> {
    return this.requests.ask(this.upstream!, command, args, ms);
  }

  private async onAttach(request: DebugProtocol.Request): Promise<void> {
    const a = (request.arguments ?? {}) as AgentJetAttachAttributes;
    const hostName = a.connect?.host ?? a.host ?? '127.0.0.1';
    let port = Number(a.connect?.port ?? a.port);
    this.label = a.rayWorker ? `${a.rayWorker} at ${hostName}:${port}` : `${hostName}:${port}`;
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      this.fail(
        request,
        t(
          'The attach configuration needs "connect": ("host", "port") (the address Ray printed: "Ray debugger is listening on HOST:PORT").',
        ),
      );
      return;
    }
    if (a.rayDoorbell === true) {
      try {
        port = await ringDoorbell(hostName, port);
      } catch (e) {
        this.fail(
          request,
          t(
            'Could not start the debugger in the Ray worker {0}: {1}. The worker may have ended, or the address is not reachable from here.',
            this.label,
            e instanceof Error ? e.message : String(e),
          ),
        );
        return;
      }
    }
    const socket = await new Promise<Socket | string>((res) => {
      const s = connect({ host: hostName, port });
      const timer = setTimeout(() => {
        s.destroy();
        res(`no connection within ${a.connectTimeout ?? 5000} ms`);
      }, a.connectTimeout ?? 5000);
      s.once('connect', () => {
        clearTimeout(timer);
        res(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        res(e.message);
      });
    });
    if (typeof socket === 'string') {
      this.fail(
        request,
        t(
          'Could not attach to the Ray worker {0}: {1}. The worker may have been resumed or ended, or the address is not reachable from here.',
          this.label,
          socket,
        ),
      );
      return;
    }
    this.socket = socket;
    socket.setNoDelay(true);
    this.upstream = new DapChannel(socket, socket, (m) => this.fromDebugpy(m));
    socket.on('close', () => this.onGone());
    socket.on('error', () => this.onGone());
    const init = await this.ask('initialize', { ...this.initializeArgs, adapterID: 'debugpy' }, 10_000);
    if (!init || !init.success) {
      this.fail(
        request,
        init?.message
          ? t('The debugger in the Ray worker {0} did not initialize: {1}.', this.label, init.message)
          : t('The debugger in the Ray worker {0} did not initialize.', this.label),
      );
      socket.destroy();
      return;
    }
    if (init.body) this.host.sendEvent({ type: 'event', seq: 0, event: 'capabilities', body: { capabilities: init.body } });
    const attachArgs = {
      name: 'AgentJet: Ray worker',
      type: 'python',
      request: 'attach',
      connect: { host: hostName, port },
      pathMappings: validPathMappings(a.pathMappings),
      justMyCode: a.justMyCode ?? false,
      subProcess: false,
      showReturnValue: true,
    };
    this.requests.relayed.set(this.send('attach', attachArgs), request);
  }

  private fromDebugpy(m: DebugProtocol.ProtocolMessage): void {
    if (m.type === 'response') {
      const resp = m as DebugProtocol.Response;
      const orig = this.requests.settle(resp);
      if (!orig) return;
      if (resp.command === 'stackTrace' && resp.success) this.markHelperFrames(resp as DebugProtocol.StackTraceResponse);
      this.host.sendResponse({ ...resp, seq: 0, request_seq: orig.seq, command: orig.command });
    } else if (m.type === 'event') {
      const ev = m as DebugProtocol.Event;
      if (ev.event === 'terminated') {
        this.terminated = true;
      }
      // The first stop waits for its stack (a few ms): see reportPause.
      if (ev.event === 'stopped' && !this.reported) {
        void this.reportPause(ev as DebugProtocol.StoppedEvent);
        return;
      }
      this.host.sendEvent({ ...ev, seq: 0 });
    } else if (m.type === 'request') {
      const req = m as DebugProtocol.Request;
      relayReverseRequest(this.host, this.upstream, req, req.arguments);
    }
  }

  private markHelperFrames(resp: DebugProtocol.StackTraceResponse): void {
    for (const f of resp.body?.stackFrames ?? []) {
      if (f.source && isHelperFrame(f.source.path)) f.source = { ...f.source, presentationHint: 'deemphasize' };
    }
  }

  /** Once: what kind of pause this is (post-mortem or a `bp("TAG")`) and where, for the extension. */
  private async reportPause(ev: DebugProtocol.StoppedEvent): Promise<void> {
    this.reported = true;
    const threadId = ev.body.threadId;
    let file: string | undefined;
    let line: number | undefined;
    let tag: string | undefined;
    let helperOnTop = false;
    if (threadId !== undefined) {
      const st = await this.ask('stackTrace', { threadId, startFrame: 0, levels: 20 });
      const frames = (st?.success ? (st.body as DebugProtocol.StackTraceResponse['body']).stackFrames : []) ?? [];
      helperOnTop = isHelperFrame(frames[0]?.source?.path);
      const top = frames.find((f) => f.source?.path && !isHelperFrame(f.source.path));
      file = top?.source?.path;
      line = top?.line;
      if (file && line) {
        try {
          tag = tagOnLine(readFileSync(file, 'utf8').split('\n')[line - 1] ?? '');
        } catch {
          /* not on this machine */
        }
      }
    }
    const body: RayPauseEventBody = {
      kind: ev.body.reason === 'exception' ? 'post-mortem' : 'breakpoint',
      tag,
      file,
      line,
      reason: ev.body.reason,
    };
    // VS Code focuses the first frame that is not deemphasized, except when the reason is plain
    // "breakpoint" (then it takes the top one, here inside bp()). Naming the stop after the tag lets
    // the editor open at the user's bp("TAG") line, and says why it stopped.
    const stopped =
      helperOnTop && ev.body.reason === 'breakpoint'
        ? {
            ...ev,
            seq: 0,
            body: {
              ...ev.body,
              reason: tag ? `bp("${tag}")` : 'Ray breakpoint',
              description: tag ? t('Paused at bp("{0}")', tag) : ev.body.description,
            },
          }
        : { ...ev, seq: 0 };
    this.host.sendEvent(stopped);
    this.host.sendEvent({ type: 'event', seq: 0, event: EVENT_RAY_PAUSE, body });
  }

  private async onStop(request: DebugProtocol.Request): Promise<void> {
    if (this.upstream && this.socket && !this.socket.destroyed) {
      // Always a detach: the worker continues, Ray is left as it was.
      await this.ask('disconnect', { restart: false, terminateDebuggee: false, suspendDebuggee: false }, 2000);
      this.socket.end();
    }
    this.reply(request);
    this.onGone();
  }

  private onGone(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.host.sendEvent({ type: 'event', seq: 0, event: 'terminated' });
  }

  dispose(): void {
    this.socket?.destroy();
  }

  private reply(request: DebugProtocol.Request, extra: Partial<DebugProtocol.Response> = {}): void {
    this.host.sendResponse(okResponse(request, extra));
  }

  private fail(request: DebugProtocol.Request, message: string): void {
    this.host.sendEvent({ type: 'event', seq: 0, event: 'output', body: { category: 'stderr', output: `AgentJet: ${message}\n` } });
    this.host.sendResponse({
      type: 'response',
      seq: 0,
      request_seq: request.seq,
      command: request.command,
      success: false,
      message,
      body: { error: { id: 1090, format: dialogFormat(message), showUser: true } },
    } as DebugProtocol.ErrorResponse);
  }
}
