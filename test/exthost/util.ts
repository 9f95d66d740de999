import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AgentJetExports } from '../../extension/gate/main';

const EXTENSION_ID = 'agentjet-community.agentjet-vscode';

export function extension(): vscode.Extension<AgentJetExports> {
  const ext = vscode.extensions.getExtension<AgentJetExports>(EXTENSION_ID);
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
import { freePort } from '../util/net';

export { freePort };

/** The tests' Python, passed by test/harness/run-exthost.ts (ensureTestPython); Debian's as the fallback. */
export const TEST_PYTHON = process.env.AGENTJET_TEST_PYTHON ?? '/usr/bin/python3';

/** A copy of the demo config on a free vLLM port, so a suite never clashes with other runs. */
export async function configCopy(name: string, experiment: string, workflow = 'math_demo.workflow->MathWorkflow'): Promise<vscode.Uri> {
  const root = workspaceRoot().fsPath;
  const port = await freePort();
  const text = readFileSync(join(root, 'math_agent.yaml'), 'utf8')
    .replace('experiment_name: math_demo', `experiment_name: ${experiment}`)
    .replace('math_demo.workflow->MathWorkflow', workflow)
    .replace(/debug_first_n_tasks: \d+/, `debug_first_n_tasks: 1\n    debug_vllm_port: ${port}`);
  const file = join(root, name);
  writeFileSync(file, text);
  return vscode.Uri.file(file);
}

/** The stand-in backbone (a fake `ajet` package) to put on PYTHONPATH. */
export function standInBackbone(): string {
  return join(process.env.AGENTJET_REPO_ROOT ?? extension().extensionPath, 'test', 'fixtures', 'backbone');
}

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

/** What the agentjet debug adapter said, as a test watches it: breakpoint stops and problems. */
export interface AdapterWatch {
  stops: { threadId: number }[];
  /** Exit codes of the debuggee (`exited` events). */
  exits: number[];
  /** Failed responses, output events, adapter errors and exits. */
  problems: string[];
  dispose(): void;
}

export function watchAgentjetAdapter(): AdapterWatch {
  const stops: { threadId: number }[] = [];
  const exits: number[] = [];
  const problems: string[] = [];
  const tracker = vscode.debug.registerDebugAdapterTrackerFactory('agentjet', {
    createDebugAdapterTracker: () => ({
      onDidSendMessage: (m: {
        type?: string;
        event?: string;
        success?: boolean;
        message?: string;
        body?: { threadId?: number; reason?: string; output?: string; exitCode?: number; error?: { format?: string } };
      }) => {
        if (m.type === 'event' && m.event === 'exited') exits.push(m.body?.exitCode ?? -1);
        if (m.type === 'event' && m.event === 'stopped' && m.body?.reason === 'breakpoint') stops.push({ threadId: m.body.threadId ?? 0 });
        if (m.type === 'response' && m.success === false) problems.push(m.body?.error?.format ?? m.message ?? 'error');
        if (m.type === 'event' && m.event === 'output' && m.body?.output) problems.push(m.body.output);
      },
      onError: (e: Error) => problems.push(`adapter error: ${e.message}`),
      onExit: (code: number | undefined) => problems.push(`adapter exit ${code}`),
    }),
  });
  return { stops, exits, problems, dispose: () => tracker.dispose() };
}
