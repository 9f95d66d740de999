// The acting tools (core/agents: wait, apply a fix, run one task, train, stop) as language-model
// tools. Each asks the user first: `prepareInvocation` returns a confirmation saying what will run,
// with which interpreter and on which GPUs (CUDA_VISIBLE_DEVICES), and VS Code calls `invoke` only on
// a yes. In Restricted Mode they are neither offered (package.json `when`) nor run. What they start
// is held by this window's AgentLaunches and ends, through each launch's owner, when the window
// closes (the extension is disposed); each owner's watchdog ends it if the extension host dies.
// A quick fix is a WorkspaceEdit the user can undo, saved so the config is linted as written.
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Services } from '../services';
import { ACT_TOOLS, AgentLaunches, callTool, type AgentTool, type AgentToolEnv } from '../../core/agents/tools';
import { fixAnswer, planFix } from '../../core/agents/fixTool';
import { checkArgs, type ToolArgs } from '../../core/agents/schema';
import { parseDotenv } from '../../core/launch/dotenv';
import { resolvePython } from '../debug/interpreter';

interface Prepared {
  invocationMessage?: string;
  confirmationMessages?: { title: string; message: string };
}
export interface ActingToolImpl {
  invoke(options: { readonly input: unknown }, token: vscode.CancellationToken): Promise<unknown>;
  prepareInvocation(options: { readonly input: unknown }, token: vscode.CancellationToken): Promise<Prepared>;
}

/** How long the launches of a closing window get to end (their watchdogs end what is left). */
const CLOSE_DEADLINE_MS = 10_000;

export interface ActingTools {
  /** The tool implementations by name (registered with vscode.lm where it exists). */
  readonly tools: ReadonlyMap<string, ActingToolImpl>;
  /** How many launches the acting tools of this window started (tests). */
  started(): number;
  /**
   * The window closes: nothing more starts, and every launch the tools started is stopped through its
   * owner (as Stop does). Also run when `context.subscriptions` are disposed. Resolves with the ids
   * not ended within the deadline (their watchdogs end them).
   */
  close(): Promise<string[]>;
}

const s = (a: ToolArgs, k: string): string => (typeof a[k] === 'string' ? (a[k] as string) : '');

