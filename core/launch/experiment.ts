// Finding the experiment folder a launch created and the rollout token log it wrote.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';

/** A console line naming the experiment folder (the stand-in and our own output print it). */
export function experimentFromOutput(line: string): string | undefined {
  const m = /Experiment (?:folder|dir(?:ectory)?):\s*(\S.*?)\s*$/i.exec(line);
  return m ? m[1] : undefined;
}

function mtime(p: string): number {
  try { return statSync(p).mtimeMs; } catch { return 0; }
}

function dirs(p: string): string[] {
  try { return readdirSync(p, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(p, d.name)); } catch { return []; }
}

/**
 * The experiment folder of a launch that started at `sinceMs`: `<expRoot>/<experiment_name>` when
 * the config names it, else the newest `<config stem>_<stamp>` folder touched since then.
 */
export function findExperimentFolder(expRoot: string, configPath: string, experimentName: string | undefined, sinceMs: number): string | undefined {
  if (experimentName) {
    const p = join(expRoot, experimentName);
    return existsSync(p) ? p : undefined;
  }
  const stem = basename(configPath, extname(configPath));
  const hits = dirs(expRoot).filter((d) => basename(d).startsWith(`${stem}_`) && mtime(d) >= sinceMs - 1000);
  hits.sort((a, b) => mtime(b) - mtime(a));
  return hits[0];
}

/** The newest `<exp>/<session>/<host>/rollout/rollout.json.log`. */
export function findRolloutLog(experimentFolder: string, sinceMs = 0): string | undefined {
  let best: string | undefined;
  let bestTime = -1;
  for (const session of dirs(experimentFolder)) {
    for (const host of dirs(session)) {
      const p = join(host, 'rollout', 'rollout.json.log');
      const t = mtime(p);
      if (t > 0 && t >= sinceMs - 1000 && t > bestTime) { best = p; bestTime = t; }
    }
  }
  return best;
}
