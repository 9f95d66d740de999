// AgentJet for coding agents in VS Code: the tools of core/agents/tools.ts as language-model tools
// (agent mode calls them with this workspace's state: its folders, the Runs view's roots, the
// folder's interpreter when trusted), `agentjet mcp` offered to VS Code as an MCP server definition,
// and a command that writes an MCP client's config (VS Code, Claude Code) and copies AgentJet's own
// skills where those clients look for them. The language-model API arrived after the engine
// version this extension declares: every use is guarded, and a VS Code without it gets the
// command only.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Services } from '../services';
import { AGENT_TOOLS, callTool, type AgentToolEnv } from '../../core/agents/tools';
import { MetricsThread, OffThreadMetricsReader } from '../../core/metrics/offThread';
import { findAgentJet, listSkills, skillFileBytes, type AgentJetSkill } from '../../core/agents/skills';
import { mcpLaunch, withServerEntry } from '../../core/agents/clientConfig';
import { resolvePython } from '../debug/interpreter';
import { actingTools, type ActingToolImpl } from './acting';
import { agentsSwarmAnyUrl, offerMcpServer, runsStallMinutes } from '../settings';

// ---------------------------------------------------------------- the parts of vscode.lm we use

interface ToolInvocationOptions {
  readonly input: unknown;
}
interface PreparedToolInvocation {
  invocationMessage?: string;
  confirmationMessages?: { title: string; message: string };
}
interface LanguageModelToolImpl {
  invoke(options: ToolInvocationOptions, token: vscode.CancellationToken): Promise<unknown>;
  prepareInvocation?(
    options: ToolInvocationOptions,
    token: vscode.CancellationToken,
  ): PreparedToolInvocation | undefined | Promise<PreparedToolInvocation | undefined>;
}
interface McpServerDefinitionProviderImpl {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
}
interface LmApi {
  registerTool?(name: string, tool: LanguageModelToolImpl): vscode.Disposable;
  registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProviderImpl): vscode.Disposable;
}
interface LmClasses {
  lm?: LmApi;
  LanguageModelToolResult?: new (content: unknown[]) => unknown;
  LanguageModelTextPart?: new (value: string) => unknown;
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string>,
    version?: string,
  ) => unknown;
}

const api = vscode as unknown as LmClasses;

/** The provider id declared in package.json (`contributes.mcpServerDefinitionProviders`). */
const MCP_PROVIDER_ID = 'agentjet.mcp';

export interface AgentsProbe {
  /** The tools as registered with vscode.lm (empty when this VS Code has no language-model tools API). */
  readonly registered: readonly string[];
  /** How many launches the acting tools of this window started. */
  actingStarted(): number;
  /** The acting tools as registered (their prepareInvocation is the question VS Code asks). */
  readonly acting: ReadonlyMap<string, ActingToolImpl>;
  /** Stops what the acting tools started, as Stop does (deactivate awaits it: the window closes). */
  close(): Promise<string[]>;
}

