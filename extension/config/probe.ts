// "Does this workspace hold an AgentJet config?" asked once after start-up, off the activation
// path. The answer is the first stage's folder probe (extension/gate/probe.ts: VS Code's file
// search with the user's excludes, then a bounded head read), shared, so the folder is searched
// once for both stages. The config feature starts the language server on a hit (so Problems fills
// without opening a file); New Project's welcome button reads the same answer.
import type { GateHandoff } from '../gate/contract';
import { SharedProbe, type ProbeResult } from '../gate/probe';

export type { ProbeResult };

let source: Pick<GateHandoff, 'probe' | 'forgetProbe'> | undefined;
let own: SharedProbe | undefined;

/** The first stage's probe answers from now on (it may have run already). */
export function useGateProbe(handoff: Pick<GateHandoff, 'probe' | 'forgetProbe'>): void {
  source = handoff;
}

/** One probe for every feature that asks (until `forgetProbe`, e.g. after YAML files change). */
export function workspaceProbe(): Promise<ProbeResult> {
  if (source) return source.probe();
  own ??= new SharedProbe();
  return own.result();
}

export function forgetProbe(): void {
  if (source) source.forgetProbe();
  else own?.forget();
}
