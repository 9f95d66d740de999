// DAP framing (`Content-Length: N\r\n\r\n<json>`) over a child's stdio, for talking to debugpy.
import type { Readable, Writable } from 'node:stream';
import type { DebugProtocol } from '@vscode/debugprotocol';

export class DapChannel {
  private buf: Buffer = Buffer.alloc(0);
  private seq = 1;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly onMessage: (m: DebugProtocol.ProtocolMessage) => void,
  ) {
    input.on('data', (d: Buffer) => this.onData(d));
  }

  /** Sends a message with the next sequence number; returns that number. */
  send(m: Omit<DebugProtocol.ProtocolMessage, 'seq'> & Record<string, unknown>): number {
    const seq = this.seq++;
    const json = JSON.stringify({ ...m, seq });
    if (this.output.writable) this.output.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`, 'utf8');
    return seq;
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      const headerEnd = this.buf.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const m = /Content-Length:\s*(\d+)/i.exec(this.buf.subarray(0, headerEnd).toString('ascii'));
      if (!m) {
        this.buf = this.buf.subarray(headerEnd + 4);
        continue;
      }
      const len = Number(m[1]);
      if (this.buf.length < headerEnd + 4 + len) return;
      const body = this.buf.subarray(headerEnd + 4, headerEnd + 4 + len).toString('utf8');
      this.buf = this.buf.subarray(headerEnd + 4 + len);
      try {
        this.onMessage(JSON.parse(body) as DebugProtocol.ProtocolMessage);
      } catch {
        /* a malformed frame from the peer: skip it */
      }
    }
  }
}

/**
 * The requests in flight to debugpy: our own (answered by a callback) and the client's (answered
 * by relaying). `settle` takes a response off the books and returns the client's request it
 * answers, if it is one.
 */
export class PendingRequests {
  readonly own = new Map<number, (r: DebugProtocol.Response) => void>();
  readonly relayed = new Map<number, DebugProtocol.Request>();

  /** Sends a request of ours; resolves with the answer, or undefined after `ms` without one. */
  ask(channel: DapChannel, command: string, args: unknown, ms: number): Promise<DebugProtocol.Response | undefined> {
    return new Promise((res) => {
      const seq = channel.send({ type: 'request', command, arguments: args });
      const timer = setTimeout(() => {
        this.own.delete(seq);
        res(undefined);
      }, ms);
      this.own.set(seq, (r) => {
        clearTimeout(timer);
        res(r);
      });
    });
  }

  settle(resp: DebugProtocol.Response): DebugProtocol.Request | undefined {
    const own = this.own.get(resp.request_seq);
    if (own) {
      this.own.delete(resp.request_seq);
      own(resp);
      return undefined;
    }
    const orig = this.relayed.get(resp.request_seq);
    this.relayed.delete(resp.request_seq);
    return orig;
  }
}

/** What relaying needs of the session in front of debugpy (the public parts of a DebugSession). */
export interface RelayHost {
  sendResponse(response: DebugProtocol.Response): void;
  sendEvent(event: DebugProtocol.Event): void;
  sendRequest(command: string, args: unknown, timeout: number, cb: (response: DebugProtocol.Response) => void): void;
}

/** A reverse request of debugpy's (runInTerminal, startDebugging): passed to the client, its answer back to debugpy. */
export function relayReverseRequest(host: RelayHost, channel: DapChannel | undefined, req: DebugProtocol.Request, args: unknown): void {
  host.sendRequest(req.command, args, 30_000, (resp) => {
    channel?.send({
      type: 'response',
      request_seq: req.seq,
      command: req.command,
      success: resp.success,
      message: resp.message,
      body: resp.body,
    });
  });
}

/** `disconnect` or `terminate`: the two ways the client ends a session. */
export function isStopRequest(request: DebugProtocol.Request): boolean {
  return request.command === 'disconnect' || request.command === 'terminate';
}

/** A success answer to the client's `request`. */
export function okResponse(request: DebugProtocol.Request, extra: Partial<DebugProtocol.Response> = {}): DebugProtocol.Response {
  return { type: 'response', seq: 0, request_seq: request.seq, command: request.command, success: true, ...extra };
}

/** A message for the editor's error dialog: its `{…}` would be read as placeholders. */
export function dialogFormat(message: string): string {
  return message.replace(/[{}]/g, (c) => (c === '{' ? '(' : ')'));
}
