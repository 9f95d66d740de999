// AgentJet: Check Environment — runs core/doctor for the folder's interpreter and shows a Markdown
// report (rendered by VS Code's Markdown engine into a panel of ours titled "AgentJet Environment",
// not a preview tab named "Preview AgentJet Environment.md"), then offers the first fix.
import * as vscode from 'vscode';
import { evaluate, summary, type Check } from '../../../core/doctor/checks';
import { gather } from '../../../core/doctor/run';
import { toMarkdown } from '../../../core/doctor/report';
import { agentJetCheckout, frameworkInstallCommand } from '../../../core/doctor/install';
import { normalizeLocale, setLocale } from '../../../core/l10n';
import { restrictedChecks } from '../../../core/doctor/restricted';
import { describePython, resolvePython } from '../../debug/interpreter';
import type { Services } from '../../services';
import { TRUST_COMMAND } from '../../../core/trust/policy';

const VIEW_TYPE = 'agentjet.environment';
const PORT_RE = /^\s*debug_vllm_port\s*:\s*(\d+)\s*$/m;

export interface EnvironmentReport {
  python: string;
  checks: Check[];
  markdown: string;
  /** Restricted Mode: nothing was run; the checks say what would run. */
  restricted?: boolean;
}

function portOfActiveConfig(): number {
  const doc = vscode.window.activeTextEditor?.document;
  const m = doc?.languageId === 'yaml' ? PORT_RE.exec(doc.getText()) : null;
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : 18000;
}

export async function checkEnvironment(services: Services, show = true, token?: vscode.CancellationToken): Promise<EnvironmentReport> {
  setLocale(normalizeLocale(vscode.env.language));
  const folder = vscode.window.activeTextEditor
    ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)
    : vscode.workspace.workspaceFolders?.[0];
  if (!services.trust.allows('run-process')) {
    // Restricted Mode: the report says what would run, and nothing does (not even to find the interpreter).
    const interp = await describePython(folder);
    const checks = restrictedChecks({ python: interp.path, pythonSource: interp.source, cwd: folder?.uri.fsPath ?? process.cwd() });
    const report = { python: interp.path, checks, markdown: toMarkdown(checks, interp.path), restricted: true };
    services.log.info(`environment check: not run in Restricted Mode (would run ${interp.path})`);
    if (show) await showReport(report, services.extensionUri);
    return report;
  }
  const interp = await resolvePython(folder, token);
  const { DOCTOR_PROBE } = await import('../../../core/doctor/script');
  const abort = new AbortController();
  const sub = token?.onCancellationRequested(() => abort.abort());
  try {
    const input = await gather({
      python: interp.path,
      pythonSource: interp.source,
      script: DOCTOR_PROBE,
      cwd: folder?.uri.fsPath ?? process.cwd(),
      port: portOfActiveConfig(),
      trusted: services.trust.isTrusted(),
      signal: abort.signal,
      imports: true,
    });
    const checks = evaluate(input);
    const report = { python: interp.path, checks, markdown: toMarkdown(checks, interp.path) };
    services.log.info(`environment check: ${JSON.stringify(summary(checks))} for ${interp.path}`);
    if (show) await showReport(report, services.extensionUri);
    return report;
  } finally {
    sub?.dispose();
  }
}

let panel: vscode.WebviewPanel | undefined;

async function showReport(report: EnvironmentReport, extensionUri: vscode.Uri): Promise<void> {
  // VS Code's own Markdown engine (the preview's), so the report reads as before; its command links
  // (Copy, Open Setting) work in the panel.
  const body = await vscode.commands.executeCommand<string>('markdown.api.render', report.markdown);
  panel ??= createPanel(extensionUri);
  panel.webview.html = reportHtml(panel.webview, extensionUri, body);
  panel.reveal(undefined, false);
  // The command ends here; the offer of the first fix stays open without holding it.
  void offerFix(report);
}

