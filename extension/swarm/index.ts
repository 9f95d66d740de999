// Swarm mode in the editor: the Swarm Servers view, an overwatch panel per server, starting a local
// swarm server as a task, stopping the engine or a local server (each confirmed), the experiment
// folder, CodeLenses on `SwarmClient(...)` and on configs with `enable_swarm_mode: true`.
import * as vscode from 'vscode';
import { basename, dirname } from 'node:path';
import type { Services } from '../services';
import { SwarmServers, type WatchedServer } from './servers';
import { SwarmTree, type SwarmNode } from './tree';
import { OverwatchPanels } from './overwatch';
import { OVERWATCH_VIEW_TYPE } from '../../core/protocol/swarm';
import { DEFAULT_SWARM_URL, normalizeSwarmUrl } from '../../core/swarm/api';
import { findSwarmClientCalls, localSwarmPorts, swarmModeLine } from '../../core/swarm/source';
import { listProcesses } from '../../core/launch/processes';
import { resolvePython } from '../debug/interpreter';
import { OwnedProcessTerminal } from './serverTerminal';
import { mergedEnv, resolveAttributes } from '../../core/launch/attributes';

export const SWARM_VIEW = 'agentjet.swarmServers';
const TASK_TYPE = 'agentjet-swarm';

/** What the extension-host and UI tests see of the feature. */
export interface SwarmProbe {
  servers(): { url: string; description: string; details: { label: string; description?: string }[] }[];
  renders(): number;
  requests(): number;
  overwatch(url: string): unknown;
  add(url: string): void;
}

function serverOf(arg: unknown, servers: SwarmServers): WatchedServer | undefined {
  if (arg && typeof arg === 'object' && 'server' in arg) return (arg as SwarmNode).server;
  if (typeof arg === 'string') return servers.get(arg);
  return undefined;
}

async function pickServer(servers: SwarmServers, arg: unknown): Promise<WatchedServer | undefined> {
  const s = serverOf(arg, servers);
  if (s) return s;
  const list = servers.list();
  if (list.length === 1) return list[0];
  if (!list.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No swarm server yet: add one (AgentJet: Add Swarm Server…) or start one.'));
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((x) => ({ label: x.url, description: x.watcher.model.engineState ?? '', x })),
    { placeHolder: vscode.l10n.t('Swarm server') },
  );
  return pick?.x;
}

