import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { Services } from '../services';
import type { ConfigServerInitOptions } from '../../core/protocol/config';
import { pythonExtensionEnv } from '../python';
// The same cheap test the server, the CodeLens and the launch pickers use.
import { looksLikeConfig } from '../../core/agentjet/dialect';


export function isConfigDocument(doc: vscode.TextDocument): boolean {
  if (doc.languageId !== 'yaml' || (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled')) return false;
  // Reading the in-memory text is cheap; cap it so a huge file does not stall the extension host.
  const text = doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 20000), 0));
  return looksLikeConfig(text);
}

/**
 * The interpreter whose installed packages resolve built-in class references: `agentjet.pythonPath`,
 * else the Python extension's active interpreter when that extension is installed, else none.
 */
async function pythonForServer(services: Services): Promise<string> {
  const configured = vscode.workspace.getConfiguration('agentjet').get<string>('pythonPath');
  if (configured) return configured;
  try {
    return (await pythonExtensionEnv(vscode.workspace.workspaceFolders?.[0])) ?? '';
  } catch (err) {
    services.log.warn(`could not ask the Python extension for an interpreter: ${err instanceof Error ? err.message : String(err)}`);
    return '';
  }
}

/** Exposed for tests: the running client, if any. */
export interface ConfigFeature { client(): LanguageClient | undefined; ensureStarted(): Promise<void> }

let feature: ConfigFeature | undefined;
export function configFeature(): ConfigFeature | undefined { return feature; }

/** Starts the config language server only once an AgentJet/ASTuner YAML document is open. */
export function registerConfigFeature(context: vscode.ExtensionContext, services: Services): void {
  let client: LanguageClient | undefined;
  let starting: Promise<void> | undefined;

  const start = (): Promise<void> => {
    if (starting) return starting;
    const serverModule = vscode.Uri.joinPath(context.extensionUri, 'dist', 'server.js').fsPath;
    const serverOptions: ServerOptions = {
      run: { module: serverModule, transport: TransportKind.ipc },
      debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    starting = pythonForServer(services).then((pythonPath) => launch(serverOptions, pythonPath));
    return starting;
  };

  const launch = (serverOptions: ServerOptions, pythonPath: string): Promise<void> => {
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'yaml', scheme: 'file' }, { language: 'yaml', scheme: 'untitled' }],
      // Red Hat's YAML extension already reports syntax errors for every YAML file: do not repeat them.
      initializationOptions: { pythonPath, reportSyntaxErrors: !vscode.extensions.getExtension('redhat.vscode-yaml') } satisfies ConfigServerInitOptions,
      outputChannel: services.log,
      diagnosticCollectionName: 'agentjet',
    };
    client = new LanguageClient('agentjet.config', 'AgentJet Config', serverOptions, clientOptions);
    services.log.info(`starting the AgentJet config language server${pythonPath ? ` (Python: ${pythonPath})` : ''}`);
    return client.start().catch((err: unknown) => {
      services.log.error(`config language server failed to start: ${err instanceof Error ? err.message : String(err)}`);
      client = undefined;
      starting = undefined;
    });
  };

  const maybeStart = (doc: vscode.TextDocument | undefined) => {
    if (!client && doc && isConfigDocument(doc)) void start();
  };

  feature = { client: () => client, ensureStarted: start };
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(maybeStart),
    vscode.window.onDidChangeActiveTextEditor((e) => maybeStart(e?.document)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('agentjet.pythonPath') || !client) return;
      // The interpreter decides how built-in class references resolve: restart with the new one.
      const old = client;
      client = undefined;
      starting = undefined;
      void old.stop().then(() => start(), () => start());
    }),
    { dispose: () => { void client?.stop(); feature = undefined; } },
  );
  // Documents open before activation (activation itself stays free of process starts).
  setTimeout(() => { for (const d of vscode.workspace.textDocuments) maybeStart(d); }, 0);
}
