import { isAbsolute, join } from 'node:path';
import { parseExpDir } from '../agentjet/naming';

// Experiment roots named by launch configurations: `--exp-dir X` in a config's args, or an
// `expDir` property (the debug feature's launch schema), for configurations of type `agentjet`.
export function expDirsFromLaunchConfigs(configs: unknown): string[] {
  if (!Array.isArray(configs)) return [];
  const out = new Set<string>();
  for (const c of configs) {
    if (!c || typeof c !== 'object') continue;
    const cfg = c as Record<string, unknown>;
    if (cfg.type !== 'agentjet') continue;
    for (const key of ['expDir', 'exp_dir', 'experimentDir']) {
      const dir = cfg[key];
      if (typeof dir === 'string' && dir) out.add(dir);
    }
    const args = Array.isArray(cfg.args) ? cfg.args.filter((a): a is string => typeof a === 'string') : [];
    const d = parseExpDir(args);
    if (d) out.add(d);
    // AgentJet 0.0.4 runs its child in ISOLATED_AGENTJET_BASE_DIR, which writes a relative
    // --exp-dir (default saved_experiments) there (core/agentjet/naming.ts, launchPaths).
    const env = cfg.env && typeof cfg.env === 'object' ? (cfg.env as Record<string, unknown>) : {};
    const iso = env.ISOLATED_AGENTJET_BASE_DIR;
    if (typeof iso === 'string' && iso) {
      const rel = d ?? 'saved_experiments';
      out.add(isAbsolute(rel) ? rel : join(iso, rel));
    }
  }
  // Variables such as ${workspaceFolder} are resolved by the caller or dropped.
  return [...out];
}