export function actingTools(
  context: vscode.ExtensionContext,
  services: Services,
  envFor: (token: vscode.CancellationToken) => Promise<AgentToolEnv>,
): ActingTools {
  let launches: AgentLaunches | undefined;
  const own = () => (launches ??= new AgentLaunches());
  // Closed once, for good: a call after it is refused by AgentLaunches (nothing more starts).
  const close = (): Promise<string[]> => own().close(CLOSE_DEADLINE_MS);
  context.subscriptions.push({ dispose: () => void close() });
  // Trust is asked of the extension's one owner of it (extension/trust.ts), at each call.
  const trusted = () => services.trust.isTrusted();
  const folder = () => (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file');

  /** The interpreter and the GPUs a launch in the first folder would use. */
  const where = async (token: vscode.CancellationToken) => {
    const f = folder();
    const python = (await resolvePython(f, token)).path;
    const dotenv = f ? await readFile(join(f.uri.fsPath, '.env'), 'utf8').catch(() => '') : '';
    const gpus = process.env.CUDA_VISIBLE_DEVICES ?? parseDotenv(dotenv, process.env).CUDA_VISIBLE_DEVICES;
    return {
      python,
      gpus: gpus ?? vscode.l10n.t('all GPUs of this machine (CUDA_VISIBLE_DEVICES is not set)'),
      cwd: f?.uri.fsPath ?? '',
    };
  };
  const shownPath = (p: string) => (isAbsolute(p) ? p : p || '.');

  const confirmation = async (tool: AgentTool, a: ToolArgs, token: vscode.CancellationToken): Promise<Prepared['confirmationMessages']> => {
    switch (tool.name) {
      case 'agentjet_wait':
        return {
          title: vscode.l10n.t('Wait for an AgentJet run?'),
          message: vscode.l10n.t(
            'agentjet_wait watches {0} until it reaches what the agent asked, ends, stalls, or {1} s pass. It runs nothing.',
            shownPath(s(a, 'path')),
            typeof a.timeoutS === 'number' ? a.timeoutS : 300,
          ),
        };
      case 'agentjet_apply_fix':
        return {
          title: vscode.l10n.t('Apply a quick fix to {0}?', shownPath(s(a, 'path'))),
          message: vscode.l10n.t(
            "agentjet_apply_fix applies lint's quick fix on line {0} of {1} (Undo in the editor takes it back), saves the file and lints it again.",
            typeof a.line === 'number' ? a.line : 0,
            shownPath(s(a, 'path')),
          ),
        };
      case 'agentjet_debug_task': {
        const w = await where(token);
        return {
          title: vscode.l10n.t('Run task {0} on the debug backbone?', s(a, 'taskId')),
          message: vscode.l10n.t(
            'agentjet_debug_task runs `{0} -m ajet.launcher --backbone debug` in {1} on a derived config of {2} that reads only task {3} (your files are not changed). GPUs: {4}. Your workflow code runs.',
            w.python,
            w.cwd,
            shownPath(s(a, 'run') || s(a, 'config')),
            s(a, 'taskId'),
            w.gpus,
          ),
        };
      }
      case 'agentjet_train': {
        const w = await where(token);
        return {
          title: vscode.l10n.t('Start training {0} ({1})?', shownPath(s(a, 'config')), s(a, 'backbone')),
          message: vscode.l10n.t(
            'agentjet_train runs `{0} -m ajet.launcher --backbone {1} --conf {2}` in {3}, as the Train CodeLens does. GPUs: {4}. It runs until it ends, agentjet_stop or Stop ends it, or this window closes.',
            w.python,
            s(a, 'backbone'),
            shownPath(s(a, 'config')),
            w.cwd,
            w.gpus,
          ),
        };
      }
      default:
        return {
          title: vscode.l10n.t('Stop {0}?', s(a, 'run')),
          message: vscode.l10n.t('agentjet_stop stops {0}, which agent mode started in this window, as Stop does.', s(a, 'run')),
        };
    }
  };

  /** A quick fix as a WorkspaceEdit (undoable), the document saved, then the config linted again. */
  const applyFix = async (a: ToolArgs, env: AgentToolEnv, signal: AbortSignal): Promise<string> => {
    const plan = await planFix(a, env, signal);
    const uri = vscode.Uri.file(plan.file);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty || doc.getText() !== plan.text)
      throw new Error(vscode.l10n.t('{0} has unsaved changes; save it, then ask again.', plan.file));
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(plan.start), doc.positionAt(plan.end)), plan.newText);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('VS Code refused the edit of {0}.', plan.file));
    await doc.save();
    return fixAnswer(plan, env, signal);
  };

  const tools = new Map<string, ActingToolImpl>();
  for (const tool of ACT_TOOLS)
    tools.set(tool.name, {
      async prepareInvocation(options, token) {
        const checked = checkArgs(tool.inputSchema, options.input);
        // Nothing to confirm for a call that is refused anyway (its invoke says why).
        if (!trusted() || !checked.ok) return {};
        return { confirmationMessages: await confirmation(tool, checked.args, token) };
      },
      async invoke(options, token) {
        if (!trusted())
          throw new Error(vscode.l10n.t('{0} acts on the workspace: trust the workspace first (Restricted Mode runs nothing).', tool.name));
        const ac = new AbortController();
        const sub = token.onCancellationRequested(() => ac.abort());
        try {
          const env = { ...(await envFor(token)), launches: own() };
          const checked = checkArgs(tool.inputSchema, options.input);
          if (tool.name === 'agentjet_apply_fix' && checked.ok) return await applyFix(checked.args, env, ac.signal);
          const answer = await callTool(tool.name, options.input, env, ac.signal);
          services.log.info(`agents: ${tool.name} ${answer.isError ? 'failed' : 'answered'} (${answer.text.length} characters)`);
          if (answer.isError) throw new Error(answer.text);
          return answer.text;
        } finally {
          sub.dispose();
        }
      },
    });
  return { tools, started: () => launches?.started ?? 0, close };
}
