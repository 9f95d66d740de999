// AgentJet's own environment gates for the doctor and the launch preflight, read from the package
// the probe found (its ajet/utils/launch_utils.py and ajet/launcher.py: core/diagnose/gates.ts), so
// a Check Environment and a launch refuse what the user's AgentJet would refuse, before it starts.
import { basename, dirname } from 'node:path';
import { nodeFs } from '../fs/seam';
import { readGates, type AgentJetGates } from '../diagnose/gates';
import type { DoctorInput } from './facts';

/** The AgentJet package folder of the probe's `ajet` (its `__init__.py`'s folder). */
export function ajetPackageDir(probe: DoctorInput['probe']): string | undefined {
  if (!probe.ok) return undefined;
  const loc = probe.facts.packages.ajet?.found ? probe.facts.packages.ajet.location : null;
  if (!loc) return undefined;
  return basename(loc) === '__init__.py' ? dirname(loc) : loc;
}

/** The gates of the probed AgentJet (bundled ones when its code cannot be read); none without ajet. */
export async function gatesOfProbe(probe: DoctorInput['probe']): Promise<AgentJetGates | undefined> {
  const dir = ajetPackageDir(probe);
  if (!dir) return undefined;
  try {
    return await readGates(nodeFs(), dir);
  } catch {
    return undefined;
  }
}
