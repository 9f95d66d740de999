// npm run fetch:upstream: a pinned commit lands in the cache with SOURCE_COMMIT, and without
// network (here: an unreachable repository URL) it fails with one clear line and leaves nothing half made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { tempDir } from '../util/runtree';

function fetchUpstream(env: Record<string, string>, ...args: string[]) {
  const { AGENTJET_UPSTREAM_REPO: _r, ...base } = process.env;
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts', 'fetch-upstream.ts'), ...args], {
    encoding: 'utf8',
    env: { ...base, ...env },
    timeout: 120_000,
  });
}

test('fetch:upstream without network: exit 1, one line naming the tree and what to do, no partial folder', () => {
  const tmp = tempDir('agentjet-fetch-');
  try {
    const cache = join(tmp.path, 'cache');
    const r = fetchUpstream(
      { AGENTJET_UPSTREAM_CACHE: cache, AGENTJET_UPSTREAM_REPO: `file://${join(tmp.path, 'no-such-repo.git')}` },
      '--only',
      'agentjet-d20cce0',
    );
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /^fetch:upstream: could not fetch agentjet-d20cce0 \(commit d20cce0\) from file:\/\/.*no-such-repo\.git: .+\. No network\? Set AGENTJET_UPSTREAM to a folder holding the upstream trees instead/,
    );
    assert.deepEqual(readdirSync(cache), [], 'nothing half-fetched is left in the cache');
  } finally {
    tmp.dispose();
  }
});

test('fetch:upstream fetches the pinned commit (not the branch tip) and writes SOURCE_COMMIT; a second run is a no-op', () => {
  const tmp = tempDir('agentjet-fetch-');
  try {
    const repo = join(tmp.path, 'origin');
    mkdirSync(repo);
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...a], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(join(repo, 'ajet.txt'), 'pinned\n');
    git('add', '.');
    git('commit', '-qm', 'pinned');
    const pinned = git('rev-parse', 'HEAD');
    writeFileSync(join(repo, 'ajet.txt'), 'newer\n');
    git('commit', '-qam', 'newer');
    // Serving a commit by its id (what GitHub allows) needs this for a local repository.
    git('config', 'uploadpack.allowAnySHA1InWant', 'true');
    const pins = join(tmp.path, 'pins.json');
    writeFileSync(pins, JSON.stringify({ trees: { 'agentjet-test': { repo: `file://${repo}`, commit: pinned } } }));
    const cache = join(tmp.path, 'cache');
    const r = fetchUpstream({ AGENTJET_UPSTREAM_CACHE: cache }, '--pins', pins);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(cache, 'agentjet-test', 'ajet.txt'), 'utf8'), 'pinned\n');
    assert.match(readFileSync(join(cache, 'agentjet-test', 'SOURCE_COMMIT'), 'utf8'), new RegExp(`^${pinned} \\d{4}-\\d\\d-\\d\\d\\n$`));
    assert.deepEqual(readdirSync(cache), ['agentjet-test']);
    const again = fetchUpstream({ AGENTJET_UPSTREAM_CACHE: cache }, '--pins', pins);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /agentjet-test is up to date/);
    assert.equal(fetchUpstream({ AGENTJET_UPSTREAM_CACHE: cache }, '--pins', pins, '--only', 'nope').status, 2);
  } finally {
    tmp.dispose();
  }
});
