// AgentJet: New Project — pick a template and a folder, write the project, open it.
// Also keeps the `agentjet.workspaceHasConfig` context key the Runs view's welcome button uses.
import * as vscode from 'vscode';
import { ALL_TEMPLATES, conflicts, findTemplate, renderTemplate, type TemplateId } from '../../../core/templates';
import { t as coreT, normalizeLocale, setLocale } from '../../../core/l10n';
import type { Services } from '../../services';
import { forgetProbe, workspaceProbe } from '../../config/probe';

export const HAS_CONFIG_KEY = 'agentjet.workspaceHasConfig';

/** Arguments tests and the walkthrough may pass; missing ones are asked for. */
export interface NewProjectArgs {
  template?: TemplateId;
  /** The project folder (created when missing). */
  folder?: string;
  /** Open the folder afterwards (default: ask). false: only open the workflow in the current window. */
  open?: boolean;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function pickTemplate(): Promise<TemplateId | undefined> {
  const items = ALL_TEMPLATES.map((x) => ({ label: coreT(x.title), detail: coreT(x.description), id: x.id }));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('AgentJet: New Project'),
    placeHolder: vscode.l10n.t('Choose a template'),
  });
  return picked?.id;
}

async function pickFolder(template: TemplateId): Promise<vscode.Uri | undefined> {
  const parent = await vscode.window.showOpenDialog({
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Create the project here'),
    title: vscode.l10n.t('Where should the new project folder go?'),
    ...(vscode.workspace.workspaceFolders?.[0] ? { defaultUri: vscode.workspace.workspaceFolders[0].uri } : {}),
  });
  if (!parent?.[0]) return undefined;
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('AgentJet: New Project'),
    prompt: vscode.l10n.t('Name of the project folder'),
    value: `${template}_agent`,
    validateInput: (v) => (/^[A-Za-z0-9][\w.-]*$/.test(v.trim()) ? undefined : vscode.l10n.t('Use letters, digits, _ . and - only.')),
  });
  return name ? vscode.Uri.joinPath(parent[0], name.trim()) : undefined;
}

export async function newProject(services: Services, args: NewProjectArgs = {}): Promise<vscode.Uri | undefined> {
  const id = typeof args.template === 'string' ? args.template : await pickTemplate();
  if (!id) return undefined;
  const template = findTemplate(id);
  if (!template) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Unknown AgentJet template: {0}', String(id)));
    return undefined;
  }
  const folder = typeof args.folder === 'string' && args.folder ? vscode.Uri.file(args.folder) : await pickFolder(template.id);
  if (!folder) return undefined;
  const name = folder.path.split('/').filter(Boolean).pop() ?? 'agentjet_project';
  const files = renderTemplate(template.id, name);
  const present = new Set<string>();
  for (const rel of Object.keys(files)) if (await exists(vscode.Uri.joinPath(folder, rel))) present.add(rel);
  const clash = conflicts(files, (rel) => present.has(rel));
  if (clash.length) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} already has {1}; nothing was written.', folder.fsPath, clash.join(', ')));
    return undefined;
  }
  for (const [rel, text] of Object.entries(files)) {
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, rel), new TextEncoder().encode(text));
  }
  services.log.info(`New project (${template.id}) written to ${folder.fsPath}`);
  const inWorkspace = vscode.workspace.getWorkspaceFolder(folder) !== undefined;
  let open = args.open;
  if (open === undefined && !inWorkspace) {
    const openIt = vscode.l10n.t('Open Folder');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Created the AgentJet project {0}. Open it to debug a rollout (F5).', name),
      openIt,
    );
    open = choice === openIt;
  }
  if (open) {
    await vscode.commands.executeCommand('vscode.openFolder', folder, { forceNewWindow: false });
  } else {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, template.workflowFile));
    await vscode.window.showTextDocument(doc, { preview: false });
    if (inWorkspace) void vscode.commands.executeCommand('setContext', HAS_CONFIG_KEY, true);
  }
  return folder;
}

export function registerNewProject(context: vscode.ExtensionContext, services: Services): void {
  setLocale(normalizeLocale(vscode.env.language));
  let checking: Promise<void> | undefined;
  const refresh = (): void => {
    if (checking || !vscode.workspace.workspaceFolders?.length) {
      if (!vscode.workspace.workspaceFolders?.length) void vscode.commands.executeCommand('setContext', HAS_CONFIG_KEY, false);
      return;
    }
    checking = workspaceProbe()
      .then((r) => vscode.commands.executeCommand('setContext', HAS_CONFIG_KEY, !!r.config))
      .then(
        () => undefined,
        (e: unknown) => services.log.warn(`config scan failed: ${String(e)}`),
      )
      .finally(() => {
        checking = undefined;
      });
  };
  // YAML files came or went: the shared probe's answer is old.
  const rescan = (): void => {
    forgetProbe();
    refresh();
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{yaml,yml}', false, true, false);
  context.subscriptions.push(
    watcher,
    vscode.commands.registerCommand('agentjet.newProject', (args?: NewProjectArgs) =>
      newProject(services, args && typeof args === 'object' ? args : {}),
    ),
    watcher.onDidCreate(rescan),
    watcher.onDidDelete(rescan),
    vscode.workspace.onDidChangeWorkspaceFolders(rescan),
    { dispose: forgetProbe },
  );
  // Not during activation: the scan starts once the extension host is idle.
  const timer = setTimeout(refresh, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}
