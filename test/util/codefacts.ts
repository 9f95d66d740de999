// The code facts (core/config/codefacts.ts) of a framework version, read from its upstream tree on
// disk with the generator the build and the run time share (core/config/factsgen.ts).
import { join } from 'node:path';
import { PACKAGE_OF, type CodeFacts } from '../../core/config/codefacts';
import { codeFactsOfDir } from '../../core/config/factsgen';
import { loadPython } from '../../core/config/pyparse';
import type { FrameworkVersion } from '../../core/agentjet/dialect';

export async function codeFactsOfTree(tree: string, version: FrameworkVersion): Promise<CodeFacts> {
  await loadPython();
  return codeFactsOfDir(join(tree, PACKAGE_OF[version]), PACKAGE_OF[version]);
}
