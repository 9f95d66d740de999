import { appendFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AgentJetApi } from '../../extension/extension';

const EXTENSION_ID = 'agentjet-community.agentjet-vscode';

export function extension(): vscode.Extension<AgentJetApi> {
  const ext = vscode.extensions.getExtension<AgentJetApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext;
}

/** The folder the harness opened (a temporary copy of demo/). */
export function workspaceRoot(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder open');
  return folder.uri;
}

export { waitFor } from '../util/poll';

/** Resolves with the next event of `event` that satisfies `pred`, or rejects after the timeout. */
export function nextEvent<T>(event: vscode.Event<T>, pred: (e: T) => boolean = () => true, timeoutMs = 20_000, what = 'event'): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const sub = event((e) => {
      if (pred(e)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(e);
      }
    });
  });
}

/** A line for the harness log (the extension host's console is not echoed verbatim). */
export function note(message: string): void {
  const file = process.env.AGENTJET_TEST_LOG;
  if (file) appendFileSync(file, `      · ${message}\n`);
  else console.log(message);
}
