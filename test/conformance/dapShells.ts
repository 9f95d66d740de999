// The two shells of the agentjet debug adapter as a DAP client test drives them (the session class
// served in this process, as the extension runs it inline, and dist/adapter.js), with VS Code's part
// in reverse requests played by the test.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { AgentJetDebugSession } from '../../debug-adapter/session';
import { adapterJs } from '../util/debugWorkspace';

export const TIMEOUT = 90_000;
export const INIT: DebugProtocol.InitializeRequestArguments = {
  adapterID: 'agentjet',
  linesStartAt1: true,
  columnsStartAt1: true,
  pathFormat: 'path',
  supportsStartDebuggingRequest: true,
};

interface Wire {
  outputStream: NodeJS.WritableStream;
  dispatch(body: string): void;
}

/** Reverse requests reach DebugClient as unanswered messages; route them to `onRequest` and answer. */
export function onReverseRequests(dc: DebugClient, onRequest: (r: DebugProtocol.Request) => void): void {
  const wire = dc as unknown as Wire;
  const original = wire.dispatch.bind(dc);
  wire.dispatch = (body: string) => {
    const msg = JSON.parse(body) as DebugProtocol.ProtocolMessage;
    if (process.env.AJ_TEST_TRACE && !body.includes('"output"')) process.stderr.write(`TEST <- ${body.slice(0, 300)}\n`);
    if (msg.type !== 'request') {
      original(body);
      return;
    }
    const req = msg as DebugProtocol.Request;
    const json = JSON.stringify({ type: 'response', seq: 0, request_seq: req.seq, command: req.command, success: true });
    wire.outputStream.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`, 'utf8');
    onRequest(req);
  };
}

export function collect(dc: DebugClient, event: string): DebugProtocol.Event[] {
  const seen: DebugProtocol.Event[] = [];
  dc.on(event, (e: DebugProtocol.Event) => seen.push(e));
  return seen;
}

export interface Shell {
  name: string;
  client(): Promise<DebugClient>;
  close(): Promise<void>;
}

/** The session class served in this process over TCP (the inline adapter's code path). */
export async function inlineShell(): Promise<Shell> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const session = new AgentJetDebugSession();
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    name: 'inline session',
    async client() {
      const dc = new DebugClient('node', '', 'agentjet');
      dc.defaultTimeout = TIMEOUT;
      await dc.start(port);
      return dc;
    },
    // server.close() waits for open connections: a session a failed test left open would hang it.
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}

export function processShell(): Shell {
  return {
    name: 'dist/adapter.js',
    async client() {
      const dc = new DebugClient('node', adapterJs, 'agentjet');
      dc.defaultTimeout = TIMEOUT;
      await dc.start();
      return dc;
    },
    close: async () => {},
  };
}
