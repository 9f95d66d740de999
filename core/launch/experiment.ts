// Finding the experiment folder a launch created and the rollout token log it wrote.
import { existsSync } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { launchPaths, layoutOf, parseLauncherLine, type LayoutVersion } from '../agentjet';
import { FIXED_LOG_ROOTS } from './plan';

/** What the launcher's own output says about the run it started. */
export interface LauncherRunInfo {
  /** "Experiment Name: X" (ajet/utils/config_utils.py prepare_experiment_config). */
  name?: string;
  /** "Experiment Backup Dir: D" (absolute; follows --exp-dir). */
  backupDir?: string;
  /** "Experiment Yaml Dir: F" (absolute `<exp-dir>/<name>/yaml_backup.yaml`). */
  yamlBackup?: string;
  /** `<logRoot>/<name>/<YYYY_MM_DD_HH_MM>/<host>` from beast-logger's viewer hint (`?path=...`). */
  logSession?: string;
}

/**
 * Reads the launcher's output as it streams (stdout and stderr, loguru colours and all) and keeps
 * what names the run. `push` returns true when something new was learnt.
 */
export class LauncherOutputReader {
  readonly info: LauncherRunInfo = {};
  private readonly partial = new Map<string, string>();

  push(text: string, stream = 'stdout'): boolean {
    const lines = ((this.partial.get(stream) ?? '') + text).split('\n');
    this.partial.set(stream, lines.pop()!.slice(-8000));
    let learnt = false;
    for (const line of lines) learnt = this.line(line) || learnt;
    return learnt;
  }

  private line(raw: string): boolean {
    const a = parseLauncherLine(raw);
    if (a) {
      const key = a.kind === 'name' ? 'name' : a.kind === 'backup' ? 'backupDir' : 'yamlBackup';
      if (this.info[key] === a.value) return false;
      this.info[key] = a.value;
      return true;
    }
    if (this.info.logSession) return false;
    // beast-logger / AgentJet print the viewer URL of the session folder: http://...:8181/?path=<abs>
    const m = /[?&]path=([^\s\])'"\x1b]+)/.exec(raw);
    if (!m) return false;
    let p = m[1]!;
    try {
      p = decodeURIComponent(p);
    } catch {
      /* keep as printed */
    }
    if (!isAbsolute(p)) return false;
    this.info.logSession = p;
    return true;
  }
}

/** What the launch knows about the AgentJet it started (lifecycle's preflight) and its arguments. */
export interface LaunchWhere {
  /** The run layout of the launched AgentJet, when the preflight read it from its code. */
  layout?: LayoutVersion;
  /** The launcher's own arguments (`--exp-dir`). */
  args?: readonly string[];
  /** The launch's environment (`ISOLATED_AGENTJET_BASE_DIR`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The run's log experiment folder (where the sessions are and the runs tree looks), from what the
 * launcher printed: the session path when the logger announced it; else, when the launched
 * version's layout is known, where that version writes (0.0.4: under --exp-dir); else the name
 * under whichever fixed log root exists (AgentJet before 0.0.4 writes logs relative to its working
 * directory, not under --exp-dir).
 */
export function logExperimentOf(
  info: LauncherRunInfo,
  cwd: string,
  exists: (p: string) => boolean = existsSync,
  where: LaunchWhere = {},
): string | undefined {
  if (info.logSession) {
    const session = dirname(info.logSession);
    // `<exp>/<stamp>/<host>` (AgentJet, ASTuner Dec 2025) or `<exp>/<stamp>` (ASTuner Nov 2025).
    return /^\d{4}_\d{2}_\d{2}_\d{2}_\d{2}/.test(basename(info.logSession)) ? dirname(info.logSession) : dirname(session);
  }
  if (!info.name) return undefined;
  if (where.layout && layoutOf(where.layout).logsFollowExpDir) {
    const p = launchPaths({ cwd, version: where.layout, experiment: info.name, args: where.args ?? [], env: where.env ?? {} });
    return p.logExperiment;
  }
  const candidates = FIXED_LOG_ROOTS.map((root) => join(cwd, root, info.name!));
  return candidates.find(exists) ?? candidates[0];
}

// Asynchronous: the inline debug session runs these in the extension host when a launch ends.
async function mtime(p: string): Promise<number> {
  return (await stat(p).catch(() => undefined))?.mtimeMs ?? 0;
}

async function dirs(p: string): Promise<string[]> {
  try {
    return (await readdir(p, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => join(p, d.name));
  } catch {
    return [];
  }
}

/**
 * The experiment folder of a launch that started at `sinceMs`: `<expRoot>/<experiment_name>` when
 * the config names it, else the newest `<config stem>_<stamp>` folder touched since then (minute or
 * millisecond stamps alike).
 */
export async function findExperimentFolder(
  expRoot: string,
  configPath: string,
  experimentName: string | undefined,
  sinceMs: number,
): Promise<string | undefined> {
  if (experimentName) {
    const p = join(expRoot, experimentName);
    return (await access(p).then(
      () => true,
      () => false,
    ))
      ? p
      : undefined;
  }
  const stem = basename(configPath, extname(configPath));
  const named = (await dirs(expRoot)).filter((d) => basename(d).startsWith(`${stem}_`));
  const timed = await Promise.all(named.map(async (d) => ({ d, t: await mtime(d) })));
  const hits = timed.filter((h) => h.t >= sinceMs - 1000).sort((a, b) => b.t - a.t);
  return hits[0]?.d;
}

/** The newest `<exp>/<session>/<host>/rollout/rollout.json.log`. */
export async function findRolloutLog(experimentFolder: string, sinceMs = 0): Promise<string | undefined> {
  let best: string | undefined;
  let bestTime = -1;
  for (const session of await dirs(experimentFolder)) {
    for (const host of await dirs(session)) {
      const p = join(host, 'rollout', 'rollout.json.log');
      const t = await mtime(p);
      if (t > 0 && t >= sinceMs - 1000 && t > bestTime) {
        best = p;
        bestTime = t;
      }
    }
  }
  return best;
}
