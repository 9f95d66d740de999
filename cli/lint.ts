// `agentjet lint <files|folders> [--root DIR] [--format text|json] [--python PATH]`
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, resolve, relative, sep } from 'node:path';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { lintPaths } from '../core/config/lintPaths';
import type { ConfigDiagnostic } from '../core/config/diagnostics';
import { FRAMEWORK_VERSIONS, isFrameworkVersion, type FrameworkVersion } from '../core/agentjet/dialect';
import { MAX_WALK_ENTRIES } from '../core/config/walk';
import { t } from '../core/l10n';
import { resolveInterpreter } from '../core/process/resolveInterpreter';

const help = () =>
  t(`Usage: agentjet lint <files or folders...> [options]

Checks AgentJet/ASTuner YAML configs (files whose root mapping has ajet:, astuner: or astune:).
Folders are searched for *.yaml / *.yml; other YAML files are skipped.

Options:
  --root DIR          folder class references resolve against (default: current directory)
  --format text|json  output format (default: text)
  --python PATH       interpreter used to check framework built-ins (ajet.*) and installed packages;
                      the AgentJet installed there judges the configs (unless --root is a checkout);
                      default: .venv/venv in the root, else python3 (the one used is said)
  --framework VERSION judge by this framework version instead of guessing it from each file:
                      agentjet, astuner-2025-12, astuner-2025-11 or astune
  -h, --help          show this help

Exit status: 0 when no errors, 1 when any error was found, 2 on bad usage.
`);

const LINT_OPTIONS = {
  root: { type: 'string' },
  format: { type: 'string', choices: ['text', 'json'] },
  python: { type: 'string' },
  framework: { type: 'string', choices: FRAMEWORK_VERSIONS },
} as const;

/**
 * A file's name relative to the working directory. The working directory is always a real path, so
 * a file named through a symbolic link (a symlinked home, a linked checkout) is named by its real
 * path when that lies inside the working directory, instead of climbing out with `../..`.
 */
function shownName(file: string): string {
  const cwd = process.cwd();
  // Another drive (Windows) gives an absolute path: outside too.
  const outside = (r: string) => r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r);
  const rel = relative(cwd, file);
  if (!outside(rel)) return rel || file;
  try {
    const real = relative(cwd, realpathSync(file));
    if (!outside(real)) return real || file;
  } catch {
    // Gone since the walk: named as given.
  }
  return rel;
}

export async function runLint(
  args: string[],
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const parsed = commandArgs('lint', args, LINT_OPTIONS, help, write, writeErr);
  if (typeof parsed === 'number') return parsed;
  const { values: o, positionals: targets } = parsed;
  const root = o.root !== undefined ? resolve(o.root) : process.cwd();
  const format = o.format === 'json' ? 'json' : 'text';
  // A person typed this command in their folder: its interpreter is theirs to run (said below).
  const interp = o.python ? { path: o.python, source: 'setting' as const } : resolveInterpreter({ folder: root }, existsSync);
  const python = interp.path;
  const version: FrameworkVersion | undefined = o.framework !== undefined && isFrameworkVersion(o.framework) ? o.framework : undefined;
  if (!targets.length) {
    writeErr(help());
    return 2;
  }
  const res = await lintPaths(
    targets.map((x) => resolve(x)),
    // A command line has nothing else to do meanwhile: it reads and asks synchronously.
    { root, python, mayBlock: true, ...(version ? { version } : {}) },
  );
  if (res.missing.length) {
    writeErr(`agentjet lint: ${t('no such file or folder: {0}', res.missing.join(', '))}\n`);
    return 2;
  }
  // A FIFO, socket or device named *.yaml is no config: said, not counted as a problem.
  for (const f of res.special) writeErr(`${t('{0}: skipped, not a regular file', shownName(f))}\n`);
  if (res.truncated)
    writeErr(`${t('the folder walk stopped after {0} entries; name a smaller folder to check the rest', String(MAX_WALK_ENTRIES))}\n`);
  for (const u of res.unreadable) writeErr(`${t('{0}: cannot read: {1}', u.file, u.error)}\n`);
  const { errors, warnings, checked } = res;
  const judged = res.judgedBy;
  const json: { file: string; diagnostics: ConfigDiagnostic[] }[] = [];
  for (const f of res.files) {
    const shown = shownName(f.file);
    const diags = f.diagnostics.map(({ code, severity, message, range }) => ({ code, severity, message, range }));
    if (format === 'json') json.push({ file: shown, diagnostics: diags });
    else
      for (const d of diags)
        write(`${shown}:${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity} ${d.code} ${d.message}\n`);
  }
  // Why the interpreter's AgentJet was not used, when it could not be asked (said, never silent).
  const why = res.interpreterProblem;
  if (format === 'json')
    write(
      JSON.stringify(
        { files: json, errors, warnings, checked, judgedBy: judged, python, ...(why ? { interpreterProblem: why } : {}) },
        null,
        2,
      ) + '\n',
    );
  else {
    const from = interp.source === 'setting' ? '--python' : interp.source === 'venv' ? t('the virtual environment in the root') : t('PATH');
    if (!version) writeErr(`${t('interpreter: {0} (from {1})', python, from)}\n`);
    if (judged.length && why) writeErr(`${t('{0}: judged by {1}', why, judged.join('; '))}\n`);
    else if (judged.length) writeErr(`${t('judged by {0}', judged.join('; '))}\n`);
    writeErr(
      `${t('{0} checked: {1}, {2}', checked === 1 ? t('1 config') : t('{0} configs', checked), errors === 1 ? t('1 error') : t('{0} errors', errors), warnings === 1 ? t('1 warning') : t('{0} warnings', warnings))}\n`,
    );
  }
  return errors > 0 ? 1 : 0;
}

export const lintCommand: CliCommand = {
  name: 'lint',
  summary: 'check AgentJet/ASTuner YAML configs (exit 1 on errors)',
  run: (args) => runLint(args),
};
