import * as vscode from 'vscode';
import type { Backbone } from '../core/launch/plan';
import { createTrustService, type TrustService } from './trust';
import type { GateHandoff } from './gate/contract';

/** The Runs feature as other features use it (extension/runs). */
export interface RunsService {
  /** Shows the experiment folder in the Runs view; false (and a message) when it is not under a root. */
  reveal(folder: string): Promise<boolean>;
  /** Forgets what was read and reads the Runs and Companions views again. */
  refresh(): void;
  /** The experiment roots the Runs view shows (folders that exist), as paths. */
  roots(): Promise<string[]>;
  /**
   * A launch's record in this experiment folder changed (the launch owner's events: prepared,
   * started, paused, resumed, stopped, ended): the run is read again at once, shown or hidden.
   */
  launchChanged(folder: string): void;
}

/** The log views as other features use them (extension/logs). */
export interface LogsService {
  /**
   * Opens the token log for a file, run or experiment folder (asks when several); the file opened.
   * `text` filters its list (as typing it in the view's filter box does), e.g. a task id.
   */
  openTokenLog(target?: vscode.Uri, opts?: { text?: string }): Promise<vscode.Uri | undefined>;
  /** Opens a trajectory file in the transcript view (asks when none given); the file opened. */
  openTrajectory(target?: vscode.Uri): Promise<vscode.Uri | undefined>;
}

/** Launching AgentJet configs as other features use it (extension/debug). */
export interface LaunchService {
  /** Starts an `agentjet` debug session (or a run without debugging) for the config. */
  debug(config: vscode.Uri, noDebug: boolean): Promise<boolean>;
  /** Runs the training task for the config with a backbone (asks when none given). */
  train(config: vscode.Uri, backbone?: Backbone): Promise<vscode.TaskExecution | undefined>;
}

/** A swarm client launched from the editor (a `swarmClient` debug session) and what it showed of itself. */
export interface SwarmClientSession {
  readonly sessionId: string;
  readonly sessionName: string;
  /** The swarm server it talks to (normalised URL). */
  readonly url: string;
  /** 8-character client-uuid prefixes from its `SwarmClient-EngineStatusPoll-…` thread names (debugpy). */
  readonly prefixes: readonly string[];
  /** Episodes it logged as claimed (`Claimed episode …`), newest last. */
  readonly episodes: readonly string[];
}

/** The swarm clients the editor runs, as the swarm feature sees them (extension/debug/swarmSessions.ts). */
export interface SwarmSessionsService {
  /** Running swarm-client sessions whose server is `url`. */
  forServer(url: string): SwarmClientSession[];
  /** Fires with the server URL when a session starts, shows a clue or ends. */
  readonly onDidChange: vscode.Event<string>;
}

/** "Debug this task" as other features use it (extension/debugTask). */
export interface DebugTaskService {
  /**
   * Starts the debug backbone on one task of a run (asks for the config and num_repeat, as the
   * command does). `run` is the experiment folder the caller itself knows, never a webview's word.
   */
  debugTask(args: { taskId: string; run?: string }): Promise<boolean>;
}

/** The swarm servers the user and the workspace chose (extension/swarm): what agents may ask. */
export interface SwarmServersService {
  /** `agentjet.swarm.servers`, the workspace's `SwarmClient("…")` servers (trusted workspace), local ones the editor found. */
  known(): Promise<string[]>;
}

/** The services features give each other; each is provided by its feature during activation. */
export interface FeatureServices {
  readonly runs: RunsService;
  readonly logs: LogsService;
  readonly launch: LaunchService;
  readonly swarmSessions: SwarmSessionsService;
  readonly debugTask: DebugTaskService;
  readonly swarmServers: SwarmServersService;
}

/** Shared, cheap objects every feature may use. Nothing here starts work on creation. */
export interface Services {
  readonly log: vscode.LogOutputChannel;
  /** The first stage that loaded the extension: providers VS Code asks by id are bound through it. */
  readonly gate?: GateHandoff;
  readonly extensionUri: vscode.Uri;
  /** The extension's global storage folder on disk (caches), when it is a local path. */
  readonly storageDir?: string;
  /** True when the user trusts the workspace; launching and process control require it (same as `trust.isTrusted()`). */
  isTrusted(): boolean;
  /** The one owner of workspace trust (extension/trust.ts): ask it before running anything of the workspace. */
  readonly trust: TrustService;
  /** Another feature's service. Features call this when they act, never while activating. */
  get<K extends keyof FeatureServices>(name: K): FeatureServices[K];
  /** Called once by the feature that owns `name`, during activation. */
  provide<K extends keyof FeatureServices>(name: K, service: FeatureServices[K]): void;
  /** Logs a failure and shows it to the user (`what` says what was being done). */
  report(what: string, err: unknown): void;
}

export function createServices(context: vscode.ExtensionContext, handoff?: GateHandoff & { log: vscode.LogOutputChannel }): Services {
  // The first stage's channel when it loaded us (one "AgentJet" channel, not two).
  const log = handoff?.log ?? vscode.window.createOutputChannel('AgentJet', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('agentjet.showOutput', () => log.show(true)),
  );
  const provided: Partial<{ -readonly [K in keyof FeatureServices]: FeatureServices[K] }> = {};
  const trust = createTrustService(context);
  return {
    log,
    ...(handoff ? { gate: handoff } : {}),
    extensionUri: context.extensionUri,
    storageDir: context.globalStorageUri.scheme === 'file' ? context.globalStorageUri.fsPath : undefined,
    isTrusted: () => trust.isTrusted(),
    trust,
    get(name) {
      const service = provided[name];
      // Every feature provides its service during activate(): missing means a wiring bug.
      if (!service) throw new Error(`the ${name} service is not registered (extension/extension.ts)`);
      return service;
    },
    provide(name, service) {
      if (provided[name]) throw new Error(`the ${name} service is registered twice`);
      provided[name] = service;
    },
    report(what, err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error(`${what}: ${message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: {0} failed: {1}', what, message));
    },
  };
}
