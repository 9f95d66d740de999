// Typed access to the `agentjet.*` settings: one function per setting, each with its default and
// its validation, so no feature reads `getConfiguration('agentjet')` with a string of its own.
import { DEFAULT_STALL_MINUTES, stallMinutesOf } from '../core/runs/health';
import * as vscode from 'vscode';
import type { ConfigProblemsScope } from '../core/protocol/config';

const section = (scope?: vscode.ConfigurationScope) => vscode.workspace.getConfiguration('agentjet', scope);

/** `agentjet.pythonPath` as written (may hold `${workspaceFolder}` or `~`; core/process/resolveInterpreter.ts expands it). */
export function pythonPath(scope?: vscode.ConfigurationScope): string {
  const v = section(scope).get<unknown>('pythonPath', '');
  return typeof v === 'string' ? v.trim() : '';
}

/** `agentjet.experimentRoots`: extra experiment roots (strings only, blanks dropped). */
export function experimentRoots(scope?: vscode.ConfigurationScope): string[] {
  const v = section(scope).get<unknown>('experimentRoots', []);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];
}

/** `agentjet.runs.pollIntervalSeconds`, never below 2. */
export function runsPollIntervalSeconds(scope?: vscode.ConfigurationScope): number {
  const v = section(scope).get<unknown>('runs.pollIntervalSeconds', 3);
  return Math.max(2, typeof v === 'number' && Number.isFinite(v) ? v : 3);
}

/** `agentjet.runs.stallMinutes`: minutes without progress (and several step times) before a running run reads stalled. */
export function runsStallMinutes(scope?: vscode.ConfigurationScope): number {
  return stallMinutesOf(section(scope).get<unknown>('runs.stallMinutes', DEFAULT_STALL_MINUTES));
}

/** `agentjet.config.problems`: check every config of the workspace, or only open files. */
export function configProblems(scope?: vscode.ConfigurationScope): ConfigProblemsScope {
  return section(scope).get<unknown>('config.problems', 'workspace') === 'openFiles' ? 'openFiles' : 'workspace';
}

/** `agentjet.config.workspaceMaxFiles`: YAML files one background pass reads per folder (undefined: the server's default). */
export function configWorkspaceMaxFiles(scope?: vscode.ConfigurationScope): number | undefined {
  const v = section(scope).get<unknown>('config.workspaceMaxFiles');
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : undefined;
}

/** `agentjet.agents.offerMcpServer`: list `agentjet mcp` among VS Code's MCP servers (the tools are there anyway). */
export function offerMcpServer(scope?: vscode.ConfigurationScope): boolean {
  return section(scope).get<unknown>('agents.offerMcpServer', false) === true;
}

/** Every setting this module knows, by key (for `affectsConfiguration`). */
export const SETTING_KEYS = [
  'agentjet.pythonPath',
  'agentjet.experimentRoots',
  'agentjet.runs.pollIntervalSeconds',
  'agentjet.config.problems',
  'agentjet.agents.offerMcpServer',
  'agentjet.agents.swarmAnyUrl',
] as const;

/**
 * `agentjet.agents.swarmAnyUrl`: agents may ask any swarm server URL. Read from the user's own
 * settings only (a workspace's settings cannot widen what its agents reach).
 */
export function agentsSwarmAnyUrl(): boolean {
  const v = section().inspect<unknown>('agents.swarmAnyUrl');
  return v?.globalValue === true;
}

/** `agentjet.swarm.servers`: swarm server URLs to watch (strings only, blanks dropped). */
export function swarmServers(scope?: vscode.ConfigurationScope): string[] {
  const v = section(scope).get<unknown>('swarm.servers', []);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()) : [];
}

/** `agentjet.logs.hostThreads`: worker threads of the token-log work in the extension host; 0 (automatic) is undefined. */
export function logsHostThreads(): number | undefined {
  const v = section().get<unknown>('logs.hostThreads', 0);
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? Math.min(v, 256) : undefined;
}
