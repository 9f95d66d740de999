import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  DidChangeConfigurationNotification,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import type { Services } from '../services';
import {
  CREATED_PATHS_NOTIFICATION,
  LIST_YAML_REQUEST,
  WORKSPACE_TRUST_NOTIFICATION,
  type ConfigServerInitOptions,
  type ConfigFolderSettings,
  type WorkspaceTrustParams,
  type ListYamlParams,
} from '../../core/protocol/config';
import { TRUST_COMMAND } from '../../core/trust/policy';
import { pythonExtensionEnv } from '../python';
import * as settings from '../settings';
// The same cheap test the server, the CodeLens and the launch pickers use.
import { looksLikeConfig } from '../../core/agentjet/dialect';
import { readHead } from '../../core/config/workspaceScan';
import { CreatedBatch } from '../../core/config/createdBatch';
import { workspaceProbe } from './probe';
import { listYaml } from './listYaml';

export function isConfigDocument(doc: vscode.TextDocument): boolean {
  if (doc.languageId !== 'yaml' || (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled')) return false;
  // Reading the in-memory text is cheap; cap it so a huge file does not stall the extension host.
  const text = doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 20000), 0));
  return looksLikeConfig(text);
}

/**
 * The `agentjet` settings of one folder as the server reads them: the typed settings plus the
 * Python extension's active interpreter for that folder (the server cannot ask that extension).
 * The server expands `${workspaceFolder}` with the resolver launching uses.
 */
