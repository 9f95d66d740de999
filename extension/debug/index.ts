// Debug and launch: the `agentjet` debug type, `agentjet` tasks, CodeLens and editor-title actions.
import * as vscode from 'vscode';
import { CauseQuickFixes, showCauseProblems } from './causeProblems';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Services } from '../services';
import { AgentJetDebugConfigurationProvider } from './provider';
import { AgentJetTaskProvider, buildTask, TASK_TYPE } from './tasks';
import { AgentJetCodeLensProvider } from './codelens';
import { SwarmSessions } from './swarmSessions';
import { debugConfigurationFor, isAgentJetDocument, DEBUG_TYPE } from './configs';
import { companionsOfAsync, stopCompanions } from '../../core/launch/companions';
import { groupProbeAsync } from '../../core/agentjet/liveness';
import type { Backbone } from '../../core/launch/plan';
import { ChildPauseWatcher, ChildStopWatcher } from '../../core/launch/childStop';
import { ChildPauses } from './childPauses';
import { setLaunchRecordListener } from './launcherTerminal';
import {
  EVENT_EXPERIMENT,
  EVENT_FINISHED,
  EVENT_LAUNCH_RECORD,
  subprocessAttach,
  type LaunchRecordEventBody,
  type ExperimentEventBody,
  type FinishedEventBody,
} from '../../core/protocol/debug';

const CONTEXT_KEY = 'agentjet.isConfig';

function targetUri(uri: unknown): vscode.Uri | undefined {
  if (uri instanceof vscode.Uri) return uri;
  const doc = vscode.window.activeTextEditor?.document;
  return isAgentJetDocument(doc) ? doc!.uri : undefined;
}

function needTrust(services: Services): boolean {
  return services.trust.require('run-process', vscode.l10n.t('AgentJet: launching and stopping processes needs a trusted workspace.'));
}

