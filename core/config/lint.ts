// The linting entry point shared by the CLI, the debug preflight and tests.
import { open, stat } from 'node:fs/promises';
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
  const st = await stat(path);
  if (!st.isFile()) throw new Error(`${path} is not a file`);
  if (st.size > MAX_SEMANTIC_BYTES) {
    // Read only the head to decide whether it is ours; never load huge files whole.
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const head = buf.subarray(0, bytesRead).toString('utf8');
      if (!looksLikeConfig(head)) return { ours: false, diagnostics: [] };
    } finally {
      await fh.close();
    }
    return {
      ours: true,
      diagnostics: [tooLargeDiagnostic(st.size)],
    };
  }
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(path, 'utf8');
  return lintText(text, { ...opts, root: resolve(opts.root ?? process.cwd()), fileName: opts.fileName ?? path });
}
