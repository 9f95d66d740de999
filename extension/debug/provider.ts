// DebugConfigurationProvider for `agentjet`: initial and dynamic configurations (one per config in
// the workspace), F5 on an open config, defaults, interpreter, trust, config checks and the launch
// preflight: a refused launch shows our message with our actions and ends the start quietly
// (returning undefined), instead of VS Code's dialog offering to open launch.json.
import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import { lintForLaunch } from '../../core/launch/judge';
import type { LintDiagnostic } from '../../core/config/lint';
import { findAgentJetConfigs, debugConfigurationFor, isAgentJetDocument, DEBUG_TYPE, type AgentJetDebugConfiguration } from './configs';
import { resolvePython } from './interpreter';
import type { Services } from '../services';
import { resolveAttributes } from '../../core/launch/attributes';
import { planLaunch, preflightLaunch, type Planned, type Preflighted, type Refusal } from '../../core/launch/lifecycle';
import { LaunchOwner, LaunchStopped } from '../../core/launch/owner';
import { LAUNCH_ERRORS, subprocessAttach } from '../../core/protocol/debug';
import { checkSwarmServer, isSwarmClientLaunch, planSwarmClient, type SwarmClientAttributes } from '../../core/launch/swarmClient';
import { stopGroup } from '../../core/agentjet/companions';

/**
 * How a refused launch is told to the user; tests pass their own to see it. `retry` starts the same
 * launch again (Stop It and Launch).
 */
export type RefusalNotifier = (refusal: Refusal, retry?: (env?: Record<string, string>) => void) => void;

const SELECT_INTERPRETER = vscode.l10n.t('Select Interpreter');
const COPY_INSTALL = vscode.l10n.t('Copy Install Command');
const STOP_IT = vscode.l10n.t('Stop It and Launch');

/** Our message with our actions (not VS Code's "Open 'launch.json'"). Not awaited: the start ends at once. */
export function showRefusal(refusal: Refusal, retry?: (env?: Record<string, string>) => void): void {
  const actions: string[] = [];
  if (refusal.installCommand) actions.push(COPY_INSTALL);
  // The port is held by AgentJet's companion of another folder (issue 22 item 16). No "reuse": AgentJet's
  // launcher finds companions by a record under its own folder and would start another on the port.
  const held = refusal.portCompanion;
  if (held && retry) actions.push(STOP_IT);
  if (refusal.kinds.some((k) => k === 'python' || k === 'debugpy' || k === 'framework')) actions.push(SELECT_INTERPRETER);
  // A refusal that lists its causes (one per line) is a dialog, so they read as a list, as the
  // config-error refusal does; a notification would run them together.
  const [head, ...lines] = refusal.message.split('\n');
  const listed = lines.some((l) => l.trim() !== '');
  const shown = listed
    ? vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: {0}', head ?? ''), { modal: true, detail: lines.join('\n') }, ...actions)
    : vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: {0}', refusal.message), ...actions);
  void shown.then(async (pick) => {
    if (pick === STOP_IT && held && retry) {
      await stopGroup(held.pgid);
      retry();
    } else if (pick === COPY_INSTALL && refusal.installCommand) {
      await vscode.env.clipboard.writeText(refusal.installCommand);
    } else if (pick === SELECT_INTERPRETER) {
      const commands = await vscode.commands.getCommands(true);
      if (commands.includes('python.setInterpreter')) await vscode.commands.executeCommand('python.setInterpreter');
      else await vscode.commands.executeCommand('workbench.action.openSettings', 'agentjet.pythonPath');
    }
  });
}

/** The config's errors as a list, one line each (at most ten), for the refusal dialog's detail. */
function refusalDetail(errors: readonly { message: string; range: { start: { line: number } } }[]): string {
  const shown = errors.slice(0, 10).map((d) => `• ${vscode.l10n.t('line {0}: {1}', d.range.start.line + 1, d.message)}`);
  if (errors.length > shown.length) shown.push(vscode.l10n.t('… and {0} more in Problems.', errors.length - shown.length));
  return shown.join('\n');
}

