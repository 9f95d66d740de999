// The logger a launch will really use: `<root>.trainer_common.logger` of the config composed the way
// AgentJet composes it (Hydra's `defaults:` list, its files found on `hydra.searchpath`, later
// entries over earlier ones, the config itself where `_self_` stands or last). AgentJet's own
// ajet_default.yaml sets `logger: swanlab`, so a config that does not write the key logs to SwanLab.
// Bounded async reads; what cannot be read is left out (never a guess).
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { tryStat, type RunsFs } from '../fs/seam';

const MAX_BYTES = 1024 * 1024;
/** Nested `defaults:` lists followed (AgentJet's files have none; a user's base file may). */
const MAX_DEPTH = 3;

export interface EffectiveLogger {
  logger: string;
  /** The file that set it: the config itself, or a defaults file (`.../ajet/default_config/ajet_default.yaml`). */
  from: string;
  /** The config itself wrote it. */
  written: boolean;
}

export interface LoggerSources {
  configPath: string;
  /** The launch's working folder: Hydra resolves `file://` search paths against it. */
  cwd: string;
  /** The AgentJet package folder (`.../ajet`): its parent is where AgentJet retries a missing search path. */
  frameworkDir?: string | undefined;
  /** The config's root key (`ajet`). */
  root: string;
}

interface Parsed {
  logger: string | undefined;
  defaults: string[];
  searchpath: string[];
}

function parse(text: string, root: string): Parsed | undefined {
  // A file with neither the root section nor a defaults list sets nothing here (verl_default.yaml): not parsed.
  if (!new RegExp(`^(?:${root}|defaults)\\s*:`, 'm').test(text)) return { logger: undefined, defaults: [], searchpath: [] };
  let js: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: false });
    if (doc.errors.length) return undefined;
    js = doc.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  if (!js || typeof js !== 'object') return undefined;
  const o = js as Record<string, unknown>;
  const section = o[root] as Record<string, unknown> | undefined;
  const tc = section && typeof section === 'object' ? (section.trainer_common as Record<string, unknown> | undefined) : undefined;
  const logger = tc && typeof tc === 'object' && typeof tc.logger === 'string' ? tc.logger : undefined;
  // Only plain entries name files; group entries (`verl: x`, `override ...`) do not set this key.
  const defaults = Array.isArray(o.defaults) ? o.defaults.filter((d): d is string => typeof d === 'string') : [];
  const hydra = o.hydra as Record<string, unknown> | undefined;
  const sp = hydra && typeof hydra === 'object' && Array.isArray(hydra.searchpath) ? hydra.searchpath : [];
  return { logger, defaults, searchpath: sp.filter((p): p is string => typeof p === 'string') };
}

async function readText(fs: RunsFs, path: string): Promise<string | undefined> {
  const st = await tryStat(fs, path);
  if (!st?.isFile() || st.size > MAX_BYTES) return undefined;
  try {
    return (await fs.readRange(path, 0, MAX_BYTES)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The folders `file://` search paths name: against the cwd, else against AgentJet's checkout (as its fix does). */
async function searchDirs(fs: RunsFs, searchpath: readonly string[], s: LoggerSources): Promise<string[]> {
  const out: string[] = [];
  for (const p of searchpath) {
    if (!p.startsWith('file://')) continue;
    const rel = p.slice('file://'.length);
    const candidates = [resolve(s.cwd, rel)];
    if (!isAbsolute(rel) && s.frameworkDir) candidates.push(join(dirname(s.frameworkDir), rel));
    for (const c of candidates)
      if ((await tryStat(fs, c))?.isDirectory()) {
        out.push(c);
        break;
      }
  }
  return out;
}

async function compose(
  fs: RunsFs,
  path: string,
  parsed: Parsed,
  dirs: readonly string[],
  s: LoggerSources,
  depth: number,
  seen: Set<string>,
): Promise<{ logger: string; from: string } | undefined> {
  let found: { logger: string; from: string } | undefined;
  const entries = parsed.defaults.includes('_self_') ? parsed.defaults : [...parsed.defaults, '_self_'];
  for (const name of entries) {
    if (name === '_self_') {
      if (parsed.logger !== undefined) found = { logger: parsed.logger, from: path };
      continue;
    }
    if (depth >= MAX_DEPTH) continue;
    const file = name.endsWith('.yaml') ? name : `${name}.yaml`;
    for (const dir of dirs) {
      const p = join(dir, file);
      if (seen.has(p)) break;
      const text = await readText(fs, p);
      if (text === undefined) continue;
      seen.add(p);
      const sub = parse(text, s.root);
      const got = sub && (await compose(fs, p, sub, dirs, s, depth + 1, seen));
      if (got) found = got;
      break;
    }
  }
  return found;
}

/** The logger the composed config sets, and the file that set it; undefined when no readable file sets it. */
export async function effectiveLogger(fs: RunsFs, s: LoggerSources): Promise<EffectiveLogger | undefined> {
  const text = await readText(fs, s.configPath);
  const parsed = text === undefined ? undefined : parse(text, s.root);
  if (!parsed) return undefined;
  const dirs = await searchDirs(fs, parsed.searchpath, s);
  const got = await compose(fs, s.configPath, parsed, dirs, s, 0, new Set([s.configPath]));
  return got && { ...got, written: got.from === s.configPath };
}
