// The files `agentjet lint DIR` checks: every *.yaml/*.yml below the targets, and only regular
// files (a FIFO named x.yaml would block the reader; a socket or device is no config). A target
// named on the command line may be a link; below it the walk never follows a link to a folder
// (a link to `/` walked the whole disk: issue 39 R3), reads folders asynchronously, stops at
// MAX_WALK_ENTRIES entries (saying so) and when its signal aborts.
import { lstat, opendir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { resolveInside } from '../fs/inside';

export interface CollectResult {
  /** Regular files to lint, in walk order (names sorted), each once. */
  files: string[];
  /** Named targets and *.yaml entries that are not regular files (FIFOs, sockets, devices). */
  special: string[];
  /** Named targets that do not exist. */
  missing: string[];
  /** The walk stopped at MAX_WALK_ENTRIES entries: files past them were not looked at. */
  truncated?: boolean;
}

/** Entries (files and folders) a walk looks at, at most. */
export const MAX_WALK_ENTRIES = 200_000;

const SKIP = new Set(['node_modules', '.git', '__pycache__', '.venv', 'venv']);
const YAML = /\.ya?ml$/i;

const idOf = (st: Stats) => `${st.dev}:${st.ino}`;

export interface CollectOptions {
  signal?: AbortSignal;
  maxEntries?: number;
  /** An agent's lint: nothing whose real path leaves these roots is walked or listed. */
  within?: readonly string[];
}

/** Collects the files to lint under `targets` (files named explicitly are taken whatever their name). */
export async function collectYamlFiles(targets: readonly string[], opts: CollectOptions = {}): Promise<CollectResult> {
  const res: CollectResult = { files: [], special: [], missing: [] };
  const max = opts.maxEntries ?? MAX_WALK_ENTRIES;
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();
  let entries = 0;
  const stopped = () => opts.signal?.aborted === true || res.truncated === true;
  const visit = async (p: string, explicit: boolean): Promise<void> => {
    if (stopped()) return;
    if (++entries > max) {
      res.truncated = true;
      return;
    }
    let st: Stats;
    try {
      // A named target is followed; below it a link is followed only to a file.
      st = explicit ? await stat(p) : await lstat(p);
      if (st.isSymbolicLink()) {
        const to = await stat(p); // a dangling link lands in catch
        if (to.isDirectory()) return;
        st = to;
      }
    } catch {
      if (explicit) res.missing.push(p);
      return;
    }
    // With `within` (an agent's lint): nothing whose real path leaves those roots is walked or listed.
    if (opts.within && !(await resolveInside(p, opts.within)).ok) return;
    if (st.isDirectory()) {
      const id = idOf(st);
      if (seenDirs.has(id)) return; // two named targets overlap
      seenDirs.add(id);
      const names: string[] = [];
      try {
        const dir = await opendir(p);
        for await (const e of dir) {
          if (stopped()) break;
          names.push(e.name);
          if (names.length > max) break;
        }
      } catch {
        /* unreadable: nothing below it */
      }
      names.sort();
      for (const name of names) {
        if (stopped()) return;
        if (SKIP.has(name) || name.startsWith('.')) continue;
        await visit(join(p, name), false);
      }
      return;
    }
    if (!explicit && !YAML.test(p)) return;
    if (!st.isFile()) {
      res.special.push(p);
      return;
    }
    const id = idOf(st);
    if (seenFiles.has(id)) return;
    seenFiles.add(id);
    res.files.push(p);
  };
  for (const t of targets) await visit(t, true);
  return res;
}