export class AgentJetDebugConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly services: Services,
    private readonly notify: RefusalNotifier = showRefusal,
  ) {}

  async provideDebugConfigurations(
    folder: vscode.WorkspaceFolder | undefined,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DebugConfiguration[]> {
    const found = await findAgentJetConfigs(folder, token);
    if (found.length === 0) {
      return [
        {
          type: DEBUG_TYPE,
          request: 'launch',
          name: 'AgentJet: debug rollout',
          config: '${workspaceFolder}/path/to/config.yaml',
          backbone: 'debug',
          cwd: '${workspaceFolder}',
        },
      ];
    }
    return found.map((uri) => debugConfigurationFor(uri, folder ?? vscode.workspace.getWorkspaceFolder(uri)));
  }

  /**
   * "More AgentJet options...": VS Code asks once per launch it knows, each folder's and the user
   * settings' (no folder; a multi-root workspace's too). Each folder lists its own configs, so the
   * folderless asks list nothing (they listed every config a second time); no placeholder either.
   */
  async provideDynamicConfigurations(
    folder: vscode.WorkspaceFolder | undefined,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DebugConfiguration[]> {
    if (!folder && vscode.workspace.workspaceFolders?.length) return [];
    const found = await findAgentJetConfigs(folder, token);
    return found.map((uri) => debugConfigurationFor(uri, folder ?? vscode.workspace.getWorkspaceFolder(uri)));
  }

  async resolveDebugConfiguration(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DebugConfiguration | undefined> {
    // A child session the adapter asked for (a sub-process of the launcher): nothing to fill in.
    if (subprocessAttach(config)) return config;
    if (config.request === 'attach') return config; // a Ray worker's debugpy listener (extension/ray/index.ts)
    // F5 without launch.json: debug the config in the active editor, else the folder's only config.
    if (!config.type && !config.request && !config.name) {
      const doc = vscode.window.activeTextEditor?.document;
      const target = isAgentJetDocument(doc) ? doc!.uri : await this.onlyConfig(folder ?? this.activeFolder(), token);
      if (!target) return undefined;
      // Ctrl+F5 (Debug: Start Without Debugging) arrives as `noDebug`: keep it, or it would debug.
      const fresh = debugConfigurationFor(target, vscode.workspace.getWorkspaceFolder(target) ?? folder);
      return config.noDebug === true ? { ...fresh, noDebug: true } : fresh;
    }
    if (isSwarmClientLaunch(config)) {
      if (!config.cwd && folder) config.cwd = folder.uri.fsPath;
      config.justMyCode ??= true;
      return config;
    }
    const c = config as AgentJetDebugConfiguration;
    if (!c.config) {
      const doc = vscode.window.activeTextEditor?.document;
      if (isAgentJetDocument(doc)) c.config = doc!.uri.fsPath;
    }
    c.backbone ??= 'debug';
    if (!c.cwd && folder) c.cwd = folder.uri.fsPath;
    c.justMyCode ??= true;
    return c;
  }

  private activeFolder(): vscode.WorkspaceFolder | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  /** F5 from a file that is not a config (a workflow, say): the folder's one config, or a pick among several. */
  private async onlyConfig(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<vscode.Uri | undefined> {
    const found = await findAgentJetConfigs(folder, token);
    if (token?.isCancellationRequested) return undefined;
    if (found.length === 1) return found[0];
    if (found.length === 0) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Open an AgentJet config (a YAML file with an `ajet:` root) to debug it, or add an "agentjet" configuration to launch.json.',
        ),
      );
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      found.map((uri) => ({ label: vscode.workspace.asRelativePath(uri, false), uri })),
      { placeHolder: vscode.l10n.t('Which AgentJet config to debug?') },
      token,
    );
    return pick?.uri;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DebugConfiguration | undefined> {
    if (subprocessAttach(config)) return config;
    if (config.request === 'attach') return config;
    const c = config as AgentJetDebugConfiguration;
    if (
      !this.services.trust.require(
        'run-process',
        vscode.l10n.t('AgentJet: launching needs a trusted workspace (Workspaces: Manage Workspace Trust).'),
      )
    )
      return undefined;
    if (isSwarmClientLaunch(config)) return this.resolveSwarmClient(folder, config, token);
    if (!c.config) {
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: the launch configuration has no "config" (the YAML file to run).'));
      return undefined;
    }
    const cwd = c.cwd ?? folder?.uri.fsPath;
    const configPath = isAbsolute(c.config) || !cwd ? c.config : join(cwd, c.config);
    c.cwd = cwd;
    c.config = configPath;
    // The interpreter, the config check and the preflight take seconds: a notification says so, and
    // its Cancel stops the preparation through the launch's owner (no session, so no Stop, yet).
    const prepared = await this.prepare(folder, c, configPath, cwd, token);
    if (!prepared) return undefined;
    const { errors, pre } = prepared;
    if (errors.length) {
      const openProblems = vscode.l10n.t('Open Problems');
      const openConfig = vscode.l10n.t('Open Config');
      // A dialog, so the problems read as a list (a notification runs lines together).
      const pick = await vscode.window.showErrorMessage(
        errors.length === 1
          ? vscode.l10n.t('AgentJet did not start: {0} has 1 error.', vscode.workspace.asRelativePath(configPath))
          : vscode.l10n.t('AgentJet did not start: {0} has {1} errors.', vscode.workspace.asRelativePath(configPath), errors.length),
        { modal: true, detail: refusalDetail(errors) },
        openProblems,
        openConfig,
      );
      if (pick === openProblems) await vscode.commands.executeCommand('workbench.actions.view.problems');
      if (pick === openConfig) {
        const at = errors[0]!.range.start;
        await vscode.window.showTextDocument(vscode.Uri.file(configPath), {
          selection: new vscode.Range(at.line, at.character, at.line, at.character),
        });
      }
      return undefined;
    }
    if (!pre) return undefined;
    if (!pre.ok) {
      this.services.log.warn(`debug: refused ${configPath}: ${pre.refusal.message}`);
      const retry = (env?: Record<string, string>): void => {
        const again = { ...c, ...(env ? { env: { ...(c.env ?? {}), ...env } } : {}) };
        void vscode.debug.startDebugging(folder, again);
      };
      this.notify(pre.refusal, retry);
      return undefined;
    }
    return c;
  }

  /**
   * The interpreter, the config's errors and the preflight, under a progress notification whose
   * Cancel stops the preparation (the launch's owner: the step in flight is given up, its probe
   * cancelled); undefined when cancelled.
   */
  private prepare(
    folder: vscode.WorkspaceFolder | undefined,
    c: AgentJetDebugConfiguration,
    configPath: string,
    cwd: string | undefined,
    token?: vscode.CancellationToken,
  ): Thenable<{ errors: LintDiagnostic[]; pre?: Preflighted | Planned } | undefined> {
    const owner = new LaunchOwner({ watchdog: false });
    const title = vscode.l10n.t('AgentJet: preparing {0}', vscode.workspace.asRelativePath(configPath, false));
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, cancel) => {
        const stop = () => {
          this.services.log.info(`debug: preparation of ${configPath} cancelled`);
          owner.requestStop();
        };
        const subs = [cancel.onCancellationRequested(stop), ...(token ? [token.onCancellationRequested(stop)] : [])];
        this.preparing = owner;
        try {
          progress.report({ message: vscode.l10n.t('interpreter') });
          if (!c.python) {
            const py = await owner.step('plan', () =>
              resolvePython(folder ?? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(configPath)), token),
            );
            c.python = py.path;
            this.services.log.info(`debug: interpreter ${py.path} (from ${py.source})`);
          }
          // The adapter refuses broken configs too; here the user can jump to Problems.
          progress.report({ message: vscode.l10n.t('checking the config') });
          const lint = await owner.step('plan', () => lintForLaunch(configPath, cwd, c.python));
          const errors = lint.filter((d) => d.severity === 'error');
          if (errors.length) return { errors };
          // The adapter runs the same preflight; here a refusal gets our actions instead of VS Code's
          // "Open 'launch.json'" dialog.
          progress.report({ message: vscode.l10n.t('checking the environment') });
          const launch = resolveAttributes({ ...c, config: configPath, ...(cwd ? { cwd } : {}), noDebug: c.noDebug === true });
          const planned = await owner.step('plan', () => planLaunch(launch, { lint: false }));
          const pre = planned.ok
            ? await owner.step('preflight', (signal) => preflightLaunch(planned.plan, !launch.noDebug, { signal }))
            : planned;
          if (token?.isCancellationRequested) return undefined;
          return { errors: [], pre };
        } catch (e) {
          if (e instanceof LaunchStopped) return undefined;
          throw e;
        } finally {
          if (this.preparing === owner) this.preparing = undefined;
          for (const d of subs) d.dispose();
        }
      },
    );
  }

  /** The preparation in flight (tests, and Stop before the session exists). */
  preparing: LaunchOwner | undefined;

  /** `swarmClient`: interpreter, attributes and the server checked; a refusal is said here, nothing starts. */
  private async resolveSwarmClient(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DebugConfiguration | undefined> {
    const c = config as vscode.DebugConfiguration & SwarmClientAttributes;
    c.cwd ??= folder?.uri.fsPath;
    if (!c.python) {
      const where =
        folder ?? (typeof c.swarmClient === 'string' ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(c.swarmClient)) : undefined);
      const py = await resolvePython(where, token);
      c.python = py.path;
      this.services.log.info(`debug: interpreter ${py.path} (from ${py.source})`);
    }
    const planned = planSwarmClient(c);
    const refusal = !planned.ok
      ? planned.message
      : planned.launch.url
        ? await checkSwarmServer(planned.launch.url).then((x) => (x.ok ? undefined : x.message))
        : undefined;
    if (token?.isCancellationRequested) return undefined;
    if (refusal) {
      this.services.log.warn(`debug: refused swarm client ${String(c.swarmClient)}: ${refusal}`);
      this.notify({ code: LAUNCH_ERRORS.preflight, kinds: ['args'], message: refusal });
      return undefined;
    }
    if (planned.ok) c.swarmClient = planned.launch.script;
    return c;
  }
}
