import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import pkg from '../../package.json';

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), ...args], { encoding: 'utf8' });
}

test('agentjet --version prints the package version', () => {
  const r = cli('--version');
  assert.equal(r.status, 0);
  assert.equal(r.stdout.trim(), pkg.version);
});

test('agentjet --help lists usage and exits 0', () => {
  const r = cli('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Usage: agentjet <command>/);
});

test('an unknown command exits 2 with a hint', () => {
  const r = cli('frobnicate');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown command 'frobnicate'/);
});
