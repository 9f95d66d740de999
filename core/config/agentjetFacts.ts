// Finds the user's AgentJet and reads its facts at run time, so a config is judged by the AgentJet
// the user really has. Order: a workspace folder that is an AgentJet (or ASTuner/ASTune) checkout,
// then the package installed in the folder's interpreter (located with importlib.util.find_spec,
// never imported), else the bundled facts (core/config/releases.ts). Reading happens off the
// request path; results are cached in memory and on disk by content hash.
import { createHash } from 'node:crypto';
import { askInterpreter, interpreterFailure, INTERPRETER_ANSWER_MS } from '../process/interpreter';
import { unreadDefaults } from './fileKind';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import overlayJson from '../../schemas/overlay.json';
import codeFactsJson from '../../schemas/codefacts.json';
import { generateFromSnapshot, codeFactsOfSnapshot, readPackage, type ReadLimits } from './factsgen';
import { loadPython } from './pyparse';
import type { OverlayDoc } from './schemagen';
import { recordedFactNames } from './releaseRules';
import type { CodeFactsByVersion } from './codefacts';
import type { ConfigSchema } from './schema';
import { baseFacts, bundledFor, labelOf, type JudgingFacts } from './releases';
import type { ParsedConfig } from './parse';
import { t } from '../l10n';
import { overBudget, type FactsBudget } from './factsBudget';
import { FactsDiskCache } from './factsCache';
import type { WorkspaceTrust } from '../trust/policy';

/** Bumped when the generator's output changes, so old cache entries are not reused. */
const GENERATOR_VERSION = '4';

let stamp: string | undefined;
/**
 * What else the generated facts depend on: the overlay, the other versions' code facts and the
 * base schema (which `npm run gen:schema` regenerates whenever the generator's output changes, a
 * test checks it is current), so a new extension build never reuses an older build's entries.
 */
function generatorStamp(): string {
  stamp ??= createHash('sha1')
    .update(GENERATOR_VERSION)
    .update(JSON.stringify(overlayJson))
    .update(JSON.stringify(codeFactsJson))
    .update(JSON.stringify(baseFacts().schema))
    // The facts the release rules ask about: a new rule's fact is read afresh from the user's tree.
    .update(recordedFactNames().join('\n'))
    .digest('hex');
  return stamp;
}

export type FrameworkPackage = 'ajet' | 'astuner' | 'astune';

export interface FoundAgentJet {
  /** The package folder (`…/ajet`). */
  pkgDir: string;
  pkg: FrameworkPackage;
  origin: 'checkout' | 'installed';
  release?: string;
}

const DEFAULTS_OF: Record<FrameworkPackage, string> = {
  ajet: 'default_config/ajet_default.yaml',
  astuner: 'default_config/astune_default.yaml',
  astune: 'default_config/astune_default.yaml',
};

