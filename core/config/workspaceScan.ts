// One rule for "where AgentJet configs may be in a workspace" for the language server's background
// pass (the extension's start-up probe, extension/gate/probe.ts, asks VS Code's file search instead).
import { open, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { isInside, resolveInside } from '../fs/inside';

/**
 * Folders never searched: tooling, environments, and the run folders (their `yaml_backup.yaml`
 * snapshots are records of past runs, not sources to fix).
 */
export const SKIP_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  '__pycache__',
  '.venv',
  'venv',
  'env',
  '.tox',
  'dist',
  'build',
  'saved_experiments',
  'launcher_record',
  'saved_checkpoints',
]);

/** How much of a file the probe reads: a root key sits near the top (Hydra's `defaults:` list comes first). */
export const PROBE_HEAD_BYTES = 16 * 1024;

/** The first `PROBE_HEAD_BYTES` of a file, or undefined when it cannot be read. */
export async function readHead(path: string, bytes = PROBE_HEAD_BYTES): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Limits of one pass over a folder (`maxYamlFiles`: the default of `agentjet.config.workspaceMaxFiles`). */
export const WORKSPACE_LIMITS = { maxYamlFiles: 2000, maxDepth: 12, maxCountedEntries: 200_000 } as const;

/** What a walk past its cap saw: YAML files in all (`exact` false: counting stopped at maxCountedEntries). */
export interface YamlWalkCap {
  cap: number;
  total: number;
  exact: boolean;
}

/**
 * Every `*.yaml`/`*.yml` under `root` within the limits (breadth first, names sorted). `onLevel`
 * sees each depth's files as they are found and may stop the walk (returns true).
 */
export async function yamlFilesUnder(
  root: string,
  isCancelled: () => boolean,
  onLevel?: (files: readonly string[]) => Promise<boolean>,
  /** The folders the walk must stay in (real paths): a folder that leads out of them is not read. */
  within?: readonly string[],
  /** At most this many files (default WORKSPACE_LIMITS.maxYamlFiles); past it the rest are only counted and `onCap` told. */
  cap?: { max?: number; onCap?: (c: YamlWalkCap) => void },
): Promise<string[]> {
  const max = Math.max(1, Math.floor(cap?.max ?? WORKSPACE_LIMITS.maxYamlFiles));
  const out: string[] = [];
  let total = 0;
  let entries = 0;
  let capped = false;
  let level = [root];
  for (let depth = 0; depth <= WORKSPACE_LIMITS.maxDepth && level.length && !isCancelled(); depth++) {
    const next: string[] = [];
    const found: string[] = [];
    for (const dir of level) {
      let list;
      try {
        if (within && !(await resolveInside(dir, within)).ok) continue;
        list = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      list.sort((a, b) => a.name.localeCompare(b.name));
      for (const e of list) {
        if (capped && ++entries > WORKSPACE_LIMITS.maxCountedEntries) {
          cap?.onCap?.({ cap: max, total, exact: false });
          return out;
        }
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) next.push(join(dir, e.name));
        } else if (e.isFile() && /\.ya?ml$/i.test(e.name)) {
          total++;
          if (capped) continue;
          found.push(join(dir, e.name));
          if (out.length + found.length >= max) {
            out.push(...found);
            if (onLevel) await onLevel(found);
            // Past the cap the walk only counts (names, no reads), so the user can be told how many were left.
            if (!cap?.onCap) return out;
            capped = true;
            found.length = 0;
          }
        }
      }
      if (isCancelled()) return capped ? out : [...out, ...found];
    }
    if (!capped) {
      out.push(...found);
      if (onLevel && found.length && (await onLevel(found))) return out;
    }
    level = next;
  }
  if (capped && total > max) cap?.onCap?.({ cap: max, total, exact: true });
  return out;
}

/**
 * The folder to scan for a path the client says was created, when it lies in the workspace folder
 * `root`: by path segments after normalising (`ws/../x` is not in `ws`) and by real path (a created
 * link to `/` or anywhere out of `root` is not followed). Undefined for anything else.
 */
export async function createdFolderIn(path: string, root: string): Promise<string | undefined> {
  if (!isAbsolute(path) || path.includes('\0')) return undefined;
  const p = resolve(path);
  if (!isInside(root, p)) return undefined;
  if (!(await resolveInside(p, [root])).ok) return undefined;
  const st = await stat(p).catch(() => undefined);
  return st?.isDirectory() ? p : undefined;
}
