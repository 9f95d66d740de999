// The CLI's launcher (cli/entry.ts, dist/cli.js): `log` loads its own small bundle only, every
// other command the whole CLI, and `--lang` before the command does not hide it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { repoRoot } from '../util/paths';
import { splitLangFlag } from '../../core/l10n/langFlag';
import pkg from '../../package.json';

let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aj-launcher-'));
  // As scripts/build.mjs lays them out: three bundles side by side.
  for (const [src, out] of [
    ['entry.ts', 'cli.js'],
    ['main.ts', 'cli-main.js'],
    ['logMain.ts', 'cli-log.js'],
  ] as const)
    await esbuild.build({
      entryPoints: [join(repoRoot, 'cli', src)],
      outfile: join(dir, out),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      loader: { '.py': 'text' },
      logLevel: 'error',
    });
});

after(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(dir, 'cli.js'), ...args], { encoding: 'utf8', env: { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '' } });

test('splitLangFlag takes --lang X and --lang=X out, the last one wins', () => {
  assert.deepEqual(splitLangFlag(['--lang', 'zh-cn', 'log', 'stats', '--lang=en', 'f']), { flag: 'en', rest: ['log', 'stats', 'f'] });
  assert.deepEqual(splitLangFlag(['log', '--lang']), { flag: '', rest: ['log'] });
  assert.deepEqual(splitLangFlag(['runs']), { flag: undefined, rest: ['runs'] });
});

test('the launcher runs every command through the whole CLI, and log through its own bundle', () => {
  const version = run('--version');
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), pkg.version);
  const zh = run('--lang', 'zh-cn', 'log', '--help');
  assert.equal(zh.status, 0, zh.stderr);
  assert.match(zh.stdout, /用法/);
  const missing = run('log', 'stats', join(dir, 'no-such.json.log'));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no such file or folder/);
  // The log bundle is the smaller one, and it alone answers `log`: without the whole CLI, log
  // still works and the rest does not.
  assert.ok(statSync(join(dir, 'cli-log.js')).size < statSync(join(dir, 'cli-main.js')).size / 2);
  rmSync(join(dir, 'cli-main.js'));
  assert.equal(run('--lang=en', 'log', '--help').status, 0);
  assert.notEqual(run('runs', '--help').status, 0);
});