async function folderSettings(scopeUri: string | undefined, services: Services): Promise<ConfigFolderSettings> {
  const uri = scopeUri ? vscode.Uri.parse(scopeUri) : undefined;
  const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : vscode.workspace.workspaceFolders?.[0];
  const out: ConfigFolderSettings = { pythonPath: settings.pythonPath(uri), problems: settings.configProblems(uri) };
  const maxFiles = settings.configWorkspaceMaxFiles(uri);
  if (maxFiles !== undefined) out.workspaceMaxFiles = maxFiles;
  // Restricted Mode: no interpreter is chosen for the folder (the server would not run it anyway).
  if (!out.pythonPath && services.trust.allows('resolve-interpreter')) {
    try {
      const env = await pythonExtensionEnv(folder);
      if (env) out.pythonExtensionInterpreter = env;
    } catch (err) {
      services.log.warn(`could not ask the Python extension for an interpreter: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return out;
}

/** Starts the config language server only once an AgentJet/ASTuner YAML document is open. */
export function registerConfigFeature(context: vscode.ExtensionContext, services: Services): void {
  let client: LanguageClient | undefined;
  let starting: Promise<void> | undefined;
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{yaml,yml}');
  context.subscriptions.push(watcher);

  const start = (): Promise<void> => {
    if (starting) return starting;
    const serverModule = vscode.Uri.joinPath(context.extensionUri, 'dist', 'server.js').fsPath;
    const serverOptions: ServerOptions = {
      run: { module: serverModule, transport: TransportKind.ipc },
      debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { language: 'yaml', scheme: 'file' },
        { language: 'yaml', scheme: 'untitled' },
      ],
      // Red Hat's YAML extension already reports syntax errors for every YAML file: do not repeat them.
      initializationOptions: {
        reportSyntaxErrors: !vscode.extensions.getExtension('redhat.vscode-yaml'),
        locale: vscode.env.language,
        factsCacheDir: vscode.Uri.joinPath(context.globalStorageUri, 'facts').fsPath,
        // Restricted Mode: the server reads the workspace as text and runs nothing of it until the grant below.
        trusted: services.trust.isTrusted(),
        // Its background pass lists folders through us (VS Code's file search, the user's excludes).
        listsYaml: true,
      } satisfies ConfigServerInitOptions,
      // Hovers may offer the one command that grants trust (VS Code's trust editor), nothing else.
      markdown: { isTrusted: { enabledCommands: [TRUST_COMMAND] } },
      // Settings go per folder through workspace/configuration; changes are announced.
      synchronize: { configurationSection: 'agentjet', fileEvents: watcher },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) return answers;
            return Promise.all(
              params.items.map((item, i) =>
                item.section === 'agentjet' ? folderSettings(item.scopeUri, services) : Promise.resolve(answers[i] as unknown),
              ),
            );
          },
        },
      },
      outputChannel: services.log,
      diagnosticCollectionName: 'agentjet',
    };
    client = new LanguageClient('agentjet.config', 'AgentJet Config', serverOptions, clientOptions);
    context.subscriptions.push(client.onRequest(LIST_YAML_REQUEST, (params: ListYamlParams) => listYaml(params)));
    services.log.info('starting the AgentJet config language server');
    starting = client.start().then(
      () => {
        if (services.trust.isTrusted()) void followPythonExtension();
      },
      (err: unknown) => {
        services.log.error(`config language server failed to start: ${err instanceof Error ? err.message : String(err)}`);
        client = undefined;
        starting = undefined;
      },
    );
    return starting;
  };

  /** The Python extension's interpreter is part of the folder settings: announce its changes. */
  let following = false;
  const followPythonExtension = async (): Promise<void> => {
    if (following || !vscode.extensions.getExtension('ms-python.python')) return;
    following = true;
    try {
      const { PythonExtension } = await import('@vscode/python-extension');
      const api = await PythonExtension.api();
      context.subscriptions.push(
        api.environments.onDidChangeActiveEnvironmentPath(() => {
          void client?.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
        }),
      );
    } catch (err) {
      services.log.warn(`could not follow the Python extension's interpreter: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  // Trust granted: the running server (or the one still starting) is told; it checks installed
  // packages from then on, without a restart. A server started later is told at initialize.
  context.subscriptions.push(
    services.trust.onDidGrant(() => {
      const told = starting;
      if (!told) return;
      void told.then(() => {
        void followPythonExtension();
        return client
          ?.sendNotification(WORKSPACE_TRUST_NOTIFICATION, { trusted: true } satisfies WorkspaceTrustParams)
          .catch((err: unknown) =>
            services.log.warn(
              `could not tell the config server about workspace trust: ${err instanceof Error ? err.message : String(err)}`,
            ),
          );
      });
    }),
  );

  const maybeStart = (doc: vscode.TextDocument | undefined) => {
    if (!client && doc && isConfigDocument(doc)) void start();
  };

  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(maybeStart),
    vscode.window.onDidChangeActiveTextEditor((e) => maybeStart(e?.document)),
    {
      dispose: () => {
        void client?.stop();
      },
    },
  );
  // Created folders, for the server to scan: a config written into a folder made the same instant
  // can escape the YAML watcher (see CREATED_PATHS_NOTIFICATION).
  const created = new CreatedBatch((params) => {
    void client?.sendNotification(CREATED_PATHS_NOTIFICATION, params).catch(() => undefined);
  });
  const anyWatcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, true);
  context.subscriptions.push(
    created,
    anyWatcher,
    anyWatcher.onDidCreate((uri) => {
      if (client && uri.scheme === 'file') created.add(uri.fsPath);
    }),
  );
  // A config created on disk in a workspace that had none yet (New Project, git checkout).
  context.subscriptions.push(
    watcher.onDidCreate((uri) => {
      if (client || uri.scheme !== 'file') return;
      void readHead(uri.fsPath).then((head) => {
        if (head !== undefined && looksLikeConfig(head)) void start();
      });
    }),
  );
  // Documents open before activation (activation itself stays free of process starts), then the
  // workspace's configs on disk: the server checks them in the background, so Problems lists them
  // without the user opening one.
  const timer = setTimeout(() => {
    for (const d of vscode.workspace.textDocuments) maybeStart(d);
    if (!client) void startForWorkspace();
  }, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });

  const startForWorkspace = async (): Promise<void> => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!folders.some((f) => settings.configProblems(f.uri) === 'workspace')) return;
    try {
      const r = await workspaceProbe();
      const why = r.config ?? r.marker;
      if (!why || client) return;
      services.log.info(`the workspace holds AgentJet (${why.fsPath}): checking its configs in the background`);
      await start();
    } catch (err) {
      services.log.warn(`workspace probe failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}
