// The one generator of an AgentJet's facts (schema + code facts) from its package folder. The build
// (`npm run gen:schema`, per upstream tree) and the extension/CLI at run time (the user's own
// AgentJet, core/config/agentjetFacts.ts) both call it, so a tree judged live and the facts bundled
// from the same tree are the same. Reading is bounded in files, bytes and time.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { codeFactsOf, type CodeFacts, type CodeFactsByVersion } from './codefacts';
import { generateSchema, type OverlayDoc } from './schemagen';
import type { ConfigSchema } from './schema';
import type { FrameworkVersion } from '../agentjet/dialect';
import { recordedFactNames } from './releaseRules';

/** The files of a package the facts are read from: code, defaults, conversion tables. */
const FACT_FILE_RE = /\.(py|jsonc?|yaml)$/;
/** Folders never read (caches, bundled web assets, tests). */
const SKIP_DIRS = new Set(['__pycache__', 'node_modules', '.git', '.mypy_cache', '.pytest_cache']);

export interface ReadLimits {
  /** At most this many files (default 4000). */
  maxFiles?: number;
  /** Files larger than this are skipped (default 1 MB). */
  maxFileBytes?: number;
  /** Stop after this many bytes in all (default 48 MB). */
  maxTotalBytes?: number;
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
}

export interface PackageSnapshot {
  /** Package-relative paths with `/`, sorted. */
  files: string[];
  texts: Map<string, string>;
  /** SHA-1 of every path and content read (the cache key). */
  hash: string;
  /** A limit cut the reading short. */
  truncated: boolean;
}

const LIMITS: Required<ReadLimits> = { maxFiles: 4000, maxFileBytes: 1 << 20, maxTotalBytes: 48 << 20, timeoutMs: 20000 };

/** Reads a package folder off the request path (awaits between files). */
export async function readPackage(pkgDir: string, limits: ReadLimits = {}): Promise<PackageSnapshot> {
  const lim = { ...LIMITS, ...limits };
  const deadline = Date.now() + lim.timeoutMs;
  const files: string[] = [];
  let truncated = false;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > 12 || files.length >= lim.maxFiles) return;
    let entries;
    try {
      entries = await readdir(join(pkgDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (files.length >= lim.maxFiles) {
        truncated = true;
        return;
      }
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(r, depth + 1);
      } else if (e.isFile() && FACT_FILE_RE.test(e.name)) files.push(r);
    }
  };
  await walk('', 0);
  files.sort();
  const texts = new Map<string, string>();
  const h = createHash('sha1');
  let total = 0;
  // A few files at a time: the event loop stays free, and the disk is not asked one file per turn.
  for (let i = 0; i < files.length; i += 16) {
    if (Date.now() > deadline || total > lim.maxTotalBytes) {
      truncated = true;
      break;
    }
    const batch = files.slice(i, i + 16);
    const read = await Promise.all(
      batch.map(async (f) => {
        try {
          const st = await stat(join(pkgDir, f));
          return st.size > lim.maxFileBytes ? undefined : await readFile(join(pkgDir, f), 'utf8');
        } catch {
          return undefined; // vanished or unreadable: left out
        }
      }),
    );
    batch.forEach((f, j) => {
      const text = read[j];
      if (text === undefined) return;
      total += text.length;
      texts.set(f, text);
      h.update(f).update('\0').update(text).update('\0');
    });
  }
  return { files: files.filter((f) => texts.has(f)), texts, hash: h.digest('hex'), truncated };
}

/** The same, synchronously (build scripts and tests). */
export function readPackageSync(pkgDir: string): PackageSnapshot {
  const files = (readdirSync(pkgDir, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => FACT_FILE_RE.test(f) && !f.split('/').some((s) => SKIP_DIRS.has(s)))
    .filter((f) => {
      try {
        return statSync(join(pkgDir, f)).isFile();
      } catch {
        return false;
      }
    })
    .sort();
  const texts = new Map<string, string>();
  const h = createHash('sha1');
  for (const f of files) {
    const text = readFileSync(join(pkgDir, f), 'utf8');
    texts.set(f, text);
    h.update(f).update('\0').update(text).update('\0');
  }
  return { files, texts, hash: h.digest('hex'), truncated: false };
}

/** Code facts of a package snapshot (`pkg` is the package name: ajet, astuner, astune). */
export function codeFactsOfSnapshot(snap: PackageSnapshot, pkg: string): CodeFacts {
  const facts = codeFactsOf((rel) => snap.texts.get(rel), snap.files, pkg);
  const has = treeFactsOf(snap);
  return has.length ? { ...facts, has } : facts;
}

/**
 * Which of the `def:` and `file:` facts the release rules ask about (core/config/releaseRules.ts)
 * this package has: a file it holds, a function some module of it defines (at any indentation, so
 * methods count too). One pass over each Python file.
 */
export function treeFactsOf(snap: Pick<PackageSnapshot, 'files' | 'texts'>, wanted: readonly string[] = recordedFactNames()): string[] {
  const defs = new Set(wanted.filter((n) => n.startsWith('def:')).map((n) => n.slice(4)));
  const out = new Set<string>();
  for (const n of wanted) if (n.startsWith('file:') && snap.texts.has(n.slice(5))) out.add(n);
  if (defs.size)
    for (const f of snap.files) {
      if (!f.endsWith('.py')) continue;
      for (const m of (snap.texts.get(f) ?? '').matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(/gm))
        if (defs.has(m[1] ?? '')) out.add(`def:${m[1]}`);
    }
  return [...out].sort();
}

/** The code facts of a framework version, read from its package folder on disk. */
export function codeFactsOfDir(pkgDir: string, pkg: string): CodeFacts {
  return codeFactsOfSnapshot(readPackageSync(pkgDir), pkg);
}

export interface ReleaseInfo {
  /** `0.0.4` (pyproject.toml / package metadata); undefined when unknown. */
  release?: string;
  /** Human date of the release when bundled (`May 2026`). */
  date?: string;
}

export interface GeneratedFacts {
  schema: ConfigSchema;
  facts: CodeFacts;
}

/**
 * The schema of an AgentJet package (its `ajet/` folder read into `snap`). `others` are the code
 * facts of the other versions (kept so ASTuner-era checks stay as bundled); this package's facts
 * replace the `agentjet` entry.
 */
export function generateFromSnapshot(
  snap: PackageSnapshot,
  overlay: string | OverlayDoc,
  others: CodeFactsByVersion,
  info: ReleaseInfo = {},
  version: FrameworkVersion = 'agentjet',
): GeneratedFacts | undefined {
  const ajetDefault = snap.texts.get('default_config/ajet_default.yaml');
  const verlDefault = snap.texts.get('default_config/verl/verl_default.yaml');
  const trinityDefault = snap.texts.get('default_config/trinity/trinity_default.yaml');
  if (!ajetDefault || !verlDefault || !trinityDefault) return undefined;
  const facts = codeFactsOfSnapshot(snap, 'ajet');
  const schema = generateSchema({
    ajetDefault,
    verlDefault,
    trinityDefault,
    overlay,
    codeFacts: { ...others, [version]: facts },
    primary: version,
    release: info,
    swarmDefault: snap.texts.get('default_config/ajet_swarm_default.yaml'),
  });
  return { schema, facts };
}
