// Our debug adapter attached to a Ray worker over DAP, as VS Code does it, for the Ray protocol
// tests: a paused worker's debugpy listener, or an editor-breakpoints worker's doorbell (the adapter
// rings it first).
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import { adapterJs } from './debugWorkspace';

export const RAY_DAP_TIMEOUT = 90_000;

export interface AttachedWorker {
  dc: DebugClient;
  /** The first `stopped` event, listened for before the attach (a paused worker stops at once). */
  stopped: Promise<DebugProtocol.StoppedEvent>;
}

/**
 * Starts our adapter and attaches to `host:port`. `doorbell`: an editor-breakpoints worker;
 * `uncaught`: debugpy's "uncaught" exception filter, which VS Code sends by default (post-mortem
 * stops need it). `before` runs on the client before the attach (to listen for other events).
 */
export async function attachWorker(
  target: { host: string; port: number; name?: string | undefined },
  opts: { doorbell?: boolean; uncaught?: boolean; before?: (dc: DebugClient) => void } = {},
): Promise<AttachedWorker> {
  const dc = new DebugClient('node', adapterJs, 'agentjet');
  dc.defaultTimeout = RAY_DAP_TIMEOUT;
  await dc.start();
  opts.before?.(dc);
  await dc.initializeRequest({ adapterID: 'agentjet', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  const initialized = dc.waitForEvent('initialized');
  const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
  // A worker that never stops (editor breakpoints set later) must not fail the run with a rejection.
  stopped.catch(() => undefined);
  const attached = dc.attachRequest({
    connect: { host: target.host, port: target.port },
    ...(opts.doorbell ? { rayDoorbell: true } : {}),
    justMyCode: false,
    rayWorker: target.name,
  } as DebugProtocol.AttachRequestArguments);
  await initialized;
  if (opts.uncaught) await dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] });
  await dc.configurationDoneRequest();
  await attached;
  return { dc, stopped };
}

/** The locals of a frame, by name. */
export async function frameLocals(dc: DebugClient, frameId: number): Promise<Map<string, string>> {
  const scopes = await dc.scopesRequest({ frameId });
  const vars = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0]!.variablesReference });
  return new Map(vars.body.variables.map((v) => [v.name, v.value]));
}

export async function topFrame(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  const st = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 5 });
  return st.body.stackFrames[0]!;
}

/** Attaches to each editor-breakpoints worker, as the extension does (the adapter rings its doorbell). */
export async function attachDoorbells(workers: readonly { host: string; port: number; names: string[] }[]): Promise<DebugClient[]> {
  const out: DebugClient[] = [];
  for (const w of workers) out.push((await attachWorker({ host: w.host, port: w.port, name: w.names.join(', ') }, { doorbell: true })).dc);
  return out;
}

/**
 * Sets the same breakpoints in every session (VS Code sends them to each), checks they bind, then
 * lets the workers go on (`go`) and resolves with each session's stop.
 */
export async function stopAllAt(
  clients: readonly DebugClient[],
  path: string,
  lines: number[],
  go: () => void,
): Promise<DebugProtocol.StoppedEvent[]> {
  const stops = clients.map((dc) => dc.waitForEvent('stopped', RAY_DAP_TIMEOUT) as Promise<DebugProtocol.StoppedEvent>);
  for (const dc of clients) {
    const r = await dc.setBreakpointsRequest({ source: { path }, breakpoints: lines.map((line) => ({ line })) });
    assert.ok(
      r.body.breakpoints.every((b) => b.verified),
      `verified: ${JSON.stringify(r.body.breakpoints)}`,
    );
  }
  go();
  return Promise.all(stops);
}
