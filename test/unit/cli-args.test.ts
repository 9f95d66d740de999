// One grammar for every `agentjet` subcommand (cli/args.ts over node:util.parseArgs): `--opt=value` and
// `--opt value` alike, help for each, and the same refusal of an unknown option or a missing value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCli } from '../../cli/args';
import { commands } from '../../cli/commands';
import { runCli } from '../util/cliRun';

const opts = { format: { type: 'string', choices: ['text', 'json'] }, root: { type: 'string' }, json: { type: 'boolean' } } as const;

test('--opt=value and --opt value read the same; -- ends the options', () => {
  const a = parseCli(['--format=json', 'x', '--root', '/r', '--json'], opts);
  const b = parseCli(['--format', 'json', 'x', '--root=/r', '--json'], opts);
  assert.deepEqual(a, b);
  assert.deepEqual(a, { kind: 'ok', values: { format: 'json', root: '/r', json: true }, positionals: ['x'] });
  assert.deepEqual(parseCli(['--', '--format'], opts), { kind: 'ok', values: {}, positionals: ['--format'] });
});

test('help, unknown options, missing values, values outside the choices', () => {
  assert.deepEqual(parseCli(['x', '-h'], opts), { kind: 'help' });
  assert.deepEqual(parseCli(['--help'], opts), { kind: 'help' });
  assert.deepEqual(parseCli(['--bogus'], opts), { kind: 'error', message: 'unknown option --bogus' });
  assert.deepEqual(parseCli(['--root'], opts), { kind: 'error', message: '--root needs a value' });
  assert.deepEqual(parseCli(['--root', '--json'], opts), { kind: 'error', message: '--root needs a value' });
  assert.deepEqual(parseCli(['--json=yes'], opts), { kind: 'error', message: '--json takes no value' });
  assert.deepEqual(parseCli(['--format=xml'], opts), { kind: 'error', message: '--format must be one of text, json' });
});

const run = (name: string, args: string[]) => runCli(name, args);

/** Every subcommand, with the words that reach its options. */
const SUBCOMMANDS: [string, string[]][] = [
  ['lint', []],
  ['log', ['stats']],
  ['runs', []],
  ['new', []],
  ['doctor', []],
  ['swarm', ['status']],
  ['debug-task', []],
  ['mcp', []],
  ['diagnose', []],
  ['stacks', []],
  ['metrics', []],
  ['compare', []],
];

test('every subcommand: --help prints its usage (exit 0); an unknown option is refused by name (exit 2)', async () => {
  assert.deepEqual(SUBCOMMANDS.map(([n]) => n).sort(), commands.map((c) => c.name).sort(), 'every subcommand is listed here');
  for (const [name, head] of SUBCOMMANDS) {
    const help = await run(name, [...head, '--help']);
    assert.equal(help.code, 0, `${name} --help`);
    assert.match(help.out, /Usage:\s+agentjet/, `${name} --help prints its usage`);
    const bad = await run(name, [...head, '--no-such-option=1']);
    assert.equal(bad.code, 2, `${name} --no-such-option`);
    assert.match(bad.err, /unknown option '?--no-such-option/, `${name} names the option: ${bad.err}`);
  }
});

test('lint and runs take --format=json as --format json (the refusal the issue found)', async () => {
  const a = await run('lint', ['--format=json', 'no/such/file.yaml']);
  const b = await run('lint', ['--format', 'json', 'no/such/file.yaml']);
  assert.equal(a.code, 2);
  assert.deepEqual(a, b, 'the same answer: the file is missing, the option was understood');
  assert.match(a.err, /no such file or folder/);
  const c = await run('runs', ['--format=yaml']);
  assert.equal(c.code, 2);
  assert.match(c.err, /--format must be one of text, json/);
});
