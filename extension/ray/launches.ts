// The Ray feature's launch commands: "Debug training with editor breakpoints in Ray workers" and
// "Debug training with this tag" (CodeLens on bp("TAG") and a quick pick). Each picks the launch to
// start (a launch.json entry of ours, else a config of the workspace trained with verl) and starts it.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { workspaceTags } from './bpCodeLens';
import { debugTagsArg } from '../../core/ray/tags';
import { DEBUG_TYPE, debugConfigurationFor, findAgentJetConfigs, type AgentJetDebugConfiguration } from '../debug/configs';

/** The launch to start: our launch.json entry (asked when several), else a config of the workspace with backbone verl. */
async function chooseBase(folder: vscode.WorkspaceFolder | undefined, what: string): Promise<vscode.DebugConfiguration | undefined> {
  // A launch.json entry of ours first, else a config found in the workspace.
  const launches = (vscode.workspace.getConfiguration('launch', folder).get<vscode.DebugConfiguration[]>('configurations') ?? []).filter(
    (c) => c.type === DEBUG_TYPE && c.request === 'launch',
  );
  let base: vscode.DebugConfiguration | undefined;
  if (launches.length === 1) base = launches[0];
  else if (launches.length > 1) {
    const p = await vscode.window.showQuickPick(
      launches.map((c) => ({ label: String(c.name), c })),
      { title: vscode.l10n.t('Launch which configuration with {0}?', what) },
    );
    base = p?.c;
    if (!base) return undefined;
  } else {
    const found = await findAgentJetConfigs(folder);
    const uri =
      found.length === 1
        ? found[0]
        : (
            await vscode.window.showQuickPick(
              found.map((u) => ({ label: vscode.workspace.asRelativePath(u), u })),
              { title: vscode.l10n.t('Train which config with {0}?', what) },
            )
          )?.u;
    if (!uri) {
      if (!found.length)
        void vscode.window.showErrorMessage(
          vscode.l10n.t('AgentJet: no AgentJet config (YAML with an `ajet:` root) in the workspace to train.'),
        );
      return undefined;
    }
    const c: AgentJetDebugConfiguration = { ...debugConfigurationFor(uri, folder), backbone: 'verl', openTokenLogOnFinish: false };
    base = c;
  }
  return base;
}

/** Launches training with editor breakpoints in Ray workers (`rayBreakpoints`); `from`: a config's CodeLens. */
export async function debugWithBreakpoints(services: Services, from?: vscode.Uri): Promise<boolean> {
  if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: launching needs a trusted workspace.'))) return false;
  const folder = (from && vscode.workspace.getWorkspaceFolder(from)) ?? vscode.workspace.workspaceFolders?.[0];
  // From a config's CodeLens: that config, trained with verl; otherwise ask.
  const base =
    from && /\.ya?ml$/i.test(from.fsPath)
      ? ({ ...debugConfigurationFor(from, folder), backbone: 'verl', openTokenLogOnFinish: false } as AgentJetDebugConfiguration)
      : await chooseBase(folder, vscode.l10n.t('editor breakpoints in Ray workers'));
  if (!base) return false;
  const config: vscode.DebugConfiguration = {
    ...base,
    name: vscode.l10n.t('{0} (Ray breakpoints)', String(base.name)),
    rayBreakpoints: true,
  };
  services.log.info(`ray: launching ${config.name} with editor breakpoints in Ray workers`);
  return vscode.debug.startDebugging(folder, config);
}

/** Launches training that pauses Ray workers at bp(tag) (`rayDebug` + `debugTags`); asks for the tag when none is given. */
export async function debugWithTag(services: Services, tag?: string, from?: vscode.Uri): Promise<boolean> {
  if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: launching needs a trusted workspace.'))) return false;
  let chosen = tag;
  if (!chosen) {
    const tags = await workspaceTags();
    const picked = await vscode.window.showQuickPick(
      [...tags.entries()].map(([t, locs]) => ({
        label: t,
        description: vscode.l10n.t('{0} call(s)', locs.length),
        detail: locs
          .slice(0, 3)
          .map((l) => `${vscode.workspace.asRelativePath(l.uri)}:${l.range.start.line + 1}`)
          .join(', '),
      })),
      {
        title: vscode.l10n.t('Debug training with which bp() tag?'),
        placeHolder: tags.size ? undefined : vscode.l10n.t('No bp("TAG") call found in the workspace'),
      },
    );
    chosen = picked?.label;
  }
  if (!chosen) return false;
  const folder = (from && vscode.workspace.getWorkspaceFolder(from)) ?? vscode.workspace.workspaceFolders?.[0];
  const base = await chooseBase(folder, vscode.l10n.t('tag {0}', chosen));
  if (!base) return false;
  const tags = [...new Set([...((base.debugTags as string[] | undefined) ?? []), chosen])];
  const config: vscode.DebugConfiguration = {
    ...base,
    name: vscode.l10n.t('{0} (bp {1})', String(base.name), chosen),
    rayDebug: true,
    debugTags: tags,
  };
  services.log.info(`ray: launching ${config.name} with --debug ${debugTagsArg(tags)}`);
  return vscode.debug.startDebugging(folder, config);
}
