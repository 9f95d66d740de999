// The extension's first stage (dist/extension.js): small enough to cost nothing in a window that
// has YAML or Python but no AgentJet. It loads the full extension (dist/full.js) only once AgentJet
// shows: an AgentJet config or Python workflow opened, one of our editors shown, one of our
// commands run, a launch or task of our types, or the folder probe (./probe.ts) finding AgentJet's
// names or a config. Until then it holds stand-ins for what VS Code may ask of us (./proxies.ts).
import * as vscode from 'vscode';
import { looksLikeConfig } from '../../core/agentjet/rootLine';
import type { AgentJetApi } from '../extension';
import type { GateHandoff, LoadReason } from './contract';
import { SharedProbe, type ProbeResult } from './probe';
import { Proxies, DEBUG_TYPE } from './proxies';
import { FirstStageLog } from './log';

interface FullModule {
  activate(context: vscode.ExtensionContext, handoff: GateHandoff & { log: vscode.LogOutputChannel }): AgentJetApi;
  deactivate(): Promise<void>;
}

/** What the first stage tells tests and the log: whether, when and why the full extension loaded. */
export interface GateState {
  readonly activationMs: number;
  readonly loaded: boolean;
  readonly reason: LoadReason | 'api' | undefined;
  /** Settles once the full extension is loaded (never, in a folder without AgentJet). */
  readonly whenLoaded: Promise<AgentJetApi>;
  probe(): Promise<ProbeResult>;
}

/** `extension.exports`: the full extension's API (reading it loads the full extension) and the first stage's state. */
export type AgentJetExports = AgentJetApi & { readonly gate: GateState };

const PY_WORKFLOW = /^\s*(?:from|import)\s+(?:ajet|astuner|astune)\b/m;
/** Lines of an open document the cheap tests look at. */
const HEAD_LINES = 400;

function head(doc: vscode.TextDocument): string {
  return doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, HEAD_LINES), 0));
}

/** Why an open document means AgentJet, if it does. */
function documentReason(doc: vscode.TextDocument): LoadReason | undefined {
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return undefined;
  if (doc.languageId === 'yaml') return looksLikeConfig(head(doc)) ? 'config-open' : undefined;
  if (doc.languageId === 'agentjet-log') return 'agentjet-file-open';
  if (doc.languageId === 'python') return PY_WORKFLOW.test(head(doc)) ? 'python-workflow' : undefined;
  return undefined;
}

function usesOurTypes(): boolean {
  const scopes: (vscode.Uri | undefined)[] = [undefined, ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri)];
  const typed = (list: unknown, types: readonly string[]) =>
    Array.isArray(list) && list.some((c) => !!c && typeof c === 'object' && types.includes(String((c as { type?: unknown }).type)));
  return scopes.some(
    (s) =>
      typed(vscode.workspace.getConfiguration('launch', s).get('configurations'), [DEBUG_TYPE]) ||
      typed(vscode.workspace.getConfiguration('tasks', s).get('tasks'), ['agentjet', 'agentjet-swarm']),
  );
}

function ourTab(tab: vscode.Tab): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputCustom) return input.viewType.startsWith('agentjet.');
  if (input instanceof vscode.TabInputWebview) return /(^|-)agentjet\./.test(input.viewType);
  return false;
}

let full: FullModule | undefined;