/** `version = "0.0.4"` of a pyproject.toml's [project] table. */
export function releaseOfPyproject(text: string): string | undefined {
  const project = /^\[project\][^[]*/m.exec(text)?.[0] ?? '';
  return /^\s*version\s*=\s*["']([^"']+)["']/m.exec(project)?.[1];
}

function pyprojectRelease(dir: string): string | undefined {
  try {
    return releaseOfPyproject(readFileSync(join(dir, 'pyproject.toml'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** A folder that is a checkout of AgentJet (`ajet/default_config/`) or of ASTuner/ASTune. */
export function findCheckout(folder: string): FoundAgentJet | undefined {
  for (const pkg of ['ajet', 'astuner', 'astune'] as const) {
    const pkgDir = join(folder, pkg);
    if (existsSync(join(pkgDir, DEFAULTS_OF[pkg]))) {
      const release = pyprojectRelease(folder);
      return { pkgDir, pkg, origin: 'checkout', ...(release ? { release } : {}) };
    }
  }
  return undefined;
}

// Locates without importing: find_spec of a top-level name reads no module code (editable installs
// answer through their .pth path entries or finder hooks). The working directory is dropped from
// sys.path so a folder there named like the package cannot answer for the installed one.
const LOCATE = `import importlib.util, json, os, sys
cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if p not in ('', '.', cwd)]
out = {}
for n in ('ajet', 'astuner', 'astune'):
    try:
        s = importlib.util.find_spec(n)
    except Exception:
        s = None
    locs = list(s.submodule_search_locations or []) if s else []
    if locs:
        out[n] = {'dir': locs[0]}
        try:
            import importlib.metadata as md
            dist = {'ajet': 'agentjet', 'astuner': 'agentscope-tuner', 'astune': 'agentscope-tuner'}[n]
            out[n]['version'] = md.version(dist)
        except Exception:
            pass
print(json.dumps(out))`;

/** The framework package installed in an interpreter (not imported), or undefined. */
export async function findInstalled(
  python: string,
  timeoutMs = INTERPRETER_ANSWER_MS,
  env?: NodeJS.ProcessEnv,
): Promise<FoundAgentJet | undefined> {
  return (await locateInstalled(python, timeoutMs, env)).found;
}

/**
 * The framework package installed in an interpreter, and when the interpreter could not be asked,
 * why in words ("`/x/python` did not answer within 8 s"), for the "judged by" lines.
 */
export async function locateInstalled(
  python: string,
  timeoutMs = INTERPRETER_ANSWER_MS,
  env?: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ found?: FoundAgentJet; problem?: string }> {
  let stdout: string;
  try {
    ({ stdout } = await askInterpreter(python, ['-c', LOCATE], {
      timeoutMs,
      cwd: tmpdir(),
      env: env ?? process.env,
      maxBuffer: 1 << 20,
      ...(signal ? { signal } : {}),
    }));
  } catch (err) {
    return { problem: interpreterFailure(python, err) };
  }
  if (!stdout) return {};
  let res: Record<string, { dir: string; version?: string }>;
  try {
    res = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, { dir: string; version?: string }>;
  } catch {
    return {};
  }
  for (const pkg of ['ajet', 'astuner', 'astune'] as const) {
    const hit = res[pkg];
    if (!hit || !existsSync(join(hit.dir, DEFAULTS_OF[pkg]))) continue;
    // The release is the package metadata's (what pip installed), never `ajet.__version__` (AgentJet's
    // says 0.1.0 while its releases are 0.0.x); an editable install without metadata: its checkout's pyproject.toml.
    const release = hit.version ?? pyprojectRelease(dirname(hit.dir));
    return { found: { pkgDir: hit.dir, pkg, origin: 'installed', ...(release ? { release } : {}) } };
  }
  return {};
}

const VERSION_OF: Record<FrameworkPackage, 'agentjet' | 'astuner-2025-12' | 'astune'> = {
  ajet: 'agentjet',
  astuner: 'astuner-2025-12',
  astune: 'astune',
};

export { FactsDiskCache } from './factsCache';

export interface ReadFactsOptions {
  cache?: FactsDiskCache;
  limits?: ReadLimits;
  budget?: FactsBudget;
}

/** A user's AgentJet not read because its files cost more than the budget (core/config/factsBudget.ts). */
export class FactsBudgetError extends Error {
  constructor(
    readonly pkgDir: string,
    readonly reason: string,
  ) {
    super(t('the AgentJet at {0} was not read: {1}', pkgDir, reason));
    this.name = 'FactsBudgetError';
  }
}

/** Reads a found AgentJet into judging facts (cached by the content of the files read). */
export async function readFacts(found: FoundAgentJet, opts: ReadFactsOptions = {}): Promise<JudgingFacts | undefined> {
  const snap = await readPackage(found.pkgDir, opts.limits);
  if (!snap.files.length) return undefined;
  // Measured before anything is parsed: an AgentJet whose files cost more than the budget is not read.
  const over = overBudget(snap.texts, opts.budget);
  if (over) throw new FactsBudgetError(found.pkgDir, over);
  const key = createHash('sha1')
    .update(`${generatorStamp()}\0${found.pkg}\0${found.release ?? ''}\0${snap.hash}`)
    .digest('hex');
  const meta = { origin: found.origin, release: found.release, location: found.pkgDir, pkg: found.pkg } as const;
  const facts = (schema: ConfigSchema): JudgingFacts => ({
    schema,
    origin: found.origin,
    location: found.pkgDir,
    ...(found.release ? { release: found.release } : {}),
    label: labelOf(meta),
  });
  const hit = await opts.cache?.get(key);
  if (hit) return facts(hit);
  // The code facts come from Python syntax trees: the parser loads on the first read (once).
  await loadPython();
  const others = codeFactsJson as CodeFactsByVersion;
  let schema: ConfigSchema | undefined;
  if (found.pkg === 'ajet') {
    schema = generateFromSnapshot(snap, overlayJson as OverlayDoc, others, {
      ...(found.release ? { release: found.release } : {}),
    })?.schema;
  } else {
    // ASTuner-era trees keep the AgentJet-shaped base schema; their own code says which keys they read.
    const base = structuredClone(baseFacts().schema);
    const cf = codeFactsOfSnapshot(snap, found.pkg);
    const versions = found.pkg === 'astuner' ? (['astuner-2025-12', 'astuner-2025-11'] as const) : ([VERSION_OF[found.pkg]] as const);
    base['x-versionKeys'] = { ...base['x-versionKeys'] };
    for (const v of versions) base['x-versionKeys'][v] = cf.readKeys;
    base['x-release'] = { ...(found.release ? { release: found.release } : {}) };
    schema = base;
  }
  if (!schema) return undefined;
  await opts.cache?.put(key, schema);
  return facts(schema);
}

/** The cache folder of the CLI and the language server outside VS Code. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || process.env.USERPROFILE || tmpdir(), '.cache');
  return join(base, 'agentjet-vscode', 'facts');
}

interface FolderState {
  python: string | undefined;
  /** The installed package was not asked about: the workspace is not trusted yet. */
  waitedForTrust?: boolean;
  found?: FoundAgentJet;
  /** Why the interpreter told nothing (it did not answer, does not exist), in words. */
  problem?: string;
  facts?: JudgingFacts;
  pending?: Promise<JudgingFacts | undefined>;
}

export interface FactsServiceOptions {
  cacheDir?: string;
  /** Called when a folder's facts are read (documents judged by bundled facts are checked again). */
  onChange?: (folder: string) => void;
  limits?: ReadLimits;
  /** The interpreter tried when a folder has none (default: none; core never picks one itself). */
  fallbackPython?: string;
  /**
   * The workspace's trust: until it is granted no interpreter is asked (a checkout in the folder is
   * still read, as text); a later `setFolder` then asks. Missing means not trusted: whoever hands
   * in an interpreter also says it may run (the editor's trust, a flag the user typed).
   */
  trust?: WorkspaceTrust;
  /** Ends the interpreter questions in flight when it aborts (an agent tool's call, cancelled). */
  signal?: AbortSignal;
}

/**
 * The AgentJet of each workspace folder. `factsFor` never waits: until the folder's AgentJet is
 * read it answers with the bundled facts that fit the file, marked provisional.
 */
export class AgentJetFactsService {
  private readonly folders = new Map<string, FolderState>();
  private readonly cache: FactsDiskCache | undefined;
  constructor(private readonly opts: FactsServiceOptions = {}) {
    this.cache = opts.cacheDir === '' ? undefined : new FactsDiskCache(opts.cacheDir ?? defaultCacheDir());
  }

  /** Registers a folder (or changes its interpreter); reading starts in the background. */
  setFolder(folder: string, python: string | undefined): void {
    const cur = this.folders.get(folder);
    // The same interpreter again is nothing new, unless its probe waited for a trust granted since.
    if (cur && cur.python === python && !(cur.waitedForTrust && this.mayProbe())) return;
    const state: FolderState = { python };
    this.folders.set(folder, state);
    state.pending = this.resolve(folder, state);
  }

  removeFolder(folder: string): void {
    this.folders.delete(folder);
  }

  /**
   * A file changed on disk: when it lies in a folder's AgentJet package (its defaults, a
   * conversion table), that AgentJet is read again (the content hash decides whether anything
   * changed). Returns the folders being re-read.
   */
  fileChanged(path: string): string[] {
    const out: string[] = [];
    for (const [folder, s] of this.folders) {
      const dir = s.found?.pkgDir;
      if (!dir || !(path.startsWith(dir + '/') || path.startsWith(dir + '\\'))) continue;
      const state: FolderState = { python: s.python };
      this.folders.set(folder, state);
      state.pending = this.resolve(folder, state);
      out.push(folder);
    }
    return out;
  }

  private mayProbe(): boolean {
    return this.opts.trust?.allows('probe-packages') === true;
  }

  private async resolve(folder: string, state: FolderState): Promise<JudgingFacts | undefined> {
    // The caller stores this promise as `state.pending` after the call returns: with nothing to
    // wait for (no checkout, no probe in Restricted Mode) the end below must still come after that.
    await Promise.resolve();
    let found = findCheckout(folder);
    const python = state.python ?? (this.opts.fallbackPython || undefined);
    let problem: string | undefined;
    if (!found && python) {
      if (!this.mayProbe()) state.waitedForTrust = true;
      else ({ found, problem } = await locateInstalled(python, INTERPRETER_ANSWER_MS, undefined, this.opts.signal));
    }
    let facts: JudgingFacts | undefined;
    if (found) {
      try {
        facts = await readFacts(found, {
          ...(this.cache ? { cache: this.cache } : {}),
          ...(this.opts.limits ? { limits: this.opts.limits } : {}),
        });
      } catch (err) {
        facts = undefined;
        // Said where the judging AgentJet is named ("...: judged by bundled facts of ...").
        if (err instanceof FactsBudgetError) problem = err.message;
      }
      // Found, but nothing read from it (its defaults file a FIFO, unreadable): why, in words.
      if (!facts && !problem) problem = await unreadDefaults(join(found.pkgDir, DEFAULTS_OF[found.pkg]));
    }
    if (this.folders.get(folder) !== state) return facts; // superseded
    state.found = found;
    if (problem) state.problem = problem;
    state.facts = facts;
    state.pending = undefined;
    this.opts.onChange?.(folder);
    return facts;
  }

  /** Waits for a folder's AgentJet (the CLI; tests). */
  async ready(folder: string): Promise<JudgingFacts | undefined> {
    const s = this.folders.get(folder);
    if (!s) return undefined;
    return s.pending ? await s.pending : s.facts;
  }

  /** Why a folder's interpreter told nothing ("`/x/python` did not answer within 8 s"), if it did not. */
  problem(folder: string): string | undefined {
    return this.folders.get(folder)?.problem;
  }

  /** What was found for a folder (undefined while reading or when nothing was). */
  found(folder: string): FoundAgentJet | undefined {
    return this.folders.get(folder)?.found;
  }

  /** The facts that judge a parsed config of `folder`. */
  factsFor(folder: string | undefined, p: ParsedConfig): JudgingFacts {
    const s = folder ? this.folders.get(folder) : undefined;
    const own = s?.facts;
    const pkg = own && s?.found?.pkg;
    if (own && pkg && p.rootKey === pkg) return own;
    const bundled = bundledFor(p);
    if (s?.pending) return { ...bundled, provisional: true };
    return s?.problem ? { ...bundled, notUsed: s.problem } : bundled;
  }
}
