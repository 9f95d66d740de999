// Issue 22's hostile config documents, and a runner for them: `node --import tsx hostileConfigs.ts NAME`
// lints one and prints a JSON summary of the diagnostics. Tests run it in a child process with a
// time limit, as a hang guard that a synchronous quadratic pass cannot block.
import { lintText } from '../../core/config/lint';
import { repoRoot } from './paths';
import { join } from 'node:path';

/** A 400 KB config with 40,000 unknown keys (22.9 s to lint before the fix). */
export function unknownKeysDoc(extra = ''): string {
  return 'ajet:\n  project_name: x\n' + Array.from({ length: 40_000 }, (_, i) => `  k${i}: ${i % 10}\n`).join('') + extra;
}

/** n interpolations into an n-key map, half of them missing (about 1 MB at n = 12,000). */
export function interpolationsDoc(n = 12_000): string {
  let text = 'ajet:\n  project_name: x\n  trainer_common:\n';
  for (let i = 0; i < n; i++) text += `    u${i}: ${i}\n`;
  text += 'hydra:\n  searchpath:\n';
  for (let i = 0; i < n; i++) text += `    - \${ajet.trainer_common.u${i}}\${ajet.trainer_common.x${i}}\n`;
  return text;
}

const docs: Record<string, () => string> = {
  unknownKeys: () => unknownKeysDoc(),
  unknownKeysDup: () => unknownKeysDoc('  k7: 1\n'),
  interpolations: () => interpolationsDoc(),
};

const name = process.argv[2];
if (name && process.argv[1]?.endsWith('hostileConfigs.ts')) {
  const make = docs[name];
  if (!make) throw new Error(`no hostile document ${name}`);
  const r = lintText(make(), { root: join(repoRoot, 'demo') });
  const byCode: Record<string, number> = {};
  for (const d of r.diagnostics) byCode[d.code] = (byCode[d.code] ?? 0) + 1;
  const hints = r.diagnostics.filter((d) => /Did you mean/.test(d.message)).length;
  const unique = r.diagnostics.filter((d) => d.code === 'yaml-syntax' && /unique/.test(d.message)).length;
  process.stdout.write(JSON.stringify({ ours: r.ours, byCode, hints, unique }));
}