export function activate(context: vscode.ExtensionContext): AgentJetExports {
  const started = performance.now();
  const log = new FirstStageLog(context.logUri.scheme === 'file' ? context.logUri.fsPath : undefined);
  const probe = new SharedProbe();
  let api: AgentJetApi | undefined;
  let reason: LoadReason | 'api' | undefined;
  let settle: (a: AgentJetApi) => void = () => undefined;
  const whenLoaded = new Promise<AgentJetApi>((resolve) => (settle = resolve));
  const watch: vscode.Disposable[] = [];

  const isAgentJetFolder = async () => {
    const r = await probe.result();
    return !!(r.marker || r.config);
  };
  const offersMcp = () => vscode.workspace.getConfiguration('agentjet').get<boolean>('agents.offerMcpServer') === true;
  let loading = false;
  const load = (why: LoadReason | 'api'): AgentJetApi | undefined => {
    // Re-entered while the full extension activates (a provider it binds is asked at once): it is loading.
    if (api || loading) return api;
    loading = true;
    reason = why;
    for (const d of watch.splice(0)) d.dispose();
    proxies.yield();
    const t = performance.now();
    // The bundle beside this one; required only now, so a window without AgentJet never parses it.
    // The output channel is made only now (it costs the host several MB).
    const channel = vscode.window.createOutputChannel('AgentJet', { log: true });
    context.subscriptions.push(channel);
    log.useChannel(channel);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle beside this one, by path, at run time
      full = require(vscode.Uri.joinPath(context.extensionUri, 'dist', 'full.js').fsPath) as FullModule;
      api = full.activate(context, { log: channel, probe: () => probe.result(), forgetProbe: () => probe.forget(), ...proxies.binder() });
    } catch (err) {
      // Not tried again (half of it may be registered): the log says why.
      channel.error(`AgentJet failed to load: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return undefined;
    }
    log.info(`AgentJet loaded (${why}) in ${(performance.now() - t).toFixed(1)} ms`);
    settle(api);
    return api;
  };
  const ensure = (): AgentJetApi => {
    const a = load('api');
    if (!a) throw new Error('the AgentJet extension is still loading');
    return a;
  };
  const proxies = new Proxies(context.extension.packageJSON as object, load, isAgentJetFolder, offersMcp);
  context.subscriptions.push(proxies, { dispose: () => watch.splice(0).forEach((d) => d.dispose()) });

  const checkDocument = (doc: vscode.TextDocument | undefined) => {
    const why = doc && documentReason(doc);
    if (why) load(why);
  };
  const checkTabs = () => {
    if (vscode.window.tabGroups.all.some((g) => g.tabs.some(ourTab))) load('editor');
  };
  const runProbe = () =>
    void probe.result().then(
      (r) => {
        log.info(
          `workspace probe: ${r.files} YAML files found, ${r.heads} heads read` +
            (r.deepFiles ? `, second look ${r.deepFiles} more found, ${r.deepHeads} heads read` : '') +
            ` in ${r.ms.toFixed(0)} ms, ` +
            (r.config ? `config found: ${r.config.fsPath}` : r.marker ? `AgentJet folder: ${r.marker.fsPath}` : 'no AgentJet config'),
        );
        if ((r.marker || r.config) && !api) load('folder-probe');
      },
      (err: unknown) => log.warn(`workspace probe failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  let reprobe: ReturnType<typeof setTimeout> | undefined;
  watch.push(
    vscode.workspace.onDidOpenTextDocument(checkDocument),
    vscode.window.onDidChangeActiveTextEditor((e) => checkDocument(e?.document)),
    vscode.window.tabGroups.onDidChangeTabs(checkTabs),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if ((e.affectsConfiguration('launch') || e.affectsConfiguration('tasks')) && usesOurTypes()) load('launch-or-task');
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      probe.forget();
      runProbe();
    }),
    // YAML created through VS Code (the explorer, a workspace edit, an extension): probe again once the
    // burst settles. No file watcher here (one costs the host several MB): a config written by another
    // program is found at the next window or when opened.
    vscode.workspace.onDidCreateFiles((e) => {
      if (!e.files.some((f) => /\.ya?ml$/i.test(f.path))) return;
      clearTimeout(reprobe);
      reprobe = setTimeout(() => {
        probe.forget();
        runProbe();
      }, 1000);
    }),
    { dispose: () => clearTimeout(reprobe) },
  );

  // What is known without reading anything: open documents, tabs, launch and task settings.
  for (const doc of vscode.workspace.textDocuments) checkDocument(doc);
  if (!api) checkTabs();
  if (!api && usesOurTypes()) load('launch-or-task');
  const activationMs = performance.now() - started;
  log.info(`AgentJet first stage activated in ${activationMs.toFixed(1)} ms${api ? `, loaded (${reason})` : ''}`);
  // The folder probe runs after activation, through VS Code's file search.
  if (!api) setTimeout(runProbe, 0);

  const gate: GateState = {
    activationMs,
    get loaded() {
      return api !== undefined;
    },
    get reason() {
      return reason;
    },
    whenLoaded,
    probe: () => probe.result(),
  };
  return {
    gate,
    get activatedAt() {
      return ensure().activatedAt;
    },
    get activationMs() {
      return ensure().activationMs;
    },
    get services() {
      return ensure().services;
    },
    get testing() {
      return ensure().testing;
    },
  };
}

export async function deactivate(): Promise<void> {
  await full?.deactivate();
}
