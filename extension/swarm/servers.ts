// The swarm servers the editor watches: from `agentjet.swarm.servers`, from `SwarmClient("…")`
// literals in the workspace's Python files, and local servers this editor started. Each has a
// SwarmWatcher that polls only while someone looks (the view or an overwatch panel is visible).
import * as vscode from 'vscode';
import { normalizeSwarmUrl } from '../../core/swarm/api';
import { findSwarmClientCalls } from '../../core/swarm/source';
import { SwarmWatcher } from '../../core/swarm/watcher';
import type { SwarmServerModel } from '../../core/swarm/model';
import { swarmServers } from '../settings';

export type ServerOrigin = 'setting' | 'workspace' | 'local' | 'panel';

export interface WatchedServer {
  url: string;
  origins: Set<ServerOrigin>;
  watcher: SwarmWatcher;
  /** Where `SwarmClient("…")` names it. */
  clients: vscode.Location[];
  /** The task this editor started it with. */
  task?: vscode.TaskExecution;
}

export class SwarmServers implements vscode.Disposable {
  private readonly servers = new Map<string, WatchedServer>();
  private readonly changed = new vscode.EventEmitter<SwarmServerModel | undefined>();
  readonly onDidChange = this.changed.event;
  /** Watchers poll while any of these is true. */
  private readonly lookers = new Set<string>();
  private scanned = false;
  private scanning?: Promise<void>;

  list(): WatchedServer[] {
    return [...this.servers.values()];
  }

  get(url: string): WatchedServer | undefined {
    try {
      return this.servers.get(normalizeSwarmUrl(url));
    } catch {
      return undefined;
    }
  }

  /** Adds (or finds) a server; returns it. */
  add(url: string, origin: ServerOrigin): WatchedServer {
    const u = normalizeSwarmUrl(url);
    let s = this.servers.get(u);
    if (!s) {
      const watcher = new SwarmWatcher(u, { onChange: (m) => this.changed.fire(m) });
      s = { url: u, origins: new Set(), watcher, clients: [] };
      this.servers.set(u, s);
      if (this.lookers.size) watcher.start();
      this.changed.fire(undefined);
    }
    s.origins.add(origin);
    return s;
  }

  private removeOrigin(origin: ServerOrigin, keep: Set<string>): void {
    for (const [u, s] of this.servers) {
      if (!s.origins.has(origin) || keep.has(u)) continue;
      s.origins.delete(origin);
      if (s.origins.size === 0) {
        s.watcher.stop();
        this.servers.delete(u);
        this.changed.fire(undefined);
      }
    }
  }

  /** Reads the setting again. */
  syncSetting(): void {
    const keep = new Set<string>();
    for (const raw of swarmServers()) {
      try {
        keep.add(this.add(raw, 'setting').url);
      } catch {
        /* not a URL: the setting's schema says so */
      }
    }
    this.removeOrigin('setting', keep);
  }

  /** Local `ajet-swarm start` processes found on this machine (by port); those gone are dropped. */
  syncLocal(ports: readonly number[]): void {
    const keep = new Set<string>();
    for (const port of ports) keep.add(this.add(`http://localhost:${port}`, 'local').url);
    // Servers this editor started stay while their task runs.
    for (const s of this.servers.values()) if (s.task) keep.add(s.url);
    this.removeOrigin('local', keep);
  }

  /** Scans the workspace's Python files for `SwarmClient("http://…")` (once, bounded; again on demand). */
  scanWorkspace(force = false): Promise<void> {
    if (this.scanned && !force) return Promise.resolve();
    this.scanning ??= (async () => {
      const files = await vscode.workspace.findFiles(
        '**/*.py',
        '{**/node_modules/**,**/.venv/**,**/venv/**,**/site-packages/**,**/.git/**}',
        2000,
      );
      const found = new Map<string, vscode.Location[]>();
      for (const f of files) {
        let text: string;
        try {
          const bytes = await vscode.workspace.fs.readFile(f);
          if (bytes.byteLength > 2_000_000) continue;
          text = new TextDecoder().decode(bytes);
        } catch {
          continue;
        }
        if (!text.includes('SwarmClient')) continue;
        for (const c of findSwarmClientCalls(text)) {
          if (!c.url) continue;
          const l = found.get(c.url) ?? [];
          l.push(new vscode.Location(f, new vscode.Position(c.line, c.column)));
          found.set(c.url, l);
        }
      }
      const keep = new Set<string>();
      for (const [u, locs] of found) {
        const s = this.add(u, 'workspace');
        s.clients = locs;
        keep.add(s.url);
      }
      this.removeOrigin('workspace', keep);
      this.scanned = true;
    })().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  /** Someone (the view, a panel) starts or stops looking; watchers run while anyone looks. */
  look(who: string, looking: boolean): void {
    const before = this.lookers.size > 0;
    if (looking) this.lookers.add(who);
    else this.lookers.delete(who);
    const now = this.lookers.size > 0;
    if (before === now) return;
    for (const s of this.servers.values()) {
      if (now) s.watcher.start();
      else s.watcher.stop();
    }
  }

  /** Requests per watcher since start (for the polling-cost benchmark). */
  requests(): number {
    return this.list().reduce((a, s) => a + s.watcher.api.requests, 0);
  }

  dispose(): void {
    for (const s of this.servers.values()) s.watcher.stop();
    this.servers.clear();
    this.changed.dispose();
  }
}
