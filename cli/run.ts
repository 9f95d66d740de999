// The CLI's command line: help, version, the language flag, and the command it names.
import type { CliCommand } from './commands';
import { VERSION } from './version';
import { quietOnClosedPipe } from './pipe';
import { localeFromCli, setLocale, t } from '../core/l10n';

const usage = (list: string) =>
  t(
    `agentjet {0}: tools for AgentJet (formerly ASTuner) projects

Usage: agentjet <command> [options]

Commands:
{1}

Options:
  -h, --help       show this help (or a command's: agentjet <command> --help)
  -v, --version    print the version
  --lang en|zh-cn  language of messages (default: from LANG)
`,
    VERSION,
    list,
  );

/** Runs one command line against `commands` (the whole CLI, or the launcher's one-command bundle). */
export async function main(argv: string[], commands: readonly CliCommand[]): Promise<number> {
  const { locale, rest: args } = localeFromCli(argv, process.env);
  setLocale(locale);
  const [name, ...rest] = args;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    const list = commands.map((c) => `  ${c.name.padEnd(14)} ${t(c.summary)}`).join('\n') || `  ${t('(none)')}`;
    process.stdout.write(usage(list));
    return 0;
  }
  if (name === '-v' || name === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`agentjet: ${t("unknown command '{0}'. Run 'agentjet --help'.", name)}\n`);
    return 2;
  }
  return command.run(rest);
}

/** The process around main(): quiet on a closed pipe, the exit code set, a thrown error said. */
export function runCli(commands: readonly CliCommand[]): void {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  main(process.argv.slice(2), commands).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`agentjet: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
