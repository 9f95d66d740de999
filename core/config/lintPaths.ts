// Lint of files and folders as data: which files are configs, their diagnostics (0-based ranges,
// quick fixes) and which AgentJet judged them. `agentjet lint` prints it; the MCP server and the
// language-model tools answer with it. The AgentJet that judges: a checkout at the root, else the
// one installed in the interpreter (only when one may be run), else the bundled facts.
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { lintFileResult } from './lint';
import { collectYamlFiles } from './walk';
import { ClassResolver } from './classref';
import { CachedFs } from './fs';
import { PythonLocator } from './pythonenv';
import type { ConfigDiagnostic } from './diagnostics';
import type { FrameworkVersion } from '../agentjet/dialect';
import { AgentJetFactsService, defaultCacheDir } from './agentjetFacts';
import { parseConfig, MAX_SEMANTIC_BYTES } from './parse';
import { resolveInterpreter } from '../process/resolveInterpreter';

export interface LintPathsOptions {
  /** Folder class references resolve against, and whose AgentJet judges. */
  root: string;
  /** Interpreter to check built-ins and installed packages with (never run when `runPython` is false). */
  python?: string;
  /** False: run no interpreter (Restricted Mode): a checkout at the root or the bundled facts judge. */
  runPython?: boolean;
  /** Judge by this framework version instead of guessing it per file. */
  version?: FrameworkVersion;
  factsCacheDir?: string;
  signal?: AbortSignal;
}

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
  const runPython = opts.runPython !== false;
  const { files, special, missing, truncated } = await collectYamlFiles(targets, opts.signal ? { signal: opts.signal } : {});
  const out: LintPathsResult = { files: [], errors: 0, warnings: 0, checked: 0, judgedBy: [], special, missing, unreadable: [] };
  if (truncated) out.truncated = true;
  if (missing.length) return out;
  const agentjets = new AgentJetFactsService({
    cacheDir: opts.factsCacheDir ?? process.env.AGENTJET_FACTS_CACHE ?? defaultCacheDir(),
    fallbackPython: '',
  });
  if (!version) {
    const interp = runPython ? (opts.python ?? resolveInterpreter({ folder: root }, existsSync).path) : undefined;
    agentjets.setFolder(root, interp);
    await agentjets.ready(root);
  }
  const judged = new Set<string>();
  const fs = new CachedFs(60_000);
  const resolver = new ClassResolver(fs, runPython && opts.python ? new PythonLocator(opts.python, { sync: true }) : undefined);
  for (const f of files) {
    if (opts.signal?.aborted) break;
    let res;
    try {
      // Which AgentJet judges it depends on its keys (bundled facts): parse it once here, unless it is too large to check.
      const small = statSync(f).size <= MAX_SEMANTIC_BYTES;
      const text = small ? await readFile(f, 'utf8').catch(() => '') : '';
      const facts = version ? undefined : agentjets.factsFor(root, parseConfig(text));
      res = await lintFileResult(f, { root, fs, resolver, ...(version ? { version } : {}), ...(facts ? { facts } : {}) });
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
