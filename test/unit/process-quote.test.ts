// core/process/quote.ts: every argument survives its shell. POSIX through the real /bin/sh; PowerShell
// and cmd.exe (not on this machine) through their documented rules, written out here as decoders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fc, check } from '../util/fc';
import { shellCommand, shellQuote, defaultShell } from '../../core/process/quote';

const nasty = fc.string({
  unit: fc.constantFrom(
    'a',
    ' ',
    "'",
    '"',
    '\\',
    '$',
    '`',
    '!',
    '%',
    '*',
    '-',
    '@',
    ',',
    '\t',
    '\n',
    '\u2019',
    'é',
    '&',
    '|',
    ';',
    '(',
    ')',
    '#',
    '~',
  ),
  maxLength: 12,
});

test('POSIX: /bin/sh gives back every argument exactly (property)', () => {
  check(
    fc.property(fc.array(nasty, { minLength: 1, maxLength: 4 }), (args) => {
      const line = `printf '%s\\0' ${args.map((a) => shellQuote(a, 'posix')).join(' ')}`;
      const r = spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.split('\0').slice(0, -1), args);
    }),
    60,
  );
});

/** A PowerShell argument token: bare, or single-quoted with '' (and its typographic forms) for a quote. */
function powershellArg(token: string): string {
  if (!token.startsWith("'")) {
    assert.match(token, /^(?!-)[A-Za-z0-9_+=:./\\-]+$/, `bare PowerShell token ${JSON.stringify(token)}`);
    return token;
  }
  assert.ok(token.endsWith("'") && token.length >= 2, token);
  const body = token.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (/['\u2018\u2019\u201a\u201b]/.test(c)) {
      assert.ok(i + 1 < body.length && /['\u2018\u2019\u201a\u201b]/.test(body[i + 1]!), `a lone quote ends the string in ${token}`);
      i++;
    }
    out += c;
  }
  return out;
}

/** The Microsoft C runtime's split of one argument (CommandLineToArgvW), for a token the quoter made. */
function msvcrtArg(token: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < token.length;) {
    let n = 0;
    while (token[i] === '\\') {
      n++;
      i++;
    }
    if (token[i] === '"') {
      out += '\\'.repeat(Math.floor(n / 2));
      if (n % 2) out += '"';
      else quoted = !quoted;
      i++;
    } else {
      out += '\\'.repeat(n);
      if (i < token.length) {
        assert.ok(quoted || !/[ \t]/.test(token[i]!), `an unquoted blank in ${token}`);
        out += token[i];
        i++;
      }
    }
  }
  assert.ok(!quoted, `unbalanced quotes in ${token}`);
  return out;
}

test('PowerShell and cmd.exe: each argument decodes back by the shell rules (property)', () => {
  check(
    fc.property(nasty, (arg) => {
      assert.equal(powershellArg(shellQuote(arg, 'powershell')), arg);
      assert.equal(msvcrtArg(shellQuote(arg, 'cmd')), arg);
    }),
    500,
  );
});

test('plain arguments stay as they are; a quoted program gets PowerShell call operator', () => {
  for (const shell of ['posix', 'powershell', 'cmd'] as const)
    assert.equal(shellQuote('/usr/bin/python3.11', shell), '/usr/bin/python3.11');
  assert.equal(shellQuote('', 'posix'), "''");
  assert.equal(shellQuote("it's", 'posix'), `'it'\\''s'`);
  assert.equal(
    shellCommand(['C:\\Program Files\\Python\\python.exe', '-m', 'pip'], 'powershell'),
    "& 'C:\\Program Files\\Python\\python.exe' '-m' pip",
  );
  assert.equal(shellCommand(['/opt/my env/bin/python', '-m', 'pip'], 'posix'), "'/opt/my env/bin/python' -m pip");
  assert.equal(shellCommand(['python', 'a b'], 'cmd'), 'python "a b"');
  assert.equal(defaultShell('win32'), 'powershell');
  assert.equal(defaultShell('linux'), 'posix');
});
