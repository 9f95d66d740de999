// dist/server.js driven over stdio JSON-RPC as an editor drives it (the protocol tests): the
// connection, every diagnostics notification it publishes, and waiting for a state to hold.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { repoRoot } from './paths';

export interface Diag {
  code: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity: number;
  tags?: number[];
  data?: unknown;
}

export interface Published {
  uri: string;
  /** The document version the diagnostics are for, when the server says. */
  version?: number;
  diagnostics: Diag[];
}

export class LspClient {
  readonly proc: ChildProcess;
  readonly conn: MessageConnection;
  /** Every `textDocument/publishDiagnostics`, in order. */
  readonly published: Published[] = [];
  private readonly waiters: (() => void)[] = [];

  /** Starts the server; the caller adds its own request handlers, then calls `conn.listen()`. */
  constructor() {
    const server = join(repoRoot, 'dist', 'server.js');
    assert.ok(existsSync(server), 'run node scripts/build.mjs first');
    this.proc = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.conn = createMessageConnection(
      new StreamMessageReader(this.proc.stdout as NodeJS.ReadableStream),
      new StreamMessageWriter(this.proc.stdin as NodeJS.WritableStream),
    );
    this.conn.onNotification('textDocument/publishDiagnostics', (p: Published) => {
      this.published.push(p);
      this.changed();
    });
    this.conn.onNotification('window/logMessage', () => undefined);
    this.conn.onRequest('client/registerCapability', () => null);
  }

  /** Re-checks what `until` waits for (diagnostics do it themselves; call it when anything else the probes read changes). */
  changed(): void {
    for (const w of this.waiters.slice()) w();
  }

  /** Resolves with `probe()` once it is defined (checked now and on every change), or rejects after `ms`. */
  until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
    const hit = probe();
    if (hit !== undefined) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(check), 1);
        reject(new Error(`timed out waiting for ${what}`));
      }, ms);
      const check = () => {
        const v = probe();
        if (v === undefined) return;
        clearTimeout(timer);
        this.waiters.splice(this.waiters.indexOf(check), 1);
        resolve(v);
      };
      this.waiters.push(check);
    });
  }

  /** The first diagnostics published for `uri` that satisfy `pred`, earlier or to come. */
  nextDiagnostics(uri: string, pred: (p: Published) => boolean = () => true, ms = 15_000): Promise<Published> {
    return this.until(`diagnostics for ${uri}`, () => this.published.find((p) => p.uri === uri && pred(p)), ms);
  }

  /** The newest diagnostics published for `uri`. */
  latest(uri: string): Published | undefined {
    return [...this.published].reverse().find((p) => p.uri === uri);
  }

  stop(): Promise<void> {
    return stopServer(this.conn, this.proc);
  }
}

/** Ends a language server as an editor does (`shutdown`, `exit`), then makes sure its process is gone. */
export async function stopServer(conn: MessageConnection, proc: ChildProcess): Promise<void> {
  try {
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } catch {
    /* already gone */
  }
  conn.dispose();
  proc.kill();
}
