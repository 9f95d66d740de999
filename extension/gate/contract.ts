// What the first stage (dist/extension.js) hands the full extension (dist/full.js) when it loads
// it. The first stage registered, at its own activation, the providers VS Code asks for by id and
// cannot wait for (language-model tools, the MCP list, debug configurations, tasks): the full
// extension binds its implementations to those registrations instead of registering its own.
// Types only: both bundles import this file, neither carries code from it.
import type * as vscode from 'vscode';
import type { ProbeResult } from './probe';

/** A language-model tool as the full extension implements it (the first stage's registration forwards to it). */
export interface ToolImpl {
  invoke(options: { readonly input: unknown }, token: vscode.CancellationToken): Thenable<unknown>;
  prepareInvocation?(options: { readonly input: unknown }, token: vscode.CancellationToken): unknown;
}

export interface McpProviderImpl {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
}

export interface GateHandoff {
  /** The folder probe the first stage ran (or runs now): one walk through VS Code's file search. */
  probe(): Promise<ProbeResult>;
  /** YAML files came or went: the next `probe()` searches again. */
  forgetProbe(): void;
  registerTool(name: string, impl: ToolImpl): vscode.Disposable;
  registerMcpProvider(impl: McpProviderImpl): vscode.Disposable;
  /** `dynamic` answers VS Code's Dynamic asks ("More AgentJet options..."); else `provider` does. */
  registerDebugConfigurationProvider(
    provider: vscode.DebugConfigurationProvider,
    dynamic?: Pick<vscode.DebugConfigurationProvider, 'provideDebugConfigurations'>,
  ): vscode.Disposable;
  registerTaskProvider(provider: vscode.TaskProvider): vscode.Disposable;
}

/** Why the first stage loaded the full extension, for the log and the tests. */
export type LoadReason =
  | 'config-open'
  | 'agentjet-file-open'
  | 'launch-or-task'
  | 'folder-probe'
  | 'command'
  | 'editor'
  | 'debug-provider'
  | 'task-provider'
  | 'tool'
  | 'mcp'
  | 'python-workflow';