export function registerSwarmFeature(context: vscode.ExtensionContext, services: Services): SwarmProbe {
  const servers = new SwarmServers();
  const tree = new SwarmTree(servers);
  const view = vscode.window.createTreeView(SWARM_VIEW, { treeDataProvider: tree, showCollapseAll: false });
  let settingRead = false;
  const findLocal = () => {
    if (process.platform === 'win32') return;
    listProcesses().then(
      (procs) => servers.syncLocal(localSwarmPorts(procs)),
      (e: unknown) => services.log.warn(`swarm: listing processes failed: ${String(e)}`),
    );
  };
  const ensureSources = () => {
    if (!settingRead) {
      settingRead = true;
      servers.syncSetting();
    }
    findLocal();
    // An untrusted workspace does not get to choose hosts the editor contacts: settings only.
    if (services.isTrusted()) void servers.scanWorkspace().catch((e) => services.report('scan SwarmClient(...) literals', e));
  };

  services.provide('swarmServers', {
    known: async () => {
      if (!settingRead) {
        settingRead = true;
        servers.syncSetting();
      }
      if (services.isTrusted()) await servers.scanWorkspace().catch((e: unknown) => services.log.warn(`swarm: scan: ${String(e)}`));
      return servers.list().map((s) => s.url);
    },
  });

  const actions = {
    async stopEngine(s: WatchedServer): Promise<void> {
      // Offered only for a server that answers (contextValue `engineUp`); from the palette it is said.
      if (s.watcher.model.reachability !== 'ok') {
        void vscode.window.showWarningMessage(
          vscode.l10n.t(
            '{0} cannot be reached, so its engine cannot be stopped: {1}',
            s.url,
            s.watcher.model.error ?? vscode.l10n.t('no answer yet'),
          ),
        );
        return;
      }
      const state = s.watcher.model.engineState ?? vscode.l10n.t('unknown');
      const clients = s.watcher.model.status?.pool.swarm_client_instruction.active_clients.length ?? 0;
      const ok = vscode.l10n.t('Stop engine');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('Stop the training engine of {0}?', s.url),
        {
          modal: true,
          detail: vscode.l10n.t(
            'The engine is {0}. Stopping kills the training process on the server and drops every episode, for every client ({1} active): their running episodes end and they wait until some client starts the engine again. The server itself keeps running.',
            state,
            clients,
          ),
        },
        ok,
      );
      if (answer !== ok) return;
      try {
        await s.watcher.api.stopEngine();
        void vscode.window.showInformationMessage(vscode.l10n.t('Stop engine sent to {0}.', s.url));
      } catch (e) {
        services.report('stop the swarm engine', e);
      }
      s.watcher.refresh();
    },
    async openExperiment(s: WatchedServer): Promise<void> {
      const dir = s.watcher.model.status?.server_experiment_dir;
      if (!dir) {
        void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no experiment folder yet (the engine has not started).', s.url));
        return;
      }
      const shown = await services.get('runs').reveal(dir);
      if (!shown) {
        const uri = vscode.Uri.file(dir);
        try {
          await vscode.workspace.fs.stat(uri);
          await vscode.commands.executeCommand('revealFileInOS', uri);
        } catch {
          void vscode.window.showInformationMessage(
            vscode.l10n.t('The experiment folder {0} is on the server machine; it is not reachable from here.', dir),
          );
        }
      }
    },
    async copyUrl(s: WatchedServer): Promise<void> {
      await vscode.env.clipboard.writeText(s.url);
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', s.url), 3000);
    },
  };
  const panels = new OverwatchPanels(servers, actions, services.extensionUri, () => services.get('swarmSessions'));

  let pending: ReturnType<typeof setTimeout> | undefined;
  const refreshTree = () => {
    // Many watchers may change at once: one render per tick.
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      tree.refresh();
    }, 0);
  };

  context.subscriptions.push(
    servers,
    view,
    panels,
    servers.onDidChange(refreshTree),
    view.onDidChangeVisibility((e) => {
      if (e.visible) ensureSources();
      servers.look('view', e.visible);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentjet.swarm.servers') && settingRead) servers.syncSetting();
    }),
    // Trust granted: the workspace's SwarmClient(...) servers are looked for now, without a reload.
    services.trust.onDidGrant(() => {
      if (settingRead) void servers.scanWorkspace(true).catch((e) => services.report('scan SwarmClient(...) literals', e));
    }),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (settingRead && services.isTrusted() && d.languageId === 'python' && d.getText().includes('SwarmClient'))
        void servers.scanWorkspace(true);
    }),
    vscode.window.registerWebviewPanelSerializer(OVERWATCH_VIEW_TYPE, panels),
    vscode.commands.registerCommand('agentjet.swarm.refresh', () => {
      ensureSources();
      findLocal();
      if (services.isTrusted()) void servers.scanWorkspace(true);
      for (const s of servers.list()) s.watcher.refresh();
    }),
    vscode.commands.registerCommand('agentjet.swarm.addServer', async () => {
      const raw = await vscode.window.showInputBox({
        prompt: vscode.l10n.t('URL of a swarm server (ajet-swarm start)'),
        value: DEFAULT_SWARM_URL,
        validateInput: (v) => {
          try {
            normalizeSwarmUrl(v);
            return undefined;
          } catch (e) {
            return (e as Error).message;
          }
        },
      });
      if (!raw) return;
      const url = normalizeSwarmUrl(raw);
      const cfg = vscode.workspace.getConfiguration('agentjet');
      const list = cfg.get<string[]>('swarm.servers', []);
      if (!list.includes(url)) await cfg.update('swarm.servers', [...list, url], vscode.ConfigurationTarget.Global);
      settingRead = true;
      servers.syncSetting();
    }),
    vscode.commands.registerCommand('agentjet.swarm.openOverwatch', async (arg?: unknown) => {
      ensureSources();
      const s = typeof arg === 'string' ? servers.add(arg, 'panel') : await pickServer(servers, arg);
      if (s) panels.open(s);
    }),
    vscode.commands.registerCommand('agentjet.swarm.debugClient', (arg?: unknown, url?: unknown) => debugSwarmClient(arg, url)),
    vscode.commands.registerCommand('agentjet.swarm.stopEngine', async (arg?: unknown) => {
      const s = await pickServer(servers, arg);
      if (s) await actions.stopEngine(s);
    }),
    vscode.commands.registerCommand('agentjet.swarm.openExperiment', async (arg?: unknown) => {
      const s = await pickServer(servers, arg);
      if (s) await actions.openExperiment(s);
    }),
    vscode.commands.registerCommand('agentjet.swarm.copyUrl', async (arg?: unknown) => {
      const s = await pickServer(servers, arg);
      if (s) await actions.copyUrl(s);
    }),
    // `opts.port` answers the port question (agents, tests); a person is asked.
    vscode.commands.registerCommand('agentjet.swarm.startServer', async (conf?: vscode.Uri, opts?: { port?: unknown }) => {
      if (
        !services.trust.require(
          'run-process',
          vscode.l10n.t('Starting a swarm server runs code from this workspace: trust the workspace first.'),
        )
      )
        return;
      const given = opts && typeof opts === 'object' && Number.isInteger(opts.port) ? Number(opts.port) : undefined;
      const portText =
        given !== undefined && given > 0 && given < 65536
          ? String(given)
          : await vscode.window.showInputBox({
              prompt: vscode.l10n.t('Port of the swarm server (ajet-swarm start --swarm-port)'),
              value: '10086',
              validateInput: (v) =>
                /^\d{1,5}$/.test(v) && Number(v) > 0 && Number(v) < 65536 ? undefined : vscode.l10n.t('a port number, 1-65535'),
            });
      if (!portText) return;
      const folder = conf ? vscode.workspace.getWorkspaceFolder(conf) : vscode.workspace.workspaceFolders?.[0];
      const py = await resolvePython(folder);
      // `ajet-swarm` is `python -m ajet.swarm_cli` (AgentJet's console script); the module form uses the chosen interpreter.
      const args = ['-m', 'ajet.swarm_cli', 'start', '--swarm-port', portText, ...(conf ? ['--conf', conf.fsPath] : [])];
      const cwd = conf ? dirname(conf.fsPath) : (folder?.uri.fsPath ?? process.cwd());
      // The folder's .env as every launch reads it (python-dotenv, override=False).
      const env = mergedEnv(resolveAttributes({ config: conf?.fsPath ?? '', cwd }));
      const task = new vscode.Task(
        { type: TASK_TYPE, port: Number(portText), conf: conf?.fsPath ?? '' },
        folder ?? vscode.TaskScope.Workspace,
        vscode.l10n.t('swarm server :{0}{1}', portText, conf ? ` (${basename(conf.fsPath)})` : ''),
        'agentjet',
        new vscode.CustomExecution(async () => new OwnedProcessTerminal({ command: py.path, args, cwd, env })),
      );
      task.isBackground = true;
      task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated };
      const exec = await vscode.tasks.executeTask(task);
      const s = servers.add(`http://localhost:${portText}`, 'local');
      s.task = exec;
      refreshTree();
      await vscode.commands.executeCommand(`${SWARM_VIEW}.focus`);
    }),
    vscode.tasks.onDidEndTask((e) => {
      for (const s of servers.list())
        if (s.task === e.execution) {
          s.task = undefined;
          s.watcher.refresh();
          refreshTree();
        }
    }),
    vscode.commands.registerCommand('agentjet.swarm.stopServer', async (arg?: unknown) => {
      const s = await pickServer(servers, arg);
      if (!s?.task) {
        if (s)
          void vscode.window.showInformationMessage(vscode.l10n.t('{0} was not started by this editor; stop it where it runs.', s.url));
        return;
      }
      const ok = vscode.l10n.t('Stop server');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('Stop the local swarm server {0}?', s.url),
        {
          modal: true,
          detail: vscode.l10n.t(
            'This ends the server process and its training engine. Every client connected to it loses its episodes and cannot reach the server until it is started again.',
          ),
        },
        ok,
      );
      if (answer !== ok) return;
      s.task.terminate();
    }),
    vscode.languages.registerCodeLensProvider(
      { language: 'python' },
      {
        provideCodeLenses(doc, token) {
          if (token.isCancellationRequested || doc.lineCount > 50_000) return [];
          const text = doc.getText();
          if (!text.includes('SwarmClient')) return [];
          return findSwarmClientCalls(text).flatMap((c) => {
            const range = new vscode.Range(c.line, c.column, c.line, c.endColumn);
            const lenses = [
              new vscode.CodeLens(range, {
                title: vscode.l10n.t('Debug this swarm client'),
                command: 'agentjet.swarm.debugClient',
                arguments: [doc.uri, c.url],
              }),
              new vscode.CodeLens(range, {
                title: vscode.l10n.t('Open swarm overwatch'),
                command: 'agentjet.swarm.openOverwatch',
                arguments: [c.url ?? DEFAULT_SWARM_URL],
              }),
            ];
            return lenses;
          });
        },
      },
    ),
    vscode.languages.registerCodeLensProvider(
      { language: 'yaml' },
      {
        provideCodeLenses(doc, token) {
          if (token.isCancellationRequested || doc.lineCount > 50_000) return [];
          const line = swarmModeLine(doc.getText());
          if (line === undefined) return [];
          return [
            new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
              title: vscode.l10n.t('Start swarm server with this config'),
              command: 'agentjet.swarm.startServer',
              arguments: [doc.uri],
            }),
          ];
        },
      },
    ),
  );

  // A view restored visible by the layout fires no visibility change: start once activation is over.
  setTimeout(() => {
    if (view.visible) {
      ensureSources();
      servers.look('view', true);
    }
  }, 0);

  return {
    servers: () =>
      servers.list().map((s) => ({
        url: s.url,
        description: tree.getTreeItem({ kind: 'server', server: s }).description as string,
        details: tree.getChildren({ kind: 'server', server: s }).map((n) => {
          const item = tree.getTreeItem(n);
          return { label: String(item.label), description: typeof item.description === 'string' ? item.description : undefined };
        }),
      })),
    renders: () => tree.renders,
    requests: () => servers.requests(),
    overwatch: (url) => panels.snapshot(normalizeSwarmUrl(url)),
    add: (url) => {
      servers.add(url, 'panel');
    },
  };
}

/** Starts the `swarmClient` launch of a client script (the CodeLens passes its `SwarmClient("…")` URL). */
async function debugSwarmClient(arg: unknown, url: unknown): Promise<boolean> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file' || !uri.fsPath.endsWith('.py')) {
    void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: open a swarm client script (a .py file using SwarmClient) to debug it.'));
    return false;
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  return vscode.debug.startDebugging(folder, {
    type: 'agentjet',
    request: 'launch',
    name: vscode.l10n.t('AgentJet: swarm client {0}', vscode.workspace.asRelativePath(uri, false)),
    swarmClient: uri.fsPath,
    ...(typeof url === 'string' ? { swarmUrl: url } : {}),
    ...(folder ? { cwd: folder.uri.fsPath } : {}),
  });
}
