// One overwatch panel per swarm server. The page gets a snapshot after every change the watcher
// sees, plus the verbose log and the latest LLM call (asked only while the panel is visible).
import * as vscode from 'vscode';
import {
  checkOverwatchState,
  checkOverwatchToHost,
  llmCallApi,
  OVERWATCH_VIEW_TYPE,
  type HostToOverwatch,
  type OverwatchData,
  type OverwatchState,
} from '../../core/protocol/swarm';
import { episodesByClient, formatDuration, progress, runningEpisodes, taskRows } from '../../core/swarm/model';
import type { LlmCall, PoolInfo, VerboseLogEntry } from '../../core/swarm/api';
import { isEditorClient, resolveEditorClients, serverKey } from '../../core/swarm/editorClient';
import type { SwarmSessionsService } from '../services';
import { webviewHtml, webviewOptions } from '../webview';
import type { SwarmServers, WatchedServer } from './servers';
import { progressLabel } from './tree';

export interface OverwatchActions {
  stopEngine(s: WatchedServer): Promise<void>;
  openExperiment(s: WatchedServer): Promise<void>;
  copyUrl(s: WatchedServer): Promise<void>;
}

const MAX_TEXT = 64_000;
function pretty(x: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(x, null, 2) ?? String(x);
  } catch {
    s = String(x);
  }
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}\n…` : s;
}

class Overwatch implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private logs: VerboseLogEntry[] = [];
  private llm?: LlmCall;
  private extrasBusy = false;
  private timer?: ReturnType<typeof setInterval>;
  private ready = false;
  /** Client uuids resolved per editor session: kept while it runs (a weight sync empties the pool). */
  private readonly resolved = new Map<string, { ids: Set<string>; episodes: Set<string> }>();

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly server: WatchedServer,
    private readonly servers: SwarmServers,
    private readonly actions: OverwatchActions,
    extensionUri: vscode.Uri,
    onDispose: () => void,
    private readonly sessions: SwarmSessionsService | undefined,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, 'swarm', {
      title: 'Swarm Overwatch',
      styles: ['shared/panel.css', 'swarm/swarm.css'],
    });
    panel.title = vscode.l10n.t('Swarm: {0}', server.url.replace(/^https?:\/\//, ''));
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icons', 'agentjet.svg');
    const key = `overwatch:${server.url}`;
    this.servers.look(key, panel.visible);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => {
        this.servers.look(key, panel.visible);
        if (panel.visible) this.post();
      }),
      servers.onDidChange((m) => {
        if (!m || m.url === server.url) this.post();
      }),
      ...(sessions
        ? [
            sessions.onDidChange((url) => {
              if (serverKey(url) === serverKey(server.url)) this.post();
            }),
          ]
        : []),
      panel.onDidDispose(() => {
        this.servers.look(key, false);
        this.dispose();
        onDispose();
      }),
    );
    this.timer = setInterval(() => void this.fetchExtras(), 3000);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const m = checkOverwatchToHost(raw);
    if (!m) return;
    if (m.type === 'ready') {
      this.ready = true;
      this.post();
      void this.fetchExtras();
    } else if (m.type === 'refresh') {
      this.server.watcher.refresh();
      void this.fetchExtras();
    } else if (m.type === 'stopEngine') await this.actions.stopEngine(this.server);
    else if (m.type === 'openExperiment') await this.actions.openExperiment(this.server);
    else if (m.type === 'copyUrl') await this.actions.copyUrl(this.server);
  }

  private async fetchExtras(): Promise<void> {
    if (!this.panel.visible || this.extrasBusy || this.server.watcher.model.reachability !== 'ok') return;
    this.extrasBusy = true;
    try {
      const api = this.server.watcher.api;
      const [logs, llm] = await Promise.allSettled([api.verboseLogs(), api.latestLlmCall()]);
      if (logs.status === 'fulfilled') this.logs = logs.value.slice(-50);
      if (llm.status === 'fulfilled') this.llm = llm.value;
      this.post();
    } finally {
      this.extrasBusy = false;
    }
  }

  /** The editor's swarm-client sessions on this server, the client uuids and episode uuids known of each. */
  private editorClients(pool: PoolInfo | undefined): {
    info: OverwatchData['editorClients'];
    ids: string[];
    prefixes: string[];
    known: Map<string, string[]>;
  } {
    const list = this.sessions?.forServer(this.server.url) ?? [];
    for (const k of [...this.resolved.keys()]) if (!list.some((s) => s.sessionId === k)) this.resolved.delete(k);
    const ids: string[] = [];
    const prefixes: string[] = [];
    const known = new Map<string, string[]>();
    const running = pool ? runningEpisodes(pool) : [];
    const info = list.map((s) => {
      const mem = this.resolved.get(s.sessionId) ?? { ids: new Set<string>(), episodes: new Set<string>() };
      this.resolved.set(s.sessionId, mem);
      if (pool) for (const c of resolveEditorClients(pool, s)) mem.ids.add(c);
      for (const e of s.episodes) mem.episodes.add(e);
      // Episodes seen running under its client: their rewards are its own once the trainer scores them.
      const mine = running.filter((r) => isEditorClient(r.client, [...mem.ids], s.prefixes));
      for (const r of mine) mem.episodes.add(r.episode);
      if (mem.episodes.size > 2000) mem.episodes = new Set([...mem.episodes].slice(-1000));
      ids.push(...mem.ids);
      prefixes.push(...s.prefixes);
      // One client per session in practice; several SwarmClients in one script share its episodes.
      for (const c of mem.ids) known.set(c, [...(known.get(c) ?? []), ...mem.episodes]);
      return { session: s.sessionName, clients: [...mem.ids], runningEpisodes: mine.length };
    });
    return { info, ids, prefixes, known };
  }

  data(): OverwatchData {
    const m = this.server.watcher.model;
    const st = m.status;
    const pool = st?.pool;
    const ed = this.editorClients(pool);
    const mine = (c: string) => isEditorClient(c, ed.ids, ed.prefixes);
    return {
      url: this.server.url,
      reachability: m.reachability,
      error: m.error,
      engineState: st?.engine_status,
      stateFor: m.stateSince !== undefined ? vscode.l10n.t('for {0}', formatDuration(Date.now() - m.stateSince)) : undefined,
      detail: st?.engine_status_detail ?? undefined,
      globalStep: st?.global_step ?? undefined,
      model: st?.training_model_path ?? undefined,
      experimentDir: st?.server_experiment_dir ?? undefined,
      method: pool?.sample_collection_method,
      local: !!this.server.task,
      progress: pool ? progress(pool).map((p) => ({ label: progressLabel(p.label), current: p.current, target: p.target })) : [],
      activeClients: pool
        ? pool.swarm_client_instruction.active_clients.map((c) => ({
            id: c.client_uuid,
            agreed: c.allowed_sync_weight,
            mine: mine(c.client_uuid),
          }))
        : [],
      tasks: pool
        ? taskRows(pool)
            .slice(0, 200)
            .map((r) => ({ ...r, mine: r.clients.some(mine) }))
        : [],
      byClient: pool ? episodesByClient(pool, ed.known).map((c) => ({ ...c, mine: mine(c.client) })) : [],
      // The editor's episodes first, so a long list does not hide them.
      running: pool
        ? runningEpisodes(pool)
            .map((r) => ({ ...r, mine: mine(r.client) }))
            .sort((a, b) => Number(b.mine) - Number(a.mine))
            .slice(0, 200)
        : [],
      editorClients: ed.info,
      rewards: m.rewards.points(),
      logs: this.logs.map((e) => ({
        time: new Date(e.timestamp * 1000).toLocaleTimeString(),
        tag: e.tag,
        message: e.message.slice(0, 2000),
      })),
      llmCall: this.llm ? { input: pretty(this.llm.input), output: pretty(this.llm.output), api: llmCallApi(this.llm.format) } : undefined,
    };
  }

  post(): void {
    if (!this.ready || !this.panel.visible) return;
    const msg: HostToOverwatch = { type: 'data', data: this.data() };
    void this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export class OverwatchPanels implements vscode.Disposable, vscode.WebviewPanelSerializer<OverwatchState> {
  private readonly panels = new Map<string, Overwatch>();

  constructor(
    private readonly servers: SwarmServers,
    private readonly actions: OverwatchActions,
    private readonly extensionUri: vscode.Uri,
    /** The debug feature's swarm-client sessions (absent when that feature is not there). */
    private readonly sessions: () => SwarmSessionsService | undefined = () => undefined,
  ) {}

  open(s: WatchedServer): Overwatch {
    const existing = this.panels.get(s.url);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(OVERWATCH_VIEW_TYPE, vscode.l10n.t('Swarm Overwatch'), vscode.ViewColumn.Active, {
      ...webviewOptions(this.extensionUri),
      retainContextWhenHidden: false,
    });
    return this.attach(panel, s);
  }

  private attach(panel: vscode.WebviewPanel, s: WatchedServer): Overwatch {
    const o = new Overwatch(panel, s, this.servers, this.actions, this.extensionUri, () => this.panels.delete(s.url), this.sessions());
    this.panels.set(s.url, o);
    return o;
  }

  /** After a reload: the panel's own saved URL (validated) names the server again. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, raw: unknown): Promise<void> {
    const st = checkOverwatchState(raw);
    let s: WatchedServer | undefined;
    try {
      s = st ? (this.servers.get(st.url) ?? this.servers.add(st.url, 'panel')) : undefined;
    } catch {
      s = undefined;
    }
    if (!s) {
      panel.dispose();
      return;
    }
    this.attach(panel, s);
  }

  /** What the open panels show (tests). */
  snapshot(url: string): OverwatchData | undefined {
    return this.panels.get(url)?.data();
  }

  refreshAll(): void {
    for (const p of this.panels.values()) p.post();
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.panels.clear();
  }
}
