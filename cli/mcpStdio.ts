// The stdio transport of `agentjet mcp`: one JSON-RPC message per line, as the SDK's own
// StdioServerTransport reads them, but a message it cannot take does not end the session. The SDK's
// transport closes itself on a line over 10 MB (the server then exits 0, saying nothing); here such
// a line is skipped as it streams in (never held: memory stays at the bound), its sender is answered
// with a JSON-RPC error naming the size and the limit (to the request's id when the line's start or
// end shows it), a line goes to stderr, and the next message is served. A line that is not JSON-RPC
// is answered with a parse error the same way.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { t } from '../core/l10n';
import { printable } from '../core/l10n/printable';

/** The largest message read: the SDK's own stdio bound. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How much of an oversized line's start and end is kept, to find its id. */
const KEEP = 4096;

type Id = string | number;

/** The id of a JSON-RPC message cut to its start and end: `{"jsonrpc":"2.0","id":X,...` or `...,"id":X}` (the SDK's order). */
export function idOfCut(head: string, tail: string): Id | undefined {
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const m =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*[,}]`).exec(head) ??
    new RegExp(String.raw`[,{]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as Id;
  } catch {
    return undefined;
  }
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private size = 0;
  /** An oversized line being skipped: its start, its latest end, its size so far. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly onError = (e: Error) => this.onerror?.(e);

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
    private readonly warn: (line: string) => void = (s) => process.stderr.write(s),
  ) {}

  start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    return Promise.resolve();
  }

  private read(chunk: Buffer): void {
    for (let start = 0; start < chunk.length;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-KEEP);
      } else if (this.size + piece.length > this.maxBytes) {
        const held = Buffer.concat([...this.parts, piece.subarray(0, KEEP)]);
        this.skipping = {
          head: held.subarray(0, KEEP),
          tail: Buffer.concat([...this.parts.slice(-1), piece]).subarray(-KEEP),
          bytes: this.size + piece.length,
        };
        this.parts = [];
        this.size = 0;
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl < 0) return;
      start = nl + 1;
      if (this.skipping) {
        const s = this.skipping;
        this.skipping = undefined;
        this.refuseOversized(s);
        continue;
      }
      const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
      this.parts = [];
      this.size = 0;
      this.deliver(line);
    }
  }

  private deliver(line: string): void {
    if (!line.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (e) {
      const why = t(
        'a message that is not JSON-RPC was dropped ({0})',
        (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200),
      );
      this.warn(`agentjet mcp: ${printable(why)}\n`);
      const id = idOfCut(line.slice(0, KEEP), line.slice(-KEEP));
      void this.send({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code: -32700, message: why } } as JSONRPCMessage);
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(s: { head: Buffer; tail: Buffer; bytes: number }): void {
    const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
    const why = t(
      'a message of {0} MB is over the limit of {1} MB per message and was dropped; the server goes on',
      mb(s.bytes),
      mb(this.maxBytes),
    );
    this.warn(`agentjet mcp: ${why}\n`);
    const id = idOfCut(s.head.toString('utf8'), s.tail.toString('utf8'));
    void this.send({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code: -32600, message: why } } as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.parts = [];
    this.skipping = undefined;
    this.onclose?.();
    return Promise.resolve();
  }
}
