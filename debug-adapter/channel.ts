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
