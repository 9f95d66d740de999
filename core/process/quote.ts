// Quoting arguments for the shell a command line is shown in or pasted into: POSIX sh (Linux, macOS,
// a Remote-SSH server), PowerShell (VS Code's default terminal on Windows) and cmd.exe. The one place
// the product quotes for a shell; test/unit/process-quote.test.ts round-trips each through its rules.

export type Shell = 'posix' | 'powershell' | 'cmd';

/** The shell of the machine this code runs on (the extension host's, over Remote-SSH the server's). */
export function defaultShell(platform: NodeJS.Platform = process.platform): Shell {
  return platform === 'win32' ? 'powershell' : 'posix';
}

/** Arguments each shell passes through as they are, without quotes. */
const PLAIN: Record<Shell, RegExp> = {
  posix: /^[A-Za-z0-9_@%+=:,./-]+$/,
  // Not `,` (PowerShell's array operator), `@` (splatting) or a leading `-` (read as an operator token).
  powershell: /^(?!-)[A-Za-z0-9_+=:./\\-]+$/,
  // Not `%` (cmd.exe expands %NAME% even inside quotes: no quoting protects it).
  cmd: /^[A-Za-z0-9_@+=:,./\\-]+$/,
};

/** One argument, quoted so that `shell` passes it through unchanged. */
export function shellQuote(arg: string, shell: Shell = defaultShell()): string {
  switch (shell) {
    case 'posix':
      // Single quotes keep everything literal; a single quote itself closes, is escaped, reopens.
      return PLAIN.posix.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
    case 'powershell':
      // Single-quoted strings are literal; a quote inside is doubled (so are its typographic forms).
      return PLAIN.powershell.test(arg) ? arg : `'${arg.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;
    case 'cmd':
      return PLAIN.cmd.test(arg) ? arg : cmdQuote(arg);
  }
}

/**
 * cmd.exe hands the line to the program, which splits it as the Microsoft C runtime does
 * (CommandLineToArgvW): inside double quotes, backslashes are literal unless they precede a quote,
 * where 2n backslashes + quote = n backslashes and the quote ends; 2n+1 + quote = n and a literal
 * quote. (cmd.exe itself still expands %NAME% inside quotes: nothing can prevent that.)
 */
function cmdQuote(arg: string): string {
  let out = '"';
  let slashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      slashes++;
      continue;
    }
    if (ch === '"') out += '\\'.repeat(slashes * 2 + 1) + '"';
    else out += '\\'.repeat(slashes) + ch;
    slashes = 0;
  }
  return out + '\\'.repeat(slashes * 2) + '"';
}

/**
 * A whole command line: the program and its arguments, each quoted. PowerShell runs a quoted program
 * path only through its call operator, so there the line starts with `& ` when the program is quoted.
 */
export function shellCommand(argv: readonly string[], shell: Shell = defaultShell()): string {
  const [program, ...args] = argv;
  if (program === undefined) return '';
  const head = shellQuote(program, shell);
  const line = [head, ...args.map((a) => shellQuote(a, shell))].join(' ');
  return shell === 'powershell' && head !== program ? `& ${line}` : line;
}
