import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { normalizeLocale, webviewCatalogue } from '../core/l10n';

/** Webview options every AgentJet webview uses: scripts on, resources only from media/ and dist/. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist')],
  };
}

/**
 * The HTML shell of a webview: a nonce CSP with no remote content, the bundled script
 * `dist/media/<name>.js`, the look every webview shares (`media/shared/base.css`) and then the
 * webview's own `styles` (paths below `media/`).
 */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  name: string,
  opts: { title: string; styles?: string[] },
): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'media', `${name}.js`));
  const styles = ['shared/base.css', ...(opts.styles ?? [])].map((s) =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', s)),
  );
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const title = opts.title.replace(/[<>&"]/g, '');
  // The webview's strings in the display language (media/shared/l10n.ts reads this data block; a
  // JSON block is not executed, and `<` is escaped so no text can close it).
  const l10n = JSON.stringify(webviewCatalogue(vscode.env.language)).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="${normalizeLocale(vscode.env.language) === 'zh-cn' ? 'zh-CN' : 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.map((s) => `<link rel="stylesheet" href="${s.toString()}">`).join('\n')}
<title>${title}</title>
</head>
<body>
<div id="root" role="application" aria-label="${title}"></div>
<script type="application/json" id="agentjet-l10n">${l10n}</script>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
