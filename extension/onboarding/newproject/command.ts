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
  /**
   * Open the folder afterwards. Default: a project inside an open workspace folder is added to the
   * workspace (VS Code reads a root folder's .vscode/launch.json only, and module paths and data
   * files resolve from the project folder); one outside the workspace is offered to open or add.
   * false: only open the workflow in the current window.
   */
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

export async function newProject(services: Services, args: NewProjectArgs = {}, state?: vscode.Memento): Promise<vscode.Uri | undefined> {
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
  const containing = vscode.workspace.getWorkspaceFolder(folder);
  const isRoot = containing !== undefined && containing.uri.toString() === folder.toString();
  const openIt = vscode.l10n.t('Open Folder');
  const addIt = vscode.l10n.t('Add to Workspace');
  let open = args.open;
  let add = false;
  if (open === undefined && containing && !isRoot && vscode.env.uiKind !== vscode.UIKind.Web) {
    // Inside the open folder: a root of its own, at once, so F5 finds its launch configuration.
    add = true;
  } else if (open === undefined && !isRoot) {
    // Outside the workspace, or in a browser: there adding a root reloads the window into an untitled
    // workspace, which a CI run saw come back with no folder at all. The user chooses.
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Created the AgentJet project {0}. Open it (or add it to the workspace) to debug a rollout (F5).', name),
      openIt,
      addIt,
    );
    open = choice === openIt;
    add = choice === addIt;
  }
  if (open) {
    // The window reloads into the project: the note shows its workflow there (see finishAdded).
    const workflow = vscode.Uri.joinPath(folder, template.workflowFile);
    await state?.update(ADDED_KEY, {
      folder: folder.toString(),
      file: workflow.toString(),
      name,
      at: Date.now(),
      opened: true,
    } satisfies AddedNote);
    await vscode.commands.executeCommand('vscode.openFolder', folder, { forceNewWindow: false });
    return folder;
  }
  // The workflow first: a single-folder window turns into a workspace when a root is added, and VS
  // Code restarts the extension host then (this code stops; the editor stays).
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, template.workflowFile));
  await vscode.window.showTextDocument(doc, { preview: false });
  if (add) {
    const note: AddedNote = { folder: folder.toString(), file: doc.uri.toString(), name, at: Date.now() };
    await state?.update(ADDED_KEY, note);
    await addWorkspaceFolder(folder, services);
    // Still here (the window was a workspace already): say it now.
    await state?.update(ADDED_KEY, undefined);
    sayAdded(note);
  }
  if (containing || add) void vscode.commands.executeCommand('setContext', HAS_CONFIG_KEY, true);
  return folder;
}

/** A project folder New Project added to the workspace, kept across the extension host restart that may follow. */
interface AddedNote {
  folder: string;
  /** The workflow to show again (VS Code in a browser reloads the window, editors and all). */
  file: string;
  name: string;
  at: number;
  /** The window was reopened on the project (rather than the project added as a root). */
  opened?: boolean;
}
const ADDED_KEY = 'agentjet.newProject.added';

function sayAdded(note: AddedNote): void {
  const openIt = vscode.l10n.t('Open Folder');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t('Created the AgentJet project {0} and added its folder to the workspace: F5 debugs a rollout.', note.name),
      openIt,
    )
    .then((choice) =>
      choice === openIt
        ? vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.parse(note.folder), { forceNewWindow: false })
        : undefined,
    );
}

/** After the restart adding a root may cause: the note is said once, when the folder is a root now. */
function finishAdded(state: vscode.Memento): void {
  const note = state.get<AddedNote>(ADDED_KEY);
  if (!note) return;
  void state.update(ADDED_KEY, undefined);
  const fresh = typeof note.at === 'number' && Date.now() - note.at < 120_000;
  if (!fresh || !vscode.workspace.workspaceFolders?.some((f) => f.uri.toString() === note.folder)) return;
  if (note.opened === true)
    void vscode.window.showInformationMessage(
      vscode.l10n.t('AgentJet project {0}: set a breakpoint in its workflow and press F5 to debug a rollout.', note.name),
    );
  else sayAdded(note);
  if (typeof note.file === 'string' && !vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === note.file))
    void vscode.window.showTextDocument(vscode.Uri.parse(note.file), { preview: false }).then(undefined, () => undefined);
}

/** Adds `folder` as the last workspace root (the first stays, so the extension host is not restarted) and waits for it. */
async function addWorkspaceFolder(folder: vscode.Uri, services: Services): Promise<void> {
  let sub: vscode.Disposable | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const added = new Promise<void>((resolve) => {
    // The event is late or never comes (a refused change): go on after a while, nothing waits forever.
    timer = setTimeout(resolve, 10_000);
    sub = vscode.workspace.onDidChangeWorkspaceFolders((e) => {
      if (e.added.some((f) => f.uri.toString() === folder.toString())) resolve();
    });
  }).finally(() => {
    clearTimeout(timer);
    sub?.dispose();
  });
  const at = vscode.workspace.workspaceFolders?.length ?? 0;
  if (!vscode.workspace.updateWorkspaceFolders(at, 0, { uri: folder })) {
    services.log.warn(`New project: VS Code refused to add ${folder.fsPath} to the workspace`);
    clearTimeout(timer);
    sub?.dispose();
    return;
  }
  await added;
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
      // AgentJet's tree or runs at the top count as configs (the probe does not search such a folder further).
      .then((r) => vscode.commands.executeCommand('setContext', HAS_CONFIG_KEY, !!(r.config || r.marker)))
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
      newProject(services, args && typeof args === 'object' ? args : {}, context.globalState),
    ),
    watcher.onDidCreate(rescan),
    watcher.onDidDelete(rescan),
    vscode.workspace.onDidChangeWorkspaceFolders(rescan),
    { dispose: forgetProbe },
  );
  // Not during activation: the scan starts once the extension host is idle.
  const timer = setTimeout(() => {
    refresh();
    finishAdded(context.globalState);
  }, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}
