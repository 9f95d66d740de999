// The one grammar of every `agentjet` subcommand: node:util.parseArgs (strict), so `--opt value` and
// `--opt=value` both work everywhere, `--` ends the options, and an unknown option, a missing value or
// a value outside its choices is refused with the same message in every subcommand (exit status 2).
// A subcommand declares its options as data: { name: { type, choices?, short?, multiple? } }.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { t } from '../core/l10n';

export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The values a string option accepts. */
  choices?: readonly string[];
}
export type CliOptions = Record<string, CliOption>;

type Value<O extends CliOption> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;
export type CliValues<O extends CliOptions> = { [K in keyof O]?: Value<O[K]> };

export type CliParse<O extends CliOptions> =
  { kind: 'ok'; values: CliValues<O>; positionals: string[] } | { kind: 'help' } | { kind: 'error'; message: string };

/** The option a parseArgs error names ('--root', '-x'; the long name of "'-t, --task-id <value>'"). */
function optionIn(message: string): string {
  const quoted = /'(-[^']*)'/.exec(message)?.[1];
  const names = quoted?.match(/-{1,2}[^\s,<]+/g);
  return names?.[names.length - 1] ?? message;
}

/** Parses `args` by `options` (plus -h/--help). Never throws: bad usage is a `kind: 'error'` with the message to print. */
export function parseCli<O extends CliOptions>(args: readonly string[], options: O): CliParse<O> {
  const config: ParseArgsConfig = {
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' } },
  };
  for (const [name, o] of Object.entries(options))
    config.options![name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    const code = (err as { code?: string }).code;
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return { kind: 'error', message: t('unknown option {0}', optionIn(message)) };
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // A string option without its value, or a boolean given one (--flag=x).
      const opt = optionIn(message);
      const name = opt.replace(/^-+/, '').split('=')[0]!;
      const long = options[name] ? name : Object.entries(options).find(([, x]) => x.short === name)?.[0];
      const o = long !== undefined ? options[long] : undefined;
      if (o?.type === 'boolean') return { kind: 'error', message: t('{0} takes no value', opt.split('=')[0]!) };
      // `--task-id -evil`: a value that starts with '-' reads as an option; it is written `--task-id=-evil`.
      // (`--root --json`, a known option next, is a value forgotten: said plainly.)
      const next = args[args.indexOf(opt) + 1];
      const isOption = (a: string) =>
        a === '--' ||
        (a.startsWith('--')
          ? ['help', ...Object.keys(options)].includes(a.slice(2).split('=')[0]!)
          : a.length === 2 && ['h', ...Object.values(options).map((x) => x.short)].includes(a[1]));
      if (long !== undefined && args.includes(opt) && next?.startsWith('-') && !isOption(next))
        return { kind: 'error', message: t("{0} needs a value; a value that starts with '-' is written {1}", opt, `--${long}=${next}`) };
      return { kind: 'error', message: t('{0} needs a value', opt) };
    }
    return { kind: 'error', message };
  }
  const values = { ...parsed.values } as Record<string, string | boolean | string[] | undefined>;
  if (values.help) return { kind: 'help' };
  delete values.help;
  for (const [name, o] of Object.entries(options)) {
    const v = values[name];
    if (!o.choices || v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v])
      if (typeof x === 'string' && !o.choices.includes(x))
        return { kind: 'error', message: t('--{0} must be one of {1}', name, o.choices.join(', ')) };
  }
  return { kind: 'ok', values: values as CliValues<O>, positionals: parsed.positionals };
}

/**
 * parseCli for subcommand `command` with its printing: help to `write` (exit 0), bad usage to
 * `writeErr` with a pointer to the help (exit 2). Returns the parse, or the exit code to return.
 */
export function commandArgs<O extends CliOptions>(
  command: string,
  args: readonly string[],
  options: O,
  help: () => string,
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
): { values: CliValues<O>; positionals: string[] } | number {
  const r = parseCli(args, options);
  if (r.kind === 'help') {
    write(help());
    return 0;
  }
  if (r.kind === 'error') {
    writeErr(`agentjet ${command}: ${r.message}\n${t("Run 'agentjet {0} --help' for its options.", command)}\n`);
    return 2;
  }
  return r;
}
