// The AgentJet config language server (stdio or IPC). Only documents whose root mapping holds
// ajet/astuner/astune are handled; every other YAML file gets nothing from us. This file owns the
// documents, the folders' settings and validation; the language features are in features.ts.
import {
  TextDocuments,
  TextDocumentSyncKind,
  DiagnosticSeverity,
  DiagnosticTag,
  CodeActionKind,
  FileChangeType,
  MessageType,
  ShowMessageNotification,
  type Diagnostic,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { version as extensionVersion } from '../package.json';
import { ConfigService } from '../core/config/service';
import type { ConfigDiagnostic } from '../core/config/diagnostics';
import type { JudgingFacts } from '../core/config/releases';
import { isInside } from '../core/fs/inside';
import { createdFolderIn } from '../core/config/workspaceScan';
import {
  CREATED_PATHS_NOTIFICATION,
  LIST_YAML_REQUEST,
  readCreatedPaths,
  readInitialTrust,
  readTrustGrant,
  WORKSPACE_TRUST_NOTIFICATION,
  type ConfigServerInitOptions,
  type ConfigProblemsScope,
  type ListYamlParams,
  type ListYamlResult,
} from '../core/protocol/config';
import { WorkspaceTrust } from '../core/trust/policy';
import { FolderSettings } from './folders';
import { StartupCatchUp, WorkspaceChecker, type YamlWalkCap } from './workspaceCheck';
import { CreatedScans } from './createdScans';
import { registerLanguageFeatures } from './features';
import { serverConnection } from './stdio';
import { filePath } from './paths';
import { localeFromInitialize, setLocale, t } from '../core/l10n';

const connection = serverConnection();
const documents = new TextDocuments(TextDocument);
// Restricted Mode until the client says otherwise at initialize (nothing runs before that anyway).
let trust = new WorkspaceTrust(false);
let service = new ConfigService({ trust });
let folders = new FolderSettings(connection, service, { pythonPath: '', problems: 'openFiles' }, trust);
let roots: string[] = [];
const published = new Set<string>();
/** Each document's pending validation: cancels it. */
const timers = new Map<string, () => void>();

const isOpenPath = (path: string) => !!documents.get(URI.file(path).toString());

/** The client lists folders' YAML files (ConfigServerInitOptions.listsYaml). */
let clientListsYaml = false;
const checker = new WorkspaceChecker({
  isOpen: isOpenPath,
  async check(path, text) {
    await folders.ensureInterpreter(service.folderOf(path));
    if (isOpenPath(path)) return;
    const uri = URI.file(path).toString();
    const key = `workspace:${uri}`;
    // In slices: a big file on disk never holds up the editor's requests.
    const r = await service.diagnoseAsync(key, 0, text, path, () => isOpenPath(path));
    service.forget(key);
    if (!r) return;
    void connection.sendDiagnostics({ uri, diagnostics: r.ours ? r.diagnostics.map((d) => toLsp(d, r.facts)) : [] });
  },
  clear(path) {
    void connection.sendDiagnostics({ uri: URI.file(path).toString(), diagnostics: [] });
  },
  folders: () => roots,
  maxFiles: async (root) => (await folders.get(service.folderOf(root) ?? root)).workspaceMaxFiles,
  // VS Code's file search with the user's excludes, when the client offers it (the extension does).
  listYaml: (root, max) =>
    clientListsYaml
      ? connection.sendRequest<ListYamlResult>(LIST_YAML_REQUEST, { root, max } satisfies ListYamlParams)
      : Promise.resolve(undefined),
  capped: (root, cap) => capNotice(root, cap),
});

/** Workspace folders already told about (with the cap they were told of): once per folder and cap, not per pass or created folder. */
const toldCapped = new Map<string, number>();
function capNotice(root: string, c: YamlWalkCap): void {
  const folder = service.folderOf(root) ?? root;
  if (toldCapped.get(folder) === c.cap) return;
  toldCapped.set(folder, c.cap);
  const n = (x: number) => x.toLocaleString('en-US');
  const text = c.exact
    ? t(
        'Problems lists configs from the first {0} YAML files of {1} only: it holds {2}. To check them all, raise the setting agentjet.config.workspaceMaxFiles (now {0}).',
        n(c.cap),
        root,
        n(c.total),
      )
    : t(
        'Problems lists configs from the first {0} YAML files of {1} only: it holds more than {2}. To check more, raise the setting agentjet.config.workspaceMaxFiles (now {0}).',
        n(c.cap),
        root,
        n(c.total),
      );
  connection.console.warn(`agentjet: ${text}`);
  // The notification, not window.showWarningMessage: that is a request whose refusal (a client
  // that does not know it) rejects, and an unhandled rejection would end the server.
  void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: `AgentJet: ${text}` });
}