export function registerAgentsFeature(context: vscode.ExtensionContext, services: Services): AgentsProbe {
  const registered: string[] = [];
  let actingStarted = (): number => 0;
  let closeActing = (): Promise<string[]> => Promise.resolve([]);
  let acting: ReadonlyMap<string, ActingToolImpl> = new Map();
  // The metrics tools read event files on a worker thread (a 200 MB file is seconds of decoding).
  const metricsThread = new MetricsThread();
  context.subscriptions.push({ dispose: () => metricsThread.dispose() });
  const envFor = async (token: vscode.CancellationToken): Promise<AgentToolEnv> => {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    const trusted = vscode.workspace.isTrusted;
    let runRoots: string[] = [];
    try {
      runRoots = await services.get('runs').roots();
    } catch (err) {
      services.log.warn(`agents: the Runs view's roots: ${err instanceof Error ? err.message : String(err)}`);
    }
    const roots = [...folders.map((f) => f.uri.fsPath), ...runRoots.filter((r) => !folders.some((f) => r.startsWith(f.uri.fsPath)))];
    return {
      roots,
      mayRunPython: trusted,
      // The interpreter is found (and run) only when a tool needs it, and only in a trusted workspace.
      python: async () => (trusted ? (await resolvePython(folders[0], token)).path : undefined),
      swarm: {
        known: () => services.get('swarmServers').known(),
        anyUrl: agentsSwarmAnyUrl(),
        allowHow: vscode.l10n.t('the user setting agentjet.agents.swarmAnyUrl'),
      },
      runRoots: () => Promise.resolve(runRoots.length ? runRoots : folders.map((f) => f.uri.fsPath)),
      stallMinutes: runsStallMinutes(),
      metricsReader: (sources) => new OffThreadMetricsReader(sources, metricsThread),
      ...(services.storageDir
        ? { factsCacheDir: join(services.storageDir, 'facts'), logCacheDir: join(services.storageDir, 'tokenlog') }
        : {}),
    };
  };

  // Loaded by the first stage: it registered the tools and the MCP list already; ours are bound to those.
  const gate = services.gate;
  const real = api.lm;
  const lm: LmApi | undefined =
    gate && real
      ? {
          ...(real.registerTool ? { registerTool: (name: string, tool: LanguageModelToolImpl) => gate.registerTool(name, tool) } : {}),
          ...(real.registerMcpServerDefinitionProvider
            ? { registerMcpServerDefinitionProvider: (_id: string, p: McpServerDefinitionProviderImpl) => gate.registerMcpProvider(p) }
            : {}),
        }
      : real;
  const Result = api.LanguageModelToolResult;
  const TextPart = api.LanguageModelTextPart;
  if (lm?.registerTool && Result && TextPart) {
    for (const tool of AGENT_TOOLS) {
      try {
        context.subscriptions.push(
          lm.registerTool(tool.name, {
            // A tool that runs the interpreter and a script of its own (the doctor) is never called
            // without the user's yes: what readOnlyHint false asks of MCP clients (core/agents/toolkit.ts).
            // The config tools' package lookup runs what the trusted workspace's language server runs anyway.
            prepareInvocation: () =>
              tool.runsWorkspaceCode === 'always'
                ? {
                    confirmationMessages: {
                      title: vscode.l10n.t("Run the workspace's Python interpreter?"),
                      message: vscode.l10n.t(
                        '{0} runs the Python interpreter of this workspace (its own code and packages) to answer.',
                        tool.name,
                      ),
                    },
                  }
                : undefined,
            async invoke(options, token) {
              const ac = new AbortController();
              const sub = token.onCancellationRequested(() => ac.abort());
              try {
                const answer = await callTool(tool.name, options.input, await envFor(token), ac.signal);
                services.log.info(`agents: ${tool.name} ${answer.isError ? 'failed' : 'answered'} (${answer.text.length} characters)`);
                // An error goes back to the model as one (it reads the message and may try otherwise).
                if (answer.isError) throw new Error(answer.text);
                return new Result([new TextPart(answer.text)]);
              } finally {
                sub.dispose();
              }
            },
          }),
        );
        registered.push(tool.name);
      } catch (err) {
        // A tool VS Code refuses (not declared, a duplicate) is logged; the others and the extension go on.
        services.log.warn(`agents: ${tool.name} was not registered: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // The acting tools: each asks the user first (extension/agents/acting.ts).
    const made = actingTools(context, services, envFor);
    actingStarted = made.started;
    closeActing = made.close;
    acting = made.tools;
    for (const [name, impl] of made.tools) {
      try {
        context.subscriptions.push(
          lm.registerTool(name, {
            prepareInvocation: (options, token) => impl.prepareInvocation(options, token),
            invoke: async (options, token) => new Result([new TextPart(String(await impl.invoke(options, token)))]),
          }),
        );
        registered.push(name);
      } catch (err) {
        services.log.warn(`agents: ${name} was not registered: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } else services.log.info('agents: this VS Code has no language-model tools API (vscode.lm.registerTool); the MCP command still works');

  // VS Code's own MCP list: off by default (agent mode already has the tools above; the same tools twice confuse it).
  const Definition = api.McpStdioServerDefinition;
  if (lm?.registerMcpServerDefinitionProvider && Definition) {
    // VS Code 1.100 had this API under another contribution name (modelContextServerCollections, also
    // declared); a VS Code that refuses it anyway costs the MCP listing, never the extension's activation.
    try {
      const changed = new vscode.EventEmitter<void>();
      context.subscriptions.push(changed);
      const provider = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions: () =>
          offerMcpServer()
            ? (vscode.workspace.workspaceFolders ?? [])
                .filter((f) => f.uri.scheme === 'file')
                .map((f) => {
                  const l = mcpLaunch(context.extensionPath, f.uri.fsPath, vscode.workspace.isTrusted);
                  return new Definition(`AgentJet (${f.name})`, l.command, l.args, l.env, String(context.extension.packageJSON.version));
                })
            : [],
      });
      context.subscriptions.push(
        provider,
        vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
        vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
        vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('agentjet.agents.offerMcpServer') && changed.fire()),
      );
    } catch (err) {
      services.log.warn(`agents: the MCP server definition provider was refused: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('agentjet.agents.writeMcpConfig', () => writeMcpConfig(context, services)),
    vscode.commands.registerCommand('agentjet.agents.copySkills', () => copySkills(services)),
  );
  return { registered, actingStarted: () => actingStarted(), acting, close: () => closeActing() };
}

// ---------------------------------------------------------------- MCP client configs

type Client = 'vscode' | 'claude' | 'other';

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Which folder may the AgentJet MCP server read?') });
}

async function writeMcpConfig(context: vscode.ExtensionContext, services: Services): Promise<void> {
  const folder = await pickFolder();
  if (!folder) {
    void vscode.window.showWarningMessage(vscode.l10n.t('AgentJet: open a folder first; the MCP server reads inside it.'));
    return;
  }
  const picked = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('VS Code agent mode'), description: '.vscode/mcp.json', client: 'vscode' as Client },
      { label: vscode.l10n.t('Claude Code'), description: '.mcp.json', client: 'claude' as Client },
      {
        label: vscode.l10n.t('Another MCP client'),
        description: vscode.l10n.t('copy the command to the clipboard'),
        client: 'other' as Client,
      },
    ],
    { placeHolder: vscode.l10n.t('Which coding agent should find the AgentJet MCP server?') },
  );
  if (!picked) return;
  const launch = mcpLaunch(context.extensionPath, folder.uri.fsPath, vscode.workspace.isTrusted);
  const entry = JSON.stringify(
    { agentjet: { command: launch.command, args: launch.args, ...(Object.keys(launch.env).length ? { env: launch.env } : {}) } },
    null,
    2,
  );
  if (picked.client === 'other') {
    await vscode.env.clipboard.writeText(entry);
    void vscode.window.showInformationMessage(
      vscode.l10n.t("AgentJet: the MCP server entry is on the clipboard; add it to your client's MCP servers."),
    );
    return;
  }
  const file = join(folder.uri.fsPath, picked.client === 'vscode' ? join('.vscode', 'mcp.json') : '.mcp.json');
  try {
    const existing = existsSync(file) ? await readFile(file, 'utf8') : undefined;
    const text = withServerEntry(existing, picked.client, launch);
    if (text === undefined) {
      await vscode.env.clipboard.writeText(entry);
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'AgentJet: {0} is not plain JSON (comments?), so it was left as it is; the server entry is on the clipboard to add by hand.',
          file,
        ),
      );
      return;
    }
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
    const skills = await skillsOf(folder);
    const more = vscode.l10n.t("Copy AgentJet's skills");
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'AgentJet: {0} now starts the AgentJet MCP server. Run this command again after updating VS Code or the extension (the paths change).',
        file,
      ),
      ...(skills.length ? [more] : []),
    );
    if (choice === more) await copySkillsTo(folder, picked.client === 'claude' ? '.claude' : '.github', skills, services);
  } catch (err) {
    services.report(vscode.l10n.t('writing the MCP config'), err);
  }
}

// ---------------------------------------------------------------- AgentJet's skills

async function skillsOf(folder: vscode.WorkspaceFolder): Promise<AgentJetSkill[]> {
  // The installed package is found by running the interpreter: only in a trusted workspace.
  const python = vscode.workspace.isTrusted ? (await resolvePython(folder)).path : undefined;
  const found = await findAgentJet(folder.uri.fsPath, python);
  return found ? listSkills(found.pkgDir) : [];
}

async function copySkills(services: Services): Promise<void> {
  const folder = await pickFolder();
  if (!folder) return;
  const skills = await skillsOf(folder);
  if (!skills.length) {
    void vscode.window.showInformationMessage(
      vscode.workspace.isTrusted
        ? vscode.l10n.t(
            "AgentJet: no skills found: neither a checkout in this folder nor the interpreter's AgentJet has ajet/copilot/*/SKILL.md (AgentJet 0.0.4 or later ships them).",
          )
        : vscode.l10n.t("AgentJet: no checkout with skills in this folder; trust the workspace to look in the interpreter's AgentJet."),
    );
    return;
  }
  const where = await vscode.window.showQuickPick(
    [
      { label: '.claude/skills', description: vscode.l10n.t('Claude Code'), dir: '.claude' },
      { label: '.github/skills', description: vscode.l10n.t('VS Code agent mode (GitHub Copilot)'), dir: '.github' },
    ],
    { placeHolder: vscode.l10n.t("Where should AgentJet's {0} skills go?", skills.length) },
  );
  if (where) await copySkillsTo(folder, where.dir, skills, services);
}

async function copySkillsTo(folder: vscode.WorkspaceFolder, dir: string, skills: AgentJetSkill[], services: Services): Promise<void> {
  const base = join(folder.uri.fsPath, dir, 'skills');
  try {
    const skipped: string[] = [];
    for (const s of skills) {
      const target = join(base, s.name.replace(/[^\w.-]/g, '_'));
      // A skill folder the user already has (perhaps edited) is kept.
      if (existsSync(target)) {
        skipped.push(s.name);
        continue;
      }
      await mkdir(target, { recursive: true });
      // Read as the MCP server reads them (inside the package, never a FIFO); one that may not be read is left out.
      for (const f of s.files) {
        const bytes = await skillFileBytes(s, f);
        if (bytes) await writeFile(join(target, f), bytes);
      }
    }
    void vscode.window.showInformationMessage(
      skipped.length
        ? vscode.l10n.t(
            'AgentJet: copied {0} skills to {1}; kept {2} that were already there.',
            skills.length - skipped.length,
            base,
            skipped.length,
          )
        : vscode.l10n.t('AgentJet: copied {0} skills to {1}.', skills.length, base),
    );
  } catch (err) {
    services.report(vscode.l10n.t("copying AgentJet's skills"), err);
  }
}