function createPanel(extensionUri: vscode.Uri): vscode.WebviewPanel {
  const p = vscode.window.createWebviewPanel(VIEW_TYPE, vscode.l10n.t('AgentJet Environment'), vscode.ViewColumn.Active, {
    // The report's fixes (core/doctor/report.ts) and nothing else.
    enableCommandUris: [
      'agentjet.copyInstallCommand',
      'workbench.action.openSettings',
      'agentjet.stopCompanions',
      'workbench.trust.manage',
      TRUST_COMMAND,
    ],
    enableFindWidget: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')],
  });
  p.onDidDispose(() => {
    if (panel === p) panel = undefined;
  });
  return p;
}

/** The rendered report: no script at all (the CSP allows none), the shared look. */
function reportHtml(webview: vscode.Webview, extensionUri: vscode.Uri, body: string): string {
  const base = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'shared', 'base.css'));
  const csp = ["default-src 'none'", `img-src ${webview.cspSource} data:`, `style-src ${webview.cspSource}`].join('; ');
  return `<!DOCTYPE html>
<html><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="${base.toString()}"><title>${vscode.l10n.t('AgentJet Environment').replace(/[<>&"]/g, '')}</title></head>
<body class="vscode-body">${body}</body></html>`;
}

async function offerFix(report: EnvironmentReport): Promise<void> {
  if (report.restricted) {
    const trust = vscode.l10n.t('Trust…');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('AgentJet environment: not checked, this folder is in Restricted Mode. Trust it to run the check.'),
      trust,
    );
    if (pick === trust) await vscode.commands.executeCommand(TRUST_COMMAND);
    return;
  }
  const first = report.checks.find((c) => c.status === 'error' && c.fix) ?? report.checks.find((c) => c.status === 'warning' && c.fix);
  const s = summary(report.checks);
  if (!first?.fix) {
    if (!s.errors) void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet environment: everything needed is in place.'));
    return;
  }
  const fix = first.fix;
  const action =
    fix.kind === 'shell' ? vscode.l10n.t('Copy Install Command') : fix.kind === 'setting' ? vscode.l10n.t('Open Setting') : fix.label;
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('AgentJet environment: {0} error(s), {1} warning(s). {2}: {3}', s.errors, s.warnings, first.title, first.detail),
    action,
  );
  if (choice !== action) return;
  if (fix.kind === 'shell') {
    await vscode.env.clipboard.writeText(fix.value);
    void vscode.window.showInformationMessage(vscode.l10n.t('Copied: {0}', fix.value));
  } else if (fix.kind === 'setting') {
    await vscode.commands.executeCommand('workbench.action.openSettings', fix.value);
  } else {
    await vscode.commands.executeCommand(fix.value);
  }
}

/**
 * Copies an install command: the one given (a report's or refusal's), else AgentJet's own install
 * for the folder's interpreter as its installation guide says (core/doctor/install.ts).
 */
async function copyInstallCommand(services: Services, text?: unknown): Promise<string> {
  let command = typeof text === 'string' && text.trim() ? text : undefined;
  if (!command) {
    const folder = vscode.workspace.workspaceFolders?.[0];
    // Only text is made here; in Restricted Mode the interpreter is named without asking anyone.
    const interp = services.trust.allows('resolve-interpreter') ? await resolvePython(folder) : await describePython(folder);
    command = frameworkInstallCommand(interp.path, { checkout: agentJetCheckout(folder?.uri.fsPath) });
  }
  await vscode.env.clipboard.writeText(command);
  void vscode.window.showInformationMessage(vscode.l10n.t('Copied: {0}', command));
  return command;
}

export function registerCheckEnvironment(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentjet.copyInstallCommand', (text?: unknown) => copyInstallCommand(services, text)),
    vscode.commands.registerCommand('agentjet.checkEnvironment', () =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the AgentJet environment…'), cancellable: true },
        (_p, token) => checkEnvironment(services, true, token),
      ),
    ),
  );
}
