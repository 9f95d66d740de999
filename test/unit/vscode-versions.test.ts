// The VS Code versions the project claims and the ones its tests run on agree: `engines.vscode`'s
// minimum is what `@types/vscode` describes (so the compiler refuses newer API) and what the oldest
// test server carries (so a test layer really runs there); the newest test server is newer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { NEWEST_CODE_SERVER, OLDEST_CODE_SERVER, codeServerVersion, requiredNodeMajor } from '../harness/install';

interface Manifest {
  engines: { vscode: string };
  devDependencies: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;

/** "1.100" of "^1.100.0" / "1.100.0"; code-server 4.X.y carries VS Code 1.X. */
const minor = (v: string) => {
  const m = /(\d+)\.(\d+)/.exec(v);
  assert.ok(m, `no version in ${v}`);
  return Number(m[2]);
};

test('engines.vscode, @types/vscode and the oldest test server name the same VS Code', () => {
  assert.match(manifest.engines.vscode, /^\^1\.\d+\.0$/);
  const types = manifest.devDependencies['@types/vscode'] ?? '';
  assert.match(types, /^1\.\d+\.0$/, '@types/vscode is pinned exactly: a range would install newer API descriptions');
  assert.equal(minor(types), minor(manifest.engines.vscode));
  assert.equal(minor(OLDEST_CODE_SERVER), minor(manifest.engines.vscode));
  const installed = JSON.parse(readFileSync(join(repoRoot, 'node_modules', '@types', 'vscode', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.equal(installed.version, types, 'node_modules holds another @types/vscode than package.json asks for (npm ci)');
});

test('the default server is the newest; `oldest` and exact versions select others; nonsense is refused', () => {
  assert.ok(minor(NEWEST_CODE_SERVER) > minor(OLDEST_CODE_SERVER));
  assert.equal(codeServerVersion(undefined), NEWEST_CODE_SERVER);
  assert.equal(codeServerVersion(''), NEWEST_CODE_SERVER);
  assert.equal(codeServerVersion('newest'), NEWEST_CODE_SERVER);
  assert.equal(codeServerVersion('oldest'), OLDEST_CODE_SERVER);
  assert.equal(codeServerVersion('4.120.0'), '4.120.0');
  assert.throws(() => codeServerVersion('latest; rm -rf /'), /expected newest, oldest or a code-server version/);
});

test("a package's engines.node gives the Node major it needs", () => {
  assert.equal(requiredNodeMajor('24'), 24);
  assert.equal(requiredNodeMajor('>=20'), 20);
  assert.equal(requiredNodeMajor('^22.0.0'), 22);
  assert.equal(requiredNodeMajor('v24.21.0'), 24);
  assert.equal(requiredNodeMajor(undefined), undefined);
  assert.equal(requiredNodeMajor('*'), undefined);
});
