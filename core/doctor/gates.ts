// The framework's own environment gates for the doctor and the launch preflight, read from the
// package the probe found (AgentJet's ajet/utils/launch_utils.py and ajet/launcher.py, ASTuner's
// astuner/cli/launcher.py, ASTune's launcher.py: core/diagnose/gates.ts), so a Check Environment
// and a launch refuse what the user's framework would refuse, before it starts.
import { basename, dirname } from 'node:path';
import { nodeFs } from '../fs/seam';
import { readGates, type AgentJetGates } from '../diagnose/gates';
import type { DoctorInput } from './facts';

const FRAMEWORKS = ['ajet', 'astuner', 'astune'] as const;

/**
 * The framework package folder of the probe (its `__init__.py`'s folder): `root`'s package when the
 * launch's config names one that is installed (`astuner:` -> astuner), else the first of ajet,
 * astuner, astune installed (the doctor's order).
 */
export function frameworkPackageDir(probe: DoctorInput['probe'], root?: string): string | undefined {
  if (!probe.ok) return undefined;
  const pkgs = probe.facts.packages;
  const order = FRAMEWORKS.filter((n) => n === root).concat(FRAMEWORKS.filter((n) => n !== root));
  const name = order.find((n) => pkgs[n]?.found && pkgs[n]?.location);
  const loc = name ? pkgs[name]!.location : null;
  if (!loc) return undefined;
  return basename(loc) === '__init__.py' ? dirname(loc) : loc;
}

/** The AgentJet package folder of the probe's `ajet` (its `__init__.py`'s folder). */
export function ajetPackageDir(probe: DoctorInput['probe']): string | undefined {
  if (!probe.ok) return undefined;
  const loc = probe.facts.packages.ajet?.found ? probe.facts.packages.ajet.location : null;
  if (!loc) return undefined;
  return basename(loc) === '__init__.py' ? dirname(loc) : loc;
}

/**
 * The gates of the probed framework, AgentJet, ASTuner or ASTune (bundled ones when its code cannot
 * be read); none without one. `root`: the launched config's root key.
 */
export async function gatesOfProbe(probe: DoctorInput['probe'], root?: string): Promise<AgentJetGates | undefined> {
  const dir = frameworkPackageDir(probe, root);
  if (!dir) return undefined;
  try {
    return await readGates(nodeFs(), dir);
  } catch {
    return undefined;
  }
}
