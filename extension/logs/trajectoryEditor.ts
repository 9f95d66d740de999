// The `agentjet.trajectory` custom editor: a trajectory JSON file as a chat transcript.
import * as vscode from 'vscode';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseTrajectory } from '../../core/logs/trajectory';
import type { TrajectoryHostToView } from '../../core/protocol/tokenlog';
import { checkTrajectoryViewToHost, describeRefused } from '../../core/protocol/validate';
import { webviewHtml, webviewOptions } from '../webview';
import type { Services } from '../services';

export const TRAJECTORY_VIEW_TYPE = 'agentjet.trajectory';
const MAX_BYTES = 64 * 1024 * 1024;

export class TrajectoryEditorProvider implements vscode.CustomReadonlyEditorProvider {
  /** Test hook: the latest report of each open trajectory view, by path. */
  readonly reports = new Map<string, { messages: number; timelines: number; error?: string }>();

  constructor(private readonly services: Services) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => this.reports.delete(uri.fsPath) };
  }

  resolveCustomEditor(doc: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const ext = this.services.extensionUri;
    panel.webview.options = webviewOptions(ext);
    panel.webview.html = webviewHtml(panel.webview, ext, 'trajectory', {
      title: vscode.l10n.t('Trajectory: {0}', basename(doc.uri.fsPath)),
      styles: ['shared/panel.css', 'trajectory/trajectory.css'],
    });
    const post = (m: TrajectoryHostToView) => void panel.webview.postMessage(m);
    const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
      const checked = checkTrajectoryViewToHost(raw);
      if (!checked.ok) {
        this.services.log.warn(`trajectory: refused a message from the webview (${describeRefused(raw)}: ${checked.error})`);
        return;
      }
      const m = checked.value;
      if (m.type === 'ready') {
        const name = basename(doc.uri.fsPath);
        try {
          const st = await stat(doc.uri.fsPath);
          if (st.size > MAX_BYTES) {
            post({
              type: 'trajectory',
              name,
              ok: false,
              error: `file too large for the transcript view (${(st.size / 1048576).toFixed(0)} MB)`,
            });
            return;
          }
          const parsed = parseTrajectory(await readFile(doc.uri.fsPath, 'utf8'));
          post(
            parsed.ok
              ? { type: 'trajectory', name, ok: true, data: parsed.data }
              : { type: 'trajectory', name, ok: false, error: parsed.error },
          );
        } catch (err) {
          post({ type: 'trajectory', name, ok: false, error: `cannot read ${name}: ${err instanceof Error ? err.message : String(err)}` });
        }
      } else if (m.type === 'openRaw') {
        await vscode.commands.executeCommand('vscode.openWith', doc.uri, 'default');
      } else if (m.type === 'report') {
        this.reports.set(doc.uri.fsPath, { messages: m.messages, timelines: m.timelines, error: m.error });
      }
    });
    panel.onDidDispose(() => sub.dispose());
  }
}
