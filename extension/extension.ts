import * as vscode from 'vscode';
import { createServices, type Services } from './services';
import { registerConfigFeature } from './config';
import { registerLogsFeature, type LogsProbe } from './logs';
import { registerRunsFeature, type RunsProbe } from './runs';
import { registerDebugFeature } from './debug';
import { registerRayFeature, type RayProbe } from './ray';
import { registerOnboarding } from './onboarding';
import { registerSwarmFeature, type SwarmProbe } from './swarm';
import { registerDebugTaskFeature } from './debugTask';
import { registerAgentsFeature, type AgentsProbe } from './agents';
import { normalizeLocale, setLocale } from '../core/l10n';
import type { GateHandoff } from './gate/contract';
import { useGateProbe } from './config/probe';

/** What activate() returns; tests and other extensions read it through `extension.exports`. */
export interface AgentJetApi {
  readonly activatedAt: number;
  readonly activationMs: number;
  readonly services: Services;
  /** Hooks for the extension-host tests to see and drive the views; kept off the command list. */
  readonly testing: {
    readonly runs: RunsProbe;
    readonly logs: LogsProbe;
    readonly ray: RayProbe;
    readonly swarm: SwarmProbe;
    readonly agents: AgentsProbe;
  };
}

/** What deactivate waits for: the acting tools' launches stopping (extension/agents/acting.ts). */
let closing: (() => Promise<unknown>) | undefined;

/**
 * The full extension (dist/full.js), loaded by the first stage (extension/gate/main.ts) once AgentJet
 * shows in the window; `handoff` carries what the first stage already owns (its log, its folder
 * probe, the providers VS Code asks by id).
 */
/** Set once the full extension runs: before that, the views show the first stage's welcome content. */
export const LOADED_KEY = 'agentjet.loaded';

export function activate(context: vscode.ExtensionContext, handoff?: GateHandoff & { log: vscode.LogOutputChannel }): AgentJetApi {
  const started = performance.now();
  // Text made in core (run status, launch refusals, the debug adapter's messages) in the display language.
  setLocale(normalizeLocale(vscode.env.language));
  if (handoff) useGateProbe(handoff);
  const services = createServices(context, handoff);
  // Each feature registers its own disposables; none may do I/O or start processes here.
  registerConfigFeature(context, services);
  const logs = registerLogsFeature(context, services);
  const runs = registerRunsFeature(context, services);
  registerDebugFeature(context, services);
  const ray = registerRayFeature(context, services);
  registerDebugTaskFeature(context, services);
  registerOnboarding(context, services);
  const swarm = registerSwarmFeature(context, services);
  const agents = registerAgentsFeature(context, services);
  // The views' welcome content says what the first stage could not know until now (package.json viewsWelcome).
  void vscode.commands.executeCommand('setContext', LOADED_KEY, true);
  closing = () => agents.close();
  const activationMs = performance.now() - started;
  services.log.info(`AgentJet activated in ${activationMs.toFixed(1)} ms`);
  return { activatedAt: Date.now(), activationMs, services, testing: { runs, logs, ray, swarm, agents } };
}

export async function deactivate(): Promise<void> {
  // Disposables registered on the context are released by VS Code (right after this is called);
  // what the agents' acting tools started is stopped through its owners, as Stop does, and VS Code
  // waits for it (ps and the stop's grace are asynchronous: without the wait a closing extension
  // host could exit first, leaving the end to the watchdogs).
  await closing?.();
}
