// The CLI's `--lang X` / `--lang=X` flag, apart from the catalogues: the CLI's launcher
// (cli/entry.ts) finds the command with it before any catalogue is loaded.

/** The arguments without `--lang`, and the flag's value when it was given (the last one wins). */
export function splitLangFlag(argv: readonly string[]): { flag: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let flag: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--lang') {
      flag = argv[++i] ?? '';
      continue;
    }
    if (a.startsWith('--lang=')) {
      flag = a.slice('--lang='.length);
      continue;
    }
    rest.push(a);
  }
  return { flag, rest };
}
