// Where tests find the real AgentJet / ASTuner / ASTune / beast-logger source trees. Order:
// $AGENTJET_UPSTREAM, then ../shared/reference/upstream, then the cache `npm run fetch:upstream`
// fills. Without any, tests that need them skip with one line saying how to get them.
// AGENTJET_UPSTREAM=none hides them all (a bare clone's view).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from './paths';
import { ENV_SKIP_TAG, skipForEnvironment } from './envSkip';

export type UpstreamName =
  'agentjet-d20cce0' | 'agentjet-c68c154' | 'astuner-f9fab4f' | 'astuner-61e9359' | 'astune-ba24412p' | 'beast-logger-6ba1ca5';

interface Pin {
  repo: string;
  commit: string;
}
export const pins: Record<UpstreamName, Pin> = (
  JSON.parse(readFileSync(join(repoRoot, 'upstream.json'), 'utf8')) as { trees: Record<UpstreamName, Pin> }
).trees;

/** The cache `npm run fetch:upstream` writes into. */
export const upstreamCacheDir = process.env.AGENTJET_UPSTREAM_CACHE ?? join(homedir(), '.cache', 'agentjet-upstream');

/** Candidate folders of upstream trees, in lookup order. */
export function upstreamCandidates(): string[] {
  const out: string[] = [];
  // `none`: behave as a bare clone (every upstream-dependent test skips), to check those skips.
  if (process.env.AGENTJET_UPSTREAM === 'none') return out;
  if (process.env.AGENTJET_UPSTREAM) out.push(resolve(process.env.AGENTJET_UPSTREAM));
  out.push(resolve(repoRoot, '..', 'shared', 'reference', 'upstream'));
  out.push(upstreamCacheDir);
  return out;
}

/** The folder holding upstream tree `name`, or undefined when no candidate has it. */
export function findUpstream(name: UpstreamName): string | undefined {
  for (const dir of upstreamCandidates()) {
    const p = join(dir, name);
    if (existsSync(join(p, 'SOURCE_COMMIT')) || existsSync(join(p, '.git'))) return p;
  }
  return undefined;
}

export const UPSTREAM_SKIP =
  'needs the upstream AgentJet trees: run `npm run fetch:upstream` or set AGENTJET_UPSTREAM (see README, Development)';

/** Start of every upstream skip message: an environment skip (test/util/envSkip.ts) naming the trees. */
export const UPSTREAM_SKIP_TAG = `${ENV_SKIP_TAG} upstream:`;

/**
 * For node:test: `test('x', upstreamTest('agentjet-d20cce0', (dir) => ...))`. Skips the test with the
 * one-line reason when the tree is missing.
 */
export function withUpstream<T>(name: UpstreamName, fn: (dir: string, t: import('node:test').TestContext) => T | Promise<T>) {
  return async (t: import('node:test').TestContext): Promise<void> => {
    const dir = findUpstream(name);
    if (!dir) {
      skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} ${name} missing; ${UPSTREAM_SKIP}`);
      return;
    }
    await fn(dir, t);
  };
}

/** Like findUpstream, but throws (for code that runs only after a skip check). */
export function upstream(name: UpstreamName, ...parts: string[]): string {
  const dir = findUpstream(name);
  if (!dir) throw new Error(`${name} missing; ${UPSTREAM_SKIP}`);
  return join(dir, ...parts);
}

/** The `<commit> <date>` line of a tree, for summaries. */
export function upstreamCommit(name: UpstreamName): string {
  const dir = findUpstream(name);
  if (!dir) return 'missing';
  const f = join(dir, 'SOURCE_COMMIT');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split(/\s+/)[0]!.slice(0, 7) : pins[name].commit.slice(0, 7);
}

/**
 * A tree's own `.gitignore` (at `rel`, default the root): ../shared keeps it as `gitignore.upstream`
 * (so that copying the tree drops nothing); a clone or `npm run fetch:upstream` has `.gitignore`.
 */
export function upstreamGitignore(dir: string, rel = ''): string {
  for (const name of ['gitignore.upstream', '.gitignore']) {
    const p = join(dir, rel, name);
    if (existsSync(p)) return readFileSync(p, 'utf8');
  }
  throw new Error(`no .gitignore (nor gitignore.upstream) in ${join(dir, rel)}`);
}