/** One background pass over the folders whose `agentjet.config.problems` is `workspace`. */
async function workspacePass(): Promise<void> {
  checker.cancel();
  const wanted = await wantedRoots();
  if (!wanted.length) {
    checker.clearAll();
    return;
  }
  for (const p of [...checker.published]) if (!wanted.some((r) => isInside(r, p))) checker.forget(p);
  const n = await checker.run(wanted);
  connection.console.info(`agentjet: ${n === 1 ? t('checked 1 config in the workspace') : t('checked {0} configs in the workspace', n)}`);
}

async function wantedRoots(): Promise<string[]> {
  const wanted: string[] = [];
  for (const r of roots) if ((await folders.get(r)).problems === 'workspace') wanted.push(r);
  return wanted;
}

async function catchUpOnce(): Promise<void> {
  const wanted = await wantedRoots();
  if (!wanted.length) return;
  const n = await checker.catchUp(wanted);
  if (n)
    connection.console.info(`agentjet: ${n === 1 ? t('checked 1 config in the workspace') : t('checked {0} configs in the workspace', n)}`);
}

const catchUp = new StartupCatchUp(catchUpOnce);

let recheckTimer: ReturnType<typeof setTimeout> | undefined;
/** An interpreter answered or settings changed: check open documents and the workspace again. */
function recheckAll(): void {
  if (recheckTimer) clearTimeout(recheckTimer);
  recheckTimer = setTimeout(() => {
    recheckTimer = undefined;
    for (const d of documents.all()) schedule(d, 0);
    void workspacePass();
  }, 200);
}

connection.onInitialize((params): InitializeResult => {
  setLocale(localeFromInitialize(params));
  const opts = (params.initializationOptions ?? {}) as Partial<ConfigServerInitOptions> & { problems?: ConfigProblemsScope };
  roots = (params.workspaceFolders ?? []).map((f) => filePath(f.uri)).filter((x): x is string => !!x);
  if (!roots.length && params.rootUri) {
    const r = filePath(params.rootUri);
    if (r) roots.push(r);
  }
  clientListsYaml = opts.listsYaml === true;
  const canAsk = !!params.capabilities.workspace?.configuration;
  trust = new WorkspaceTrust(readInitialTrust(params.initializationOptions));
  if (!trust.trusted)
    connection.console.info(`agentjet: ${t('Restricted Mode: the workspace is read as text; nothing of it runs until you trust it.')}`);
  // Clients that cannot answer workspace/configuration give one interpreter for every folder.
  service = new ConfigService({
    pythonPath: canAsk ? undefined : opts.pythonPath || undefined,
    roots,
    reportSyntaxErrors: opts.reportSyntaxErrors !== false,
    onInterpreterAnswer: recheckAll,
    trust,
    ...(opts.factsCacheDir !== undefined ? { agentjet: { cacheDir: opts.factsCacheDir } } : {}),
  });
  folders = new FolderSettings(
    connection,
    service,
    {
      pythonPath: opts.pythonPath ?? '',
      problems: opts.problems === 'workspace' ? 'workspace' : 'openFiles',
    },
    trust,
  );
  folders.canAsk = canAsk;
  // On grant the folders' interpreters are chosen and asked, without a restart (ConfigService
  // primes what waited and re-checks; the cleared folder settings choose the interpreters afresh).
  trust.onGrant(() => {
    connection.console.info(`agentjet: ${t('The workspace is trusted now: installed packages are checked.')}`);
    folders.clear();
    recheckAll();
  });
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [':', ' ', '>', '.', '-'], resolveProvider: true },
      hoverProvider: true,
      definitionProvider: true,
      documentLinkProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'agentjet-config', version: extensionVersion },
  };
});

connection.onInitialized(() => {
  connection.workspace.onDidChangeWorkspaceFolders(() => {
    void connection.workspace.getWorkspaceFolders().then(
      (list) => {
        roots = (list ?? []).map((f) => filePath(f.uri)).filter((x): x is string => !!x);
        service.setRoots(roots);
        folders.clear();
        recheckAll();
      },
      () => undefined,
    );
  });
  void workspacePass().then(() => catchUp.start());
});

connection.onNotification(WORKSPACE_TRUST_NOTIFICATION, (params: unknown) => {
  if (readTrustGrant(params)) trust.grant();
});
connection.onShutdown(() => catchUp.stop());

