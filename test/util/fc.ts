// fast-check settings shared by the property tests: a fixed budget per run, and the seed printed on
// failure (fast-check's report starts with it). FC_SEED=<n> replays a failing run; FC_RUNS=<n> widens it
// (AGENTJET_FC_SEED / AGENTJET_FC_RUNS are read too).
import fc from 'fast-check';

export { fc };

function params<Ts>(numRuns: number): { seed: number; p: fc.Parameters<Ts> } {
  const seedText = process.env.FC_SEED ?? process.env.AGENTJET_FC_SEED;
  const runsText = process.env.FC_RUNS ?? process.env.AGENTJET_FC_RUNS;
  const seed = seedText ? Number(seedText) : Date.now() ^ (Math.random() * 0x100000000);
  return { seed, p: { numRuns: runsText ? Number(runsText) : numRuns, seed } };
}

function report(seed: number, err: unknown): never {
  const cause = err instanceof Error && err.cause instanceof Error ? `\n${err.cause.message}` : '';
  throw new Error(`property failed (replay with FC_SEED=${seed}): ${err instanceof Error ? err.message : String(err)}${cause}`);
}

/** Runs a property with a fixed budget; the failure report names the seed and the shrunk case. */
export function check<Ts>(prop: fc.IProperty<Ts>, numRuns: number): void {
  const { seed, p } = params<Ts>(numRuns);
  try {
    fc.assert(prop, p);
  } catch (err) {
    report(seed, err);
  }
}

/** `check` for an async property. */
export async function checkAsync<Ts>(prop: fc.IAsyncProperty<Ts>, numRuns: number): Promise<void> {
  const { seed, p } = params<Ts>(numRuns);
  try {
    await fc.assert(prop, p);
  } catch (err) {
    report(seed, err);
  }
}

/** Tokens that break YAML structure in interesting ways (the fuzz and property tests of configs share them). */
export const YAML_JUNK: readonly string[] = [
  '\t',
  '\r\n',
  '\uFEFF',
  '\u0000',
  ':',
  '- ',
  '{',
  '}',
  '[',
  ']',
  '&a ',
  '*a',
  '&b ',
  '*b',
  '<<: *a',
  '${',
  '${ajet.',
  '${ajet.model.path}',
  '${..x}',
  '"',
  "'",
  '#',
  '---\n',
  '\n',
  '  ',
  '? ',
  '->',
  '|',
  '>',
  '!!str ',
  '%YAML 1.1\n',
  '\uD800',
  'ajet:',
  '  rollout:\n    ',
  'user_workflow: ',
  '\x07\xff\xfe',
];

export type Edit =
  | { op: 'insert'; at: number; junk: number }
  | { op: 'delete'; at: number; len: number }
  | { op: 'dupLine'; line: number; to: number }
  | { op: 'swap'; a: number; b: number }
  | { op: 'char'; at: number; code: number };

export const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), junk: fc.nat(YAML_JUNK.length - 1) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ op: fc.constant('dupLine' as const), line: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ op: fc.constant('char' as const), at: fc.nat(), code: fc.integer({ min: 0, max: 0x2fff }) }),
);

export function apply(text: string, e: Edit): string {
  const at = (n: number) => n % (text.length + 1);
  const lines = text.split('\n');
  switch (e.op) {
    case 'insert':
      return text.slice(0, at(e.at)) + (YAML_JUNK[e.junk] as string) + text.slice(at(e.at));
    case 'delete':
      return text.slice(0, at(e.at)) + text.slice(at(e.at) + e.len);
    case 'dupLine': {
      // Duplicated lines make duplicate keys, the case the linear duplicate check must get right.
      const l = lines[e.line % lines.length] as string;
      lines.splice(e.to % (lines.length + 1), 0, l);
      return lines.join('\n');
    }
    case 'swap': {
      const a = e.a % lines.length;
      const b = e.b % lines.length;
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      return lines.join('\n');
    }
    case 'char':
      return text.slice(0, at(e.at)) + String.fromCharCode(e.code) + text.slice(at(e.at));
  }
}

/** A real config mutated by 1-6 edits (junk tokens, deletions, duplicated and swapped lines). */
export function mutatedConfig(bases: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat(bases.length - 1), fc.array(edit, { minLength: 1, maxLength: 6 }))
    .map(([b, edits]) => edits.reduce(apply, bases[b] as string));
}
