// The swarm clients the editor runs (`agentjet` launches with `swarmClient`) and what each shows of
// its identity while it runs: the uuid prefix in its SwarmClient poll thread's name (asked of
// debugpy with `threads` when a thread starts, and read from VS Code's own `threads` answers) and
// the episodes it logs as claimed (its output). AgentJet offers no way to choose a client's uuid,
// so these clues are all there is (core/swarm/editorClient.ts). Provided to the swarm feature as
// the `swarmSessions` service; a session's entry goes when the session ends.
import * as vscode from 'vscode';
import type { Services, SwarmClientSession, SwarmSessionsService } from '../services';
import { DEBUG_TYPE } from './configs';
import { isSwarmClientLaunch, planSwarmClient, type SwarmClientAttributes } from '../../core/launch/swarmClient';
import { claimedEpisodesFromOutput, clientPrefixesFromThreads, serverKey } from '../../core/swarm/editorClient';

interface Entry {
  sessionId: string;
  sessionName: string;
  url: string;
  prefixes: Set<string>;
  episodes: string[];
  session: vscode.DebugSession;
  /** Output not yet ended by a newline. */
  tail: string;
  asking: boolean;
  askAgain: boolean;
}

const MAX_EPISODES = 500;

export class SwarmSessions implements SwarmSessionsService, vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  /** Sessions planned once and found without a server URL: not planned again on every message. */
  private readonly skipped = new Set<string>();
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly services: Services) {
    this.disposables.push(
      vscode.debug.onDidStartDebugSession((s) => this.onStart(s)),
      vscode.debug.onDidTerminateDebugSession((s) => this.onEnd(s)),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (s) => {
          if (!isSwarmClientLaunch(s.configuration)) return undefined;
          return { onDidSendMessage: (m: unknown) => this.onMessage(s, m) };
        },
      }),
    );
  }

  forServer(url: string): SwarmClientSession[] {
    const key = serverKey(url);
    return [...this.entries.values()]
      .filter((e) => serverKey(e.url) === key)
      .map((e) => ({
        sessionId: e.sessionId,
        sessionName: e.sessionName,
        url: e.url,
        prefixes: [...e.prefixes],
        episodes: [...e.episodes],
      }));
  }

  private entry(s: vscode.DebugSession): Entry | undefined {
    const had = this.entries.get(s.id);
    if (had || this.skipped.has(s.id) || !isSwarmClientLaunch(s.configuration)) return had;
    const planned = planSwarmClient(s.configuration as vscode.DebugConfiguration & SwarmClientAttributes);
    if (!planned.ok || !planned.launch.url) {
      this.skipped.add(s.id);
      return undefined;
    }
    const e: Entry = {
      sessionId: s.id,
      sessionName: s.name,
      url: planned.launch.url,
      prefixes: new Set(),
      episodes: [],
      session: s,
      tail: '',
      asking: false,
      askAgain: false,
    };
    this.entries.set(s.id, e);
    this.services.log.info(`swarm: ${s.name} is a swarm client of ${e.url}; its episodes are marked in the overwatch`);
    return e;
  }

  private onStart(s: vscode.DebugSession): void {
    const e = this.entry(s);
    if (e) this.changed.fire(e.url);
  }

  private onEnd(s: vscode.DebugSession): void {
    this.skipped.delete(s.id);
    const e = this.entries.get(s.id);
    if (!e) return;
    this.entries.delete(s.id);
    this.changed.fire(e.url);
  }

  private onMessage(s: vscode.DebugSession, raw: unknown): void {
    if (!raw || typeof raw !== 'object') return;
    const m = raw as { type?: unknown; event?: unknown; command?: unknown; body?: unknown };
    if (m.type === 'event' && m.event === 'output') {
      const out = (m.body as { output?: unknown } | undefined)?.output;
      if (typeof out === 'string') this.onOutput(s, out);
    } else if (m.type === 'event' && m.event === 'thread') {
      if ((m.body as { reason?: unknown } | undefined)?.reason === 'started') void this.askThreads(s);
    } else if (m.type === 'response' && m.command === 'threads') {
      this.onThreads(s, (m.body as { threads?: unknown } | undefined)?.threads);
    }
  }

  private onOutput(s: vscode.DebugSession, out: string): void {
    const e = this.entry(s);
    if (!e) return;
    const text = e.tail + out;
    const cut = text.lastIndexOf('\n');
    e.tail = (cut < 0 ? text : text.slice(cut + 1)).slice(-2000);
    const found = claimedEpisodesFromOutput(cut < 0 ? '' : text.slice(0, cut));
    const fresh = found.filter((x) => !e.episodes.includes(x));
    if (!fresh.length) return;
    e.episodes.push(...fresh);
    if (e.episodes.length > MAX_EPISODES) e.episodes.splice(0, e.episodes.length - MAX_EPISODES);
    this.changed.fire(e.url);
  }

  private onThreads(s: vscode.DebugSession, threads: unknown): void {
    const e = this.entry(s);
    if (!e || !Array.isArray(threads)) return;
    const names = threads.map((t: unknown) => (t && typeof t === 'object' ? (t as { name?: unknown }).name : undefined));
    const prefixes = clientPrefixesFromThreads(names.filter((n): n is string => typeof n === 'string'));
    const fresh = prefixes.filter((p) => !e.prefixes.has(p));
    if (!fresh.length) return;
    for (const p of fresh) e.prefixes.add(p);
    this.changed.fire(e.url);
  }

  /** Asks debugpy for the thread names (one request at a time; a start during one asks once more). */
  private async askThreads(s: vscode.DebugSession): Promise<void> {
    const e = this.entry(s);
    if (!e) return;
    if (e.asking) {
      e.askAgain = true;
      return;
    }
    e.asking = true;
    try {
      do {
        e.askAgain = false;
        const r: unknown = await s.customRequest('threads');
        this.onThreads(s, (r as { threads?: unknown } | undefined)?.threads);
      } while (e.askAgain && this.entries.has(s.id));
    } catch {
      // A run without the debugger has no threads to ask for: the output is the clue then.
    } finally {
      e.asking = false;
    }
  }

  dispose(): void {
    this.entries.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