/** Scans of created folders, one at a time; notices arriving meanwhile wait as one pending scan. */
const createdScans = new CreatedScans({
  async full(notices) {
    await catchUpOnce();
    connection.console.info(`agentjet: ${t('looked again for configs in the workspace folders ({0} notices of created files)', notices)}`);
  },
  async paths(paths) {
    const dirs: string[] = [];
    for (const p of paths) {
      const root = service.folderOf(p);
      if (!root || (await folders.get(root)).problems !== 'workspace') continue;
      // In the folder by path segments and by real path: `ws/../x` and a created link to `/` are not scanned.
      const dir = await createdFolderIn(p, root);
      if (dir) dirs.push(dir);
    }
    // A folder inside another one scanned now is walked with it.
    const outer = [...new Set(dirs)].filter((d, _, all) => !all.some((o) => o !== d && isInside(o, d)));
    if (outer.length) await checker.catchUp(outer);
  },
  failed: (err) => connection.console.warn(`agentjet: scanning created folders failed: ${String(err)}`),
});
connection.onNotification(CREATED_PATHS_NOTIFICATION, (params: unknown) => {
  const { paths, more } = readCreatedPaths(params);
  void createdScans.add(paths, !!more);
});

connection.onDidChangeConfiguration(() => {
  folders.clear();
  recheckAll();
});

connection.onDidChangeWatchedFiles((params) => {
  if (params.changes.length) catchUp.watcherDelivered();
  for (const c of params.changes) {
    const path = filePath(c.uri);
    // The user's own AgentJet changed (its defaults): read it again, then everything is checked again.
    if (path) service.agentjets.fileChanged(path);
    if (!path || !/\.ya?ml$/i.test(path) || isOpenPath(path)) continue;
    if (c.type === FileChangeType.Deleted) {
      checker.forget(path);
      continue;
    }
    const root = service.folderOf(path);
    if (!root) continue;
    void folders.get(root).then((s) => (s.problems === 'workspace' ? checker.checkFile(path) : false));
  }
});

const SEVERITY: Record<ConfigDiagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** The Problems entry's source names the AgentJet that judged the file. */
function sourceOf(facts: JudgingFacts | undefined): string {
  if (!facts) return 'agentjet';
  return `agentjet (${facts.label}${facts.provisional ? t('; still reading your AgentJet') : ''})`;
}

function toLsp(d: ConfigDiagnostic, facts?: JudgingFacts): Diagnostic {
  const out: Diagnostic = { range: d.range, severity: SEVERITY[d.severity], code: d.code, source: sourceOf(facts), message: d.message };
  out.data = { ours: true, ...(d.fixes?.length ? { fixes: d.fixes } : {}) };
  if (d.code === 'deprecated-key' || d.code === 'unread-key') out.tags = [DiagnosticTag.Deprecated];
  return out;
}

async function validate(doc: TextDocument): Promise<void> {
  const file = filePath(doc.uri);
  await folders.ensureInterpreter(service.folderOf(file));
  const cur = documents.get(doc.uri);
  if (!cur || cur.version !== doc.version) return; // edited or closed meanwhile: a newer check follows
  if (file) checker.published.delete(file); // the editor's text owns this file's problems now
  let result;
  try {
    // In slices, dropped as soon as a newer version of the document arrives: one big document never
    // blocks requests about another, and stale work does not run to the end.
    result = await service.diagnoseAsync(doc.uri, doc.version, doc.getText(), file, () => documents.get(doc.uri)?.version !== doc.version);
    if (!result) return;
  } catch (err) {
    connection.console.error(
      `agentjet: validation failed for ${doc.uri}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return;
  }
  if (!result.ours && !published.has(doc.uri)) return;
  if (result.ours) published.add(doc.uri);
  else published.delete(doc.uri);
  void connection.sendDiagnostics({
    uri: doc.uri,
    version: doc.version,
    diagnostics: result.diagnostics.map((d) => toLsp(d, result.facts)),
  });
}

function schedule(doc: TextDocument, delay: number): void {
  timers.get(doc.uri)?.();
  const run = () => {
    timers.delete(doc.uri);
    const cur = documents.get(doc.uri);
    if (cur) void validate(cur);
  };
  // No delay: after the messages already read (a timer of 0 waits a millisecond at least).
  if (delay <= 0) {
    const h = setImmediate(run);
    timers.set(doc.uri, () => clearImmediate(h));
  } else {
    const h = setTimeout(run, delay);
    timers.set(doc.uri, () => clearTimeout(h));
  }
}

// TextDocuments reports an open as a content change too: validate a fresh document at once and
// debounce only real edits.
documents.onDidChangeContent((e) => schedule(e.document, e.document.version <= 1 ? 0 : 120));
documents.onDidClose((e) => {
  service.forget(e.document.uri);
  timers.get(e.document.uri)?.();
  timers.delete(e.document.uri);
  if (!published.delete(e.document.uri)) return;
  // In workspace mode the file on disk keeps its problems; otherwise they go with the editor.
  const path = filePath(e.document.uri);
  const root = path ? service.folderOf(path) : undefined;
  const clear = () => void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  if (!path || !root) {
    clear();
    return;
  }
  void folders
    .get(root)
    .then((s) => (s.problems === 'workspace' ? checker.checkFile(path) : false))
    .then((kept) => {
      if (!kept) clear();
    }, clear);
});

registerLanguageFeatures(connection, documents, () => service);

documents.listen(connection);
connection.listen();
