// Stand-ins the first stage registers for what the manifest contributes, so that VS Code finds a
// command or a provider while the full extension is not loaded. A command loads it and gives way
// (the full extension registers the real ones); a provider VS Code asks by
// id (language-model tools, the MCP list, debug configurations, tasks) stays, and forwards to the
// implementation the full extension binds through the handoff (./contract.ts).
import * as vscode from 'vscode';
import type { GateHandoff, LoadReason, McpProviderImpl, ToolImpl } from './contract';

interface Manifest {
  contributes?: {
    commands?: { command: string }[];
    languageModelTools?: { name: string }[];
    mcpServerDefinitionProviders?: { id: string }[];
  };
}

/** `vscode.lm` as far as this file uses it (older VS Code releases lack parts of it). */
interface LmApi {
  registerTool?(name: string, tool: vscode.LanguageModelTool<object>): vscode.Disposable;
  registerMcpServerDefinitionProvider?(id: string, provider: McpProviderImpl): vscode.Disposable;
}

export const DEBUG_TYPE = 'agentjet';
export const TASK_TYPE = 'agentjet';

export class Proxies implements vscode.Disposable {
  /** Commands: disposed when the full extension loads (it registers the same ids). */
  private readonly giveWay: vscode.Disposable[] = [];
  /** Providers that stay and forward. */
  private readonly stay: vscode.Disposable[] = [];
  private readonly tools = new Map<string, ToolImpl>();
  private mcp: McpProviderImpl | undefined;
  private debug: vscode.DebugConfigurationProvider | undefined;
  private debugDynamic: Pick<vscode.DebugConfigurationProvider, 'provideDebugConfigurations'> | undefined;
  private task: vscode.TaskProvider | undefined;
  private readonly mcpChanged = new vscode.EventEmitter<void>();

  constructor(
    manifest: Manifest,
    /** Loads the full extension (synchronously; a no-op once loaded). */
    private readonly load: (reason: LoadReason) => void,
    /** Whether the folder probe found AgentJet (tasks are listed only then, without loading anything). */
    private readonly isAgentJetFolder: () => Promise<boolean>,
    /** Whether the MCP list should offer the server at all (the setting; off by default). */
    private readonly offersMcp: () => boolean,
  ) {
    const c = manifest.contributes ?? {};
    for (const { command } of c.commands ?? [])
      this.giveWay.push(
        vscode.commands.registerCommand(command, (...args: unknown[]) => {
          this.load('command');
          return vscode.commands.executeCommand(command, ...args);
        }),
      );
    // No stand-in for the views: a view without a data provider shows its welcome content (a
    // provider replaced later is not picked up by VS Code 1.100); the full extension registers them.
    this.registerProviders(c);
  }

  private registerProviders(c: NonNullable<Manifest['contributes']>): void {
    const lm = (vscode as { lm?: LmApi }).lm;
    for (const { name } of c.languageModelTools ?? []) {
      if (!lm?.registerTool) break;
      try {
        this.stay.push(
          lm.registerTool(name, {
            prepareInvocation: (options, token) =>
              this.tool(name).prepareInvocation?.(options, token) as vscode.ProviderResult<vscode.PreparedToolInvocation>,
            invoke: (options, token) => this.tool(name).invoke(options, token) as Thenable<vscode.LanguageModelToolResult>,
          }),
        );
      } catch {
        /* refused by this VS Code: the full extension's own attempt reports it */
      }
    }
    for (const { id } of c.mcpServerDefinitionProviders ?? []) {
      if (!lm?.registerMcpServerDefinitionProvider) break;
      try {
        this.stay.push(
          lm.registerMcpServerDefinitionProvider(id, {
            onDidChangeMcpServerDefinitions: this.mcpChanged.event,
            provideMcpServerDefinitions: (token) => {
              if (!this.mcp && !this.offersMcp()) return [];
              this.load('mcp');
              return this.mcp?.provideMcpServerDefinitions(token) ?? [];
            },
          }),
        );
      } catch {
        /* an older VS Code: no MCP list */
      }
    }
    const debug = (): vscode.DebugConfigurationProvider => {
      this.load('debug-provider');
      return this.debug ?? {};
    };
    this.stay.push(
      this.mcpChanged,
      vscode.debug.registerDebugConfigurationProvider(
        DEBUG_TYPE,
        {
          provideDebugConfigurations: (folder, token) => debug().provideDebugConfigurations?.(folder, token) ?? [],
          resolveDebugConfiguration: (folder, config, token) => {
            const p = debug();
            return p.resolveDebugConfiguration ? p.resolveDebugConfiguration(folder, config, token) : config;
          },
          resolveDebugConfigurationWithSubstitutedVariables: (folder, config, token) => {
            const p = debug();
            return p.resolveDebugConfigurationWithSubstitutedVariables
              ? p.resolveDebugConfigurationWithSubstitutedVariables(folder, config, token)
              : config;
          },
        },
        vscode.DebugConfigurationProviderTriggerKind.Initial,
      ),
      vscode.debug.registerDebugConfigurationProvider(
        DEBUG_TYPE,
        {
          provideDebugConfigurations: (folder, token) => {
            const p = debug();
            return (this.debugDynamic ?? p).provideDebugConfigurations?.(folder, token) ?? [];
          },
        },
        vscode.DebugConfigurationProviderTriggerKind.Dynamic,
      ),
      vscode.tasks.registerTaskProvider(TASK_TYPE, {
        // "Run Task" in a folder without AgentJet lists nothing of ours and loads nothing.
        provideTasks: async (token) => {
          if (!this.task && !(await this.isAgentJetFolder())) return [];
          this.load('task-provider');
          return (await this.task?.provideTasks(token)) ?? [];
        },
        resolveTask: (task, token) => {
          this.load('task-provider');
          return this.task?.resolveTask(task, token);
        },
      }),
    );
  }

  private tool(name: string): ToolImpl {
    this.load('tool');
    const impl = this.tools.get(name);
    if (!impl) throw new Error(`the AgentJet tool ${name} is not available`);
    return impl;
  }

  /** What the full extension binds (see GateHandoff). */
  binder(): Pick<GateHandoff, 'registerTool' | 'registerMcpProvider' | 'registerDebugConfigurationProvider' | 'registerTaskProvider'> {
    return {
      registerTool: (name, impl) => {
        this.tools.set(name, impl);
        return new vscode.Disposable(() => this.tools.get(name) === impl && this.tools.delete(name));
      },
      registerMcpProvider: (impl) => {
        this.mcp = impl;
        const sub = impl.onDidChangeMcpServerDefinitions?.(() => this.mcpChanged.fire());
        this.mcpChanged.fire();
        return new vscode.Disposable(() => {
          sub?.dispose();
          if (this.mcp === impl) this.mcp = undefined;
        });
      },
      registerDebugConfigurationProvider: (provider, dynamic) => {
        this.debug = provider;
        this.debugDynamic = dynamic;
        return new vscode.Disposable(() => {
          if (this.debug !== provider) return;
          this.debug = undefined;
          this.debugDynamic = undefined;
        });
      },
      registerTaskProvider: (provider) => {
        this.task = provider;
        return new vscode.Disposable(() => this.task === provider && (this.task = undefined));
      },
    };
  }

  /** The full extension is loading: commands give way to its own. */
  yield(): void {
    for (const d of this.giveWay.splice(0)) d.dispose();
  }

  dispose(): void {
    this.yield();
    for (const d of this.stay.splice(0)) d.dispose();
  }
}
