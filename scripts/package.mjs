// Builds minified bundles and packages the extension as a .vsix with @vscode/vsce.
// Prints the .vsix size and each shipped bundle's size.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `${pkg.name}-${pkg.version}.vsix`);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--no-tests'], { cwd: root, stdio: 'inherit' });
// Every bundle the build wrote must ship (the token log worker once did not: whole-file work then
// ran on the extension host's own thread).
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const listed = new Set(
  execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' })
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/\\/g, '/')),
);
const built = [];
const walk = (dir) => {
  for (const f of readdirSync(join(root, dir), { withFileTypes: true }))
    if (f.isDirectory()) walk(`${dir}/${f.name}`);
    else if (!f.name.endsWith('.map')) built.push(`${dir}/${f.name}`);
};
if (existsSync(join(root, 'dist'))) walk('dist');
const missing = built.filter((f) => !listed.has(f));
if (missing.length) {
  console.error(`package: built but not shipped (add them to .vscodeignore's allowlist): ${missing.join(', ')}`);
  process.exit(1);
}
// Dependencies are bundled, so vsce need not walk node_modules.
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '-o', out], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});

console.log(`vsix: ${out} (${kb(statSync(out).size)})`);
const dist = join(root, 'dist');
for (const f of readdirSync(dist)) if (f.endsWith('.js')) console.log(`  dist/${f}: ${kb(statSync(join(dist, f)).size)}`);
if (existsSync(join(dist, 'media')))
  for (const f of readdirSync(join(dist, 'media'))) console.log(`  dist/media/${f}: ${kb(statSync(join(dist, 'media', f)).size)}`);
