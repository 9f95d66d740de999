// The property tests' settings live in test/util/fc.ts (budget, seed printed on failure, replay);
// this name is kept for the tests that take sync and async properties alike.
import { fc, checkAsync } from './fc';

export { fc };

export function checkProperty<Ts extends [unknown, ...unknown[]]>(
  prop: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  numRuns: number,
): Promise<void> {
  return checkAsync(prop as fc.IAsyncProperty<Ts>, numRuns);
}
