// npm run fetch:upstream: clones the upstream trees pinned in upstream.json (AgentJet, ASTuner,
// ASTune, beast-logger; one shallow fetch of one commit each) into the cache the tests look in
// (test/util/upstream.ts): $AGENTJET_UPSTREAM_CACHE, default ~/.cache/agentjet-upstream/<name>/,
// each with a SOURCE_COMMIT file `<commit> <date>`, the layout test/util/upstream.ts looks for.
//   npm run fetch:upstream [-- --only NAME] [--force] [--pins FILE]
// AGENTJET_UPSTREAM_REPO=URL fetches every tree from URL instead (a mirror; tests).
// Exits 1 with one line saying what failed and what to do instead when a fetch fails (no network).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { upstreamCacheDir } from '../test/util/upstream';

interface Pin {
  repo: string;
  commit: string;
}

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = resolve(__dirname, '..');
const pinsFile = resolve(opt('--pins') ?? join(root, 'upstream.json'));
const trees = (JSON.parse(readFileSync(pinsFile, 'utf8')) as { trees: Record<string, Pin> }).trees;
const only = opt('--only');
const force = args.includes('--force');
const cache = upstreamCacheDir;

function git(cwd: string, ...argv: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', argv, {
    cwd,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    // Never ask for credentials: an unreachable or private URL fails at once.
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', SSH_ASKPASS: 'true' },
  });
  const err = r.error ? r.error.message : (r.stderr ?? '').trim();
  return { ok: r.status === 0 && !r.error, out: (r.stdout ?? '').trim(), err };
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.replace(/^(fatal|error): /, '').trim())
      .filter(Boolean)
      .at(-1) ?? 'no output'
  );
}

function fetchTree(name: string, pin: Pin): string | undefined {
  const dest = join(cache, name);
  const marker = join(dest, 'SOURCE_COMMIT');
  if (!force && existsSync(marker) && readFileSync(marker, 'utf8').startsWith(pin.commit)) {
    process.stdout.write(`fetch:upstream: ${name} is up to date (${pin.commit.slice(0, 7)})\n`);
    return undefined;
  }
  const repo = process.env.AGENTJET_UPSTREAM_REPO || pin.repo;
  const tmp = join(cache, `.${name}.part-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    process.stdout.write(`fetch:upstream: ${name}: fetching ${pin.commit.slice(0, 7)} from ${repo}\n`);
    for (const step of [
      ['init', '-q'],
      ['fetch', '-q', '--depth', '1', '--no-tags', repo, pin.commit],
      ['-c', 'advice.detachedHead=false', 'checkout', '-q', 'FETCH_HEAD'],
    ]) {
      const r = git(tmp, ...step);
      if (!r.ok) return `could not fetch ${name} (commit ${pin.commit.slice(0, 7)}) from ${repo}: ${lastLine(r.err)}`;
    }
    const head = git(tmp, 'rev-parse', 'HEAD').out;
    if (head !== pin.commit)
      return `fetched ${name} from ${repo} but got commit ${head.slice(0, 7)}, not the pinned ${pin.commit.slice(0, 7)}`;
    const date = git(tmp, 'log', '-1', '--format=%cs').out;
    rmSync(join(tmp, '.git'), { recursive: true, force: true });
    writeFileSync(join(tmp, 'SOURCE_COMMIT'), `${pin.commit} ${date}\n`);
    rmSync(dest, { recursive: true, force: true });
    renameSync(tmp, dest);
    process.stdout.write(`fetch:upstream: ${name} -> ${dest}\n`);
    return undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function main(): number {
  const names = Object.keys(trees).filter((n) => !only || n === only);
  if (names.length === 0) {
    process.stderr.write(`fetch:upstream: no tree named ${only} in ${pinsFile} (known: ${Object.keys(trees).join(', ')})\n`);
    return 2;
  }
  if (!git(root, '--version').ok) {
    process.stderr.write(
      'fetch:upstream: git is not installed; install git, or set AGENTJET_UPSTREAM to a folder holding the upstream trees (see README, Development)\n',
    );
    return 1;
  }
  mkdirSync(cache, { recursive: true });
  for (const name of names) {
    const failure = fetchTree(name, trees[name]!);
    if (failure) {
      process.stderr.write(
        `fetch:upstream: ${failure}. No network? Set AGENTJET_UPSTREAM to a folder holding the upstream trees instead (see README, Development); the tests that need them are skipped meanwhile.\n`,
      );
      return 1;
    }
  }
  return 0;
}

process.exit(main());
