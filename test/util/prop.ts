// fast-check settings shared by the property tests: a fixed budget per run (CI stays fast), a
// seed printed on failure (fast-check's report names it), and AGENTJET_FC_SEED / AGENTJET_FC_RUNS
// to replay a failure or to search longer locally.
import fc from 'fast-check';

export function propConfig(numRuns: number): fc.Parameters<unknown> {
  const seed = Number(process.env.AGENTJET_FC_SEED);
  const runs = Number(process.env.AGENTJET_FC_RUNS);
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : numRuns,
    ...(Number.isInteger(seed) ? { seed } : {}),
    // The counterexample, the seed and the path to replay it are in the thrown error.
    verbose: 1,
  };
}

export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  prop: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  numRuns: number,
): Promise<void> {
  await fc.assert(prop as fc.IAsyncProperty<Ts>, propConfig(numRuns) as fc.Parameters<Ts>);
}

export { fc };
