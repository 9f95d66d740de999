// Lint of files and folders as data: which files are configs, their diagnostics (0-based ranges,
// quick fixes) and which AgentJet judged them. `agentjet lint` prints it; the MCP server and the
// language-model tools answer with it. The AgentJet that judges: a checkout at the root, else the
// one installed in the interpreter the caller handed in (never one found here), else the bundled facts.
import { readInside } from '../fs/inside';
import { lintFileResult } from './lint';
import { collectYamlFiles } from './walk';
import { ClassResolver } from './classref';
import { CachedFs } from './fs';
import { PrefetchFs } from './prefetchFs';
import { PythonLocator } from './pythonenv';
import type { ConfigDiagnostic } from './diagnostics';
import type { FrameworkVersion } from '../agentjet/dialect';
import { AgentJetFactsService, defaultCacheDir } from './agentjetFacts';
import { parseConfig, MAX_SEMANTIC_BYTES } from './parse';
import { WorkspaceTrust } from '../trust/policy';

export interface LintPathsOptions {
  /** Folder class references resolve against, and whose AgentJet judges. */
  root: string;
  /**
   * Interpreter to check built-ins and installed packages with, handed in by whoever owns trust (a
   * flag the user typed, the editor's trust service). Without one no interpreter runs: a checkout
   * at the root or the bundled facts judge. Never looked for here.
   */
  python?: string;
  /** False: run no interpreter even when one is given (Restricted Mode). */
  runPython?: boolean;
  /** Judge by this framework version instead of guessing it per file. */
  version?: FrameworkVersion;
  factsCacheDir?: string;
  signal?: AbortSignal;
  /** The roots every file must really lie in (an agent's lint): others are neither read nor counted. */
  within?: readonly string[];
  /**
   * The caller's thread may block (the CLI): the validator reads the disk and asks the interpreter
   * synchronously. Otherwise (the extension host) nothing blocks: what a check needs from the disk
   * or the interpreter is fetched asynchronously and the file checked again (PrefetchFs).
   */
  mayBlock?: boolean;
}

/** Checks of one file at most (each one fetches what the last one asked and could not know). */
const MAX_ROUNDS = 64;

export interface LintedFile {
  file: string;
  diagnostics: ConfigDiagnostic[];
}

export interface LintPathsResult {
  /** Config files (ours) with their diagnostics, in walk order. */
  files: LintedFile[];
  errors: number;
  warnings: number;
  checked: number;
  judgedBy: string[];
  /** Why the interpreter's AgentJet was not used, when it could not be asked ("`/x/python` did not answer within 8 s"). */
  interpreterProblem?: string;
  /** Named targets or *.yaml entries that are not regular files (FIFOs, sockets, devices). */
  special: string[];
  missing: string[];
  /** The folder walk stopped at MAX_WALK_ENTRIES entries (core/config/walk.ts). */
  truncated?: boolean;
  unreadable: { file: string; error: string }[];
}

/** Lints every config under `targets` (absolute paths). Never throws for a bad file: it is listed as unreadable. */
export async function lintPaths(targets: readonly string[], opts: LintPathsOptions): Promise<LintPathsResult> {
  const { root, version } = opts;
  const python = opts.runPython !== false ? opts.python || undefined : undefined;
  const { files, special, missing, truncated } = await collectYamlFiles(targets, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.within ? { within: opts.within } : {}),
  });
  const out: LintPathsResult = { files: [], errors: 0, warnings: 0, checked: 0, judgedBy: [], special, missing, unreadable: [] };
  if (truncated) out.truncated = true;
  if (missing.length) return out;
  const agentjets = new AgentJetFactsService({
    cacheDir: opts.factsCacheDir ?? process.env.AGENTJET_FACTS_CACHE ?? defaultCacheDir(),
    // The interpreter handed in is the grant; without one nothing may run.
    trust: new WorkspaceTrust(python !== undefined),
    ...(opts.signal && !opts.mayBlock ? { signal: opts.signal } : {}),
  });
  if (!version) {
    agentjets.setFolder(root, python);
    await agentjets.ready(root);
  }
  const judged = new Set<string>();
  const blocking = opts.mayBlock === true;
  const prefetch = blocking ? undefined : new PrefetchFs();
  const fs = prefetch ?? new CachedFs(60_000);
  const locator = python
    ? new PythonLocator(python, { sync: blocking, ...(opts.signal && !blocking ? { signal: opts.signal } : {}) })
    : undefined;
  const resolver = new ClassResolver(fs, locator);
  for (const f of files) {
    if (opts.signal?.aborted) break;
    let res;
    try {
      // Which AgentJet judges it depends on its keys (bundled facts): parse it once here, unless it is too large to check.
      const head = await readInside(f, opts.within, MAX_SEMANTIC_BYTES + 1);
      const text = head.size <= MAX_SEMANTIC_BYTES ? head.bytes.toString('utf8') : '';
      const facts = version ? undefined : agentjets.factsFor(root, parseConfig(text));
      const check = () =>
        lintFileResult(f, {
          root,
          fs,
          resolver,
          ...(version ? { version } : {}),
          ...(facts ? { facts } : {}),
          ...(opts.within ? { within: opts.within } : {}),
        });
      res = await check();
      // Without blocking: fetch what the check asked and could not know, then check again.
      for (let round = 0; prefetch && round < MAX_ROUNDS && (prefetch.misses > 0 || locator?.busy()); round++) {
        await Promise.all([prefetch.fill(opts.signal), locator?.settled()]);
        if (opts.signal?.aborted) break;
        res = await check();
      }
      if (facts && res.ours) judged.add(facts.label);
    } catch (err) {
      out.unreadable.push({ file: f, error: err instanceof Error ? err.message : String(err) });
      out.errors++;
      continue;
    }
    if (!res.ours) continue;
    out.checked++;
    const diagnostics = res.diagnostics.map(({ code, severity, message, range, fixes }) => ({
      code,
      severity,
      message,
      range,
      ...(fixes?.length ? { fixes } : {}),
    }));
    for (const d of diagnostics) {
      if (d.severity === 'error') out.errors++;
      else if (d.severity === 'warning') out.warnings++;
    }
    out.files.push({ file: f, diagnostics });
  }
  out.judgedBy = [...judged];
  const why = version ? undefined : agentjets.problem(root);
  if (why) out.interpreterProblem = why;
  return out;
}
