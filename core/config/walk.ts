// The files `agentjet lint DIR` checks: every *.yaml/*.yml below the targets, following symbolic
// links but never into a folder already being walked (a link loop), and only regular files (a FIFO
// named x.yaml would block the reader; a socket or device is no config).
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { resolveInsideSync } from '../fs/inside';

export interface CollectResult {
  /** Regular files to lint, in walk order (names sorted), each once. */
  files: string[];
  /** Named targets and *.yaml entries that are not regular files (FIFOs, sockets, devices). */
  special: string[];
  /** Named targets that do not exist. */
  missing: string[];
}

const SKIP = new Set(['node_modules', '.git', '__pycache__', '.venv', 'venv']);
const YAML = /\.ya?ml$/i;

const idOf = (st: Stats) => `${st.dev}:${st.ino}`;

/** Collects the files to lint under `targets` (files named explicitly are taken whatever their name). */
export function collectYamlFiles(targets: readonly string[], opts: { within?: readonly string[] } = {}): CollectResult {
  const res: CollectResult = { files: [], special: [], missing: [] };
  const seenFiles = new Set<string>();
  const walking = new Set<string>();
  const visit = (p: string, explicit: boolean): void => {
    let st: Stats;
    try {
      st = statSync(p); // follows links: a dangling one lands in catch
    } catch {
      if (explicit) res.missing.push(p);
      return;
    }
    // With `within` (an agent's lint): nothing whose real path leaves those roots is walked or listed.
    if (opts.within && !resolveInsideSync(p, opts.within).ok) return;
    if (st.isDirectory()) {
      const id = idOf(st);
      if (walking.has(id)) return; // a link back into a folder being walked: a loop
      walking.add(id);
      let names: string[];
      try {
        names = readdirSync(p).sort();
      } catch {
        names = [];
      }
      for (const name of names) {
        if (SKIP.has(name) || name.startsWith('.')) continue;
        visit(join(p, name), false);
      }
      walking.delete(id);
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
  for (const t of targets) visit(t, true);
  return res;
}
