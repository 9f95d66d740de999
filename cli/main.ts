import { commands } from './commands';
import { VERSION } from './version';
import { localeFromCli, setLocale, t } from '../core/l10n';

const USAGE = `agentjet ${VERSION}: tools for AgentJet (formerly ASTuner) projects

Usage: agentjet <command> [options]

Commands:
${'{commands}'}

Options:
  -h, --help       show this help (or a command's: agentjet <command> --help)
  -v, --version    print the version
  --lang en|zh-cn  language of messages (default: from LANG)
`;

export async function main(argv: string[]): Promise<number> {
  const { locale, rest: args } = localeFromCli(argv, process.env);
  setLocale(locale);
  const [name, ...rest] = args;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    const list = commands.map((c) => `  ${c.name.padEnd(14)} ${t(c.summary)}`).join('\n') || '  (none)';
    process.stdout.write(USAGE.replace('{commands}', list));
    return 0;
  }
  if (name === '-v' || name === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`agentjet: unknown command '${name}'. Run 'agentjet --help'.\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`agentjet: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
