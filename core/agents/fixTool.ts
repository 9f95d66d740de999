// agentjet_apply_fix: one of lint's quick fixes (the editor's lightbulb: a misspelt key, a renamed
// key, a value outside the accepted set) applied to a config as a file edit, and the config linted
// again. The fix is the one lint offers for the diagnostic on that line (config/lintPaths, the same
// fixes the language server turns into code actions); nothing else of the file changes.
import { writeFile } from 'node:fs/promises';
import { t } from '../l10n';
import { readInside } from '../fs/inside';
import { lintPaths, type LintPathsResult } from '../config/lintPaths';
import { LineIndex } from '../config/text';
import { ToolError, str, int, pathArg, json, shown, insideRoots, type AgentTool, type AgentToolEnv } from './toolkit';
import type { ToolArgs } from './schema';

const MAX_CONFIG_BYTES = 2 * 1024 * 1024;

async function lintOne(env: AgentToolEnv, file: string, signal: AbortSignal | undefined): Promise<LintPathsResult> {
  const python = env.mayRunPython ? await env.python?.() : undefined;
  return lintPaths([file], {
    root: env.roots[0]!,
    runPython: env.mayRunPython,
    ...(python ? { python } : {}),
    ...(env.factsCacheDir ? { factsCacheDir: env.factsCacheDir } : {}),
    ...(signal ? { signal } : {}),
    within: env.roots,
  });
}

const diagnosticsOf = (res: LintPathsResult) =>
  res.files.flatMap((f) =>
    f.diagnostics.map((d) => ({
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      severity: d.severity,
      code: d.code,
      message: d.message,
      ...(d.fixes?.length ? { quickFixes: d.fixes.map((x) => x.title) } : {}),
    })),
  );

/** The quick fix a call names, and where it goes in the file as read (offsets into `text`). */
export interface FixPlan {
  file: string;
  text: string;
  start: number;
  end: number;
  newText: string;
  title: string;
  line: number;
  diagnostic: { code: string; message: string };
}

/** Finds the fix a call of agentjet_apply_fix names (lints the file); changes nothing. */
export async function planFix(args: ToolArgs, env: AgentToolEnv, signal: AbortSignal | undefined): Promise<FixPlan> {
  const file = await insideRoots(env, str(args, 'path'));
  const line = int(args, 'line', 1);
  const code = str(args, 'code');
  const before = await lintOne(env, file, signal);
  const linted = before.files.find((f) => f.file === file) ?? before.files[0];
  if (!linted) throw new ToolError(t('{0} is not an AgentJet/ASTuner config', shown(env, file)));
  const onLine = linted.diagnostics.filter((d) => d.range.start.line + 1 === line && (code === undefined || d.code === code));
  const fixable = onLine.filter((d) => d.fixes?.length);
  if (!fixable.length)
    throw new ToolError(
      onLine.length
        ? t('the diagnostic on line {0} ({1}) has no quick fix; edit the file yourself', line, onLine.map((d) => d.code).join(', '))
        : code
          ? t('no diagnostic {0} on line {1} of {2}; call agentjet_lint for the lines', code, line, shown(env, file))
          : t('no diagnostic on line {0} of {1}; call agentjet_lint for the lines', line, shown(env, file)),
    );
  if (fixable.length > 1 && code === undefined)
    throw new ToolError(
      t('line {0} has several fixable diagnostics ({1}); name one with code', line, fixable.map((d) => d.code).join(', ')),
    );
  const d = fixable[0]!;
  const fixes = d.fixes!;
  const which =
    args.fix !== undefined
      ? int(args, 'fix', 0)
      : Math.max(
          0,
          fixes.findIndex((f) => f.preferred),
        );
  const fix = fixes[which];
  if (!fix) throw new ToolError(t('the diagnostic offers {0} quick fixes (0 to {1})', fixes.length, fixes.length - 1));
  // Read where it is written (a link swapped in since insideRoots is not followed).
  const read = await readInside(file, env.roots, MAX_CONFIG_BYTES + 1);
  if (read.size > MAX_CONFIG_BYTES) throw new ToolError(t('{0} is too large to edit here', shown(env, file)));
  const text = read.bytes.toString('utf8');
  const index = new LineIndex(text);
  const range = fix.range ?? d.range;
  return {
    file,
    text,
    start: index.offset(range.start),
    end: index.offset(range.end),
    newText: fix.newText,
    title: fix.title,
    line,
    diagnostic: { code: d.code, message: d.message },
  };
}

/** The answer once the fix is in the file: what was applied, and the config linted again. */
export async function fixAnswer(plan: FixPlan, env: AgentToolEnv, signal: AbortSignal | undefined): Promise<string> {
  const after = await lintOne(env, plan.file, signal);
  const at = new LineIndex(plan.text).position(plan.start);
  return json({
    applied: plan.title,
    file: shown(env, plan.file),
    diagnostic: { line: plan.line, ...plan.diagnostic },
    edit: { line: at.line + 1, column: at.character + 1, removed: plan.text.slice(plan.start, plan.end), inserted: plan.newText },
    errors: after.errors,
    warnings: after.warnings,
    diagnostics: diagnosticsOf(after).slice(0, 100),
  });
}

export const applyFixTool: AgentTool = {
  name: 'agentjet_apply_fix',
  title: 'Apply a lint quick fix to an AgentJet config',
  description:
    "Applies one of the quick fixes agentjet_lint lists (quickFixes of a diagnostic) to the config file: the diagnostic on `line` (1-based), with `code` when several are on that line, and `fix` (0-based, default the preferred one) when it offers several. Writes the file, lints it again and returns the new diagnostics. Runs the workspace's interpreter only when one was handed in, to ask where packages are installed (as agentjet_lint); nothing is imported.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('The config file, relative to the workspace root or absolute.'),
      line: { type: 'integer', minimum: 1, maximum: 1e7, description: 'The 1-based line of the diagnostic, as agentjet_lint gives it.' },
      code: { type: 'string', minLength: 1, maxLength: 100, description: 'Optional: the diagnostic code (unknown-key, enum, …).' },
      fix: {
        type: 'integer',
        minimum: 0,
        maximum: 20,
        description: 'Optional: which of its quick fixes (0-based; default the preferred).',
      },
    },
    required: ['path', 'line'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'if-given',
  network: false,
  acts: 'edits',
  async run(args, env, signal) {
    const plan = await planFix(args, env, signal);
    await writeFile(plan.file, plan.text.slice(0, plan.start) + plan.newText + plan.text.slice(plan.end));
    return fixAnswer(plan, env, signal);
  },
};
