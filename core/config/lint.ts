// The linting entry point shared by the CLI, the debug preflight and tests.
import { readInside, RefusedPathError } from '../fs/inside';
import { resolve } from 'node:path';
import type { ConfigDiagnostic, LintDiagnostic } from './diagnostics';
import { looksLikeConfig, parseConfig, tooLargeDiagnostic, MAX_SEMANTIC_BYTES } from './parse';
import { validateParsed, type ValidateOptions } from './validate';
import type { Family } from '../agentjet/dialect';
import { generatedConfigDiagnostic, isGeneratedPatchConfig } from '../agentjet/generated';
import { t } from '../l10n';

export type { LintDiagnostic } from './diagnostics';

export interface LintOptions extends Omit<ValidateOptions, 'root'> {
  /** Folder class references resolve against (default: the current directory). */
  root?: string;
  dialect?: Family;
  /** The roots the file must really lie in (an agent's lint); undefined: any file. */
  within?: readonly string[];
}

export interface LintResult {
  /** False when the file is not an AgentJet/ASTuner config (no diagnostics then). */
  ours: boolean;
  diagnostics: ConfigDiagnostic[];
}

/** Lints text; the BOM, CRLF and binary junk are tolerated. */
export function lintText(text: string, opts: LintOptions = {}): LintResult {
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text; // keep offsets stable
  if (!looksLikeConfig(body)) return { ours: false, diagnostics: [] };
  if (opts.fileName && isGeneratedPatchConfig(opts.fileName, body))
    return { ours: true, diagnostics: [generatedConfigDiagnostic(opts.fileName)] };
  if (body.length > MAX_SEMANTIC_BYTES) {
    return {
      ours: true,
      diagnostics: [tooLargeDiagnostic(body.length)],
    };
  }
  const parsed = parseConfig(body, { dialect: opts.dialect });
  if (!parsed.doc) {
    const diags = validateParsed(parsed, opts);
    return { ours: diags.length > 0, diagnostics: diags };
  }
  return { ours: true, diagnostics: validateParsed(parsed, { ...opts, root: opts.root ?? process.cwd() }) };
}

/** Reads and lints one file. Returns [] when the file is not an AgentJet/ASTuner config. */
export async function lintFile(path: string, opts: { root?: string } & LintOptions = {}): Promise<LintDiagnostic[]> {
  let res: LintResult;
  try {
    res = await lintFileResult(path, opts);
  } catch (err) {
    // A config that cannot be read would fail the launch too: report it rather than throw.
    const e = err as NodeJS.ErrnoException;
    const message =
      e.code === 'ENOENT'
        ? t('{0} does not exist.', path)
        : e.code === 'EACCES'
          ? t('{0} is not readable.', path)
          : `${path} ${e.message ?? String(err)}.`;
    return [
      { code: 'unreadable', severity: 'error', message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
    ];
  }
  return res.diagnostics.map(({ code, severity, message, range }) => ({ code, severity, message, range }));
}

export async function lintFileResult(path: string, opts: LintOptions = {}): Promise<LintResult> {
  // Opened once, checked where it is opened (core/fs/inside): never blocks on a FIFO, and with
  // `within` never reads what lies outside those roots.
  const { bytes, size } = await readInside(path, opts.within, MAX_SEMANTIC_BYTES + 1).catch((err: unknown) => {
    if (err instanceof RefusedPathError) throw new Error(err.code === 'ENOTREG' ? `${path} is not a file` : err.message);
    throw err;
  });
  if (size > MAX_SEMANTIC_BYTES) {
    // Only the head decides whether it is ours; huge files are never loaded whole.
    if (!looksLikeConfig(bytes.subarray(0, 64 * 1024).toString('utf8'))) return { ours: false, diagnostics: [] };
    return { ours: true, diagnostics: [tooLargeDiagnostic(size)] };
  }
  return lintText(bytes.toString('utf8'), { ...opts, root: resolve(opts.root ?? process.cwd()), fileName: opts.fileName ?? path });
}