export function registerDebugFeature(context: vscode.ExtensionContext, services: Services): void {
  const provider = new AgentJetDebugConfigurationProvider(services);
  const taskProblems = vscode.languages.createDiagnosticCollection('agentjet-launch');
  const tasks = new AgentJetTaskProvider(() => services.isTrusted(), taskProblems);
  const dynamic: vscode.DebugConfigurationProvider = {
    provideDebugConfigurations: (folder, token) => provider.provideDynamicConfigurations(folder, token),
  };
  const lenses = new AgentJetCodeLensProvider(services.trust);

  const startDebug = async (uri: unknown, noDebug: boolean): Promise<boolean> => {
    const target = targetUri(uri);
    if (!target) {
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: open an AgentJet config (YAML with an `ajet:` root) first.'));
      return false;
    }
    const folder = vscode.workspace.getWorkspaceFolder(target);
    const config = debugConfigurationFor(
      target,
      folder,
      noDebug
        ? vscode.l10n.t('AgentJet: run {0}', vscode.workspace.asRelativePath(target, false))
        : vscode.l10n.t('AgentJet: debug {0}', vscode.workspace.asRelativePath(target, false)),
    );
    return vscode.debug.startDebugging(folder, config, { noDebug });
  };

  const train = async (uri: unknown, backbone?: Backbone): Promise<vscode.TaskExecution | undefined> => {
    if (!needTrust(services)) return undefined;
    const target = targetUri(uri);
    if (!target) {
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: open an AgentJet config (YAML with an `ajet:` root) first.'));
      return undefined;
    }
    const chosen =
      backbone ??
      ((await vscode.window.showQuickPick(['verl', 'trinity'], { title: vscode.l10n.t('Train with which backbone?') })) as
        Backbone | undefined);
    if (!chosen) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(target);
    const task = await buildTask(
      { type: TASK_TYPE, config: target.fsPath, backbone: chosen },
      folder ?? vscode.TaskScope.Workspace,
      taskProblems,
    );
    return vscode.tasks.executeTask(task);
  };

  const stopAllCompanions = async (): Promise<number> => {
    if (!needTrust(services)) return 0;
    // Companions live under each folder's fixed log roots, whatever --exp-dir or experimentRoots say.
    // Read without blocking the extension host, the groups' liveness (reuse ruled out) from /proc read once.
    const probe = await groupProbeAsync();
    const found = (await Promise.all((vscode.workspace.workspaceFolders ?? []).map((f) => companionsOfAsync(f.uri.fsPath, probe))))
      .flat()
      .filter((c) => c.alive);
    if (found.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet: no companion is running.'));
      return 0;
    }
    const stopped = await stopCompanions(found);
    services.log.info(`stopped companions: ${stopped.map((c) => `${c.tag} (pgid ${c.pgid})`).join(', ')}`);
    void vscode.window.showInformationMessage(
      vscode.l10n.t('AgentJet: stopped {0} companion(s): {1}.', stopped.length, [...new Set(stopped.map((c) => c.tag))].join(', ')),
    );
    return stopped.length;
  };

  const setContext = (editor: vscode.TextEditor | undefined): void => {
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, isAgentJetDocument(editor?.document));
  };

  services.provide('launch', {
    debug: (config, noDebug) => startDebug(config, noDebug),
    train: (config, backbone) => train(config, backbone),
  });
  // Swarm clients launched from here: the overwatch marks their episodes (extension/swarm/overwatch.ts).
  const swarmSessions = new SwarmSessions(services);
  context.subscriptions.push(swarmSessions);
  services.provide('swarmSessions', swarmSessions);

  const childPauses = new ChildPauses(services);
  // Task launches (Train, the CodeLens) tell the Runs view of their live record as F5 does.
  setLaunchRecordListener((folder) => services.get('runs').launchChanged(folder));
  context.subscriptions.push({ dispose: () => setLaunchRecordListener(undefined) });
  /** AgentJet sessions being stopped or restarted (their children's disconnects follow from it). */
  const stoppingParents = new Set<string>();
  context.subscriptions.push(
    // Inline: the session runs in the extension host, saving a node start per launch (the
    // process-based dist/adapter.js stays for other clients and as the manifest fallback).
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      async createDebugAdapterDescriptor(session) {
        // A launcher sub-process debugpy reported: VS Code talks to debugpy's adapter directly.
        const child = subprocessAttach(session.configuration);
        if (child) return new vscode.DebugAdapterServer(child.connect.port, child.connect.host);
        const { AgentJetDebugSession } = await import('../../debug-adapter/session');
        return new vscode.DebugAdapterInlineImplementation(new AgentJetDebugSession());
      },
    }),
    // One Stop ends the launch: Stop on a launcher child session (an attach VS Code starts from
    // debugpy's reverse request, not managed by its parent) stops the parent AgentJet session,
    // which ends the launcher's process tree (core/launch/childStop.ts).
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker(session) {
        if (!subprocessAttach(session.configuration)) {
          // A parent: while it stops (or restarts), its children's disconnects are no user's Stop.
          return {
            onWillStopSession: () => {
              stoppingParents.delete(session.id);
              childPauses.forget(session.id);
            },
            onWillReceiveMessage: (m: { type?: string; command?: string }) => {
              if (m.type !== 'request') return;
              if (m.command === 'terminate' || m.command === 'disconnect') stoppingParents.add(session.id);
              else if (m.command === 'launch') stoppingParents.delete(session.id);
            },
          };
        }
        const watcher = new ChildStopWatcher();
        const pause = new ChildPauseWatcher();
        const rootOf = () => {
          let root = session.parentSession;
          while (root?.parentSession && root.parentSession.type === DEBUG_TYPE) root = root.parentSession;
          return root?.type === DEBUG_TYPE ? root : undefined;
        };
        // A pause in a child (the rollout's breakpoint) is told to the launch's session: its live record says "paused".
        const pauseChanged = () => {
          const root = rootOf();
          if (root) childPauses.set(root, session.id, pause.paused);
        };
        return {
          onDidSendMessage: (m: DebugProtocol.ProtocolMessage) => {
            watcher.fromAdapter(m);
            if (pause.fromAdapter(m)) pauseChanged();
          },
          onWillStopSession: () => {
            if (pause.paused) {
              pause.paused = false;
              pauseChanged();
            }
          },
          onWillReceiveMessage: (m: DebugProtocol.ProtocolMessage) => {
            if (pause.toAdapter(m)) pauseChanged();
            if (!watcher.toAdapter(m)) return;
            const root = rootOf();
            if (!root || stoppingParents.has(root.id)) return;
            services.log.info(`debug: Stop on child session ${session.name}: stopping the launch (${root.name})`);
            stoppingParents.add(root.id);
            void vscode.debug.stopDebugging(root);
          },
        };
      },
    }),
    // Loaded by the first stage: its providers (registered before we were loaded) forward to these.
    ...(services.gate
      ? [services.gate.registerDebugConfigurationProvider(provider, dynamic)]
      : [
          vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider, vscode.DebugConfigurationProviderTriggerKind.Initial),
          vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, dynamic, vscode.DebugConfigurationProviderTriggerKind.Dynamic),
        ]),
    taskProblems,
    services.gate ? services.gate.registerTaskProvider(tasks) : vscode.tasks.registerTaskProvider(TASK_TYPE, tasks),
    lenses,
    vscode.languages.registerCodeActionsProvider([{ language: 'yaml' }, { pattern: '**/*.{yaml,yml}' }], new CauseQuickFixes(), {
      providedCodeActionKinds: CauseQuickFixes.kinds,
    }),
    vscode.languages.registerCodeLensProvider([{ language: 'yaml' }, { pattern: '**/*.{yaml,yml}' }], lenses),
    vscode.commands.registerCommand('agentjet.debugConfig', (uri?: vscode.Uri) => startDebug(uri, false)),
    vscode.commands.registerCommand('agentjet.runConfig', (uri?: vscode.Uri) => startDebug(uri, true)),
    vscode.commands.registerCommand('agentjet.trainConfig', (uri?: vscode.Uri, backbone?: Backbone) => train(uri, backbone)),
    vscode.commands.registerCommand('agentjet.trainVerl', (uri?: vscode.Uri) => train(uri, 'verl')),
    vscode.commands.registerCommand('agentjet.trainTrinity', (uri?: vscode.Uri) => train(uri, 'trinity')),
    vscode.commands.registerCommand('agentjet.stopCompanions', () => stopAllCompanions()),
    vscode.debug.onDidReceiveDebugSessionCustomEvent(async (e) => {
      if (e.session.type !== DEBUG_TYPE) return;
      if (e.event === EVENT_LAUNCH_RECORD) {
        // Read that run again now, whether the Runs view shows or not (a hidden view kept the old words).
        services.get('runs').launchChanged((e.body as LaunchRecordEventBody).folder);
      } else if (e.event === EVENT_EXPERIMENT) {
        const body = e.body as ExperimentEventBody;
        services.log.info(`debug: experiment ${body.folder}`);
        try {
          await services.get('runs').reveal(body.folder);
        } catch (err) {
          services.report(vscode.l10n.t('showing the run in the Runs view'), err);
        }
      } else if (e.event === EVENT_FINISHED) {
        const body = e.body as FinishedEventBody;
        services.log.info(`debug: run finished (exit ${body.exitCode ?? '?'}), rollout log ${body.rolloutLog ?? 'none'}`);
        if (body.causes?.length && body.config) {
          await showCauseProblems(taskProblems, body.config, body.causes);
        }
        if (body.openTokenLog && body.rolloutLog) {
          const uri = vscode.Uri.file(body.rolloutLog);
          try {
            await services.get('logs').openTokenLog(uri);
          } catch (err) {
            services.report(vscode.l10n.t('opening the rollout log {0}', body.rolloutLog), err);
          }
        }
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(setContext),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc === vscode.window.activeTextEditor?.document) setContext(vscode.window.activeTextEditor);
    }),
  );
  // The active editor's text is already in memory: no I/O.
  setContext(vscode.window.activeTextEditor);
}
