// A run's row in the Runs tree as a user finds it: the label is `<status> · <name>` without the
// time stamp AgentJet adds to the name, and the stamp is the row's description
// (`splitRunName` in core/runs/format.ts).
import type { Locator } from 'playwright-core';
import { splitRunName } from '../../core/runs/format';

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The row of run `name` under `scope`, with the status word `status` when given (any status otherwise). */
export function runRow(scope: Locator, name: string, status?: string): Locator {
  const { base, stamp } = splitRunName(name);
  const page = scope.page();
  // Anchored at both ends: `math_demo` must not find `math_demo_2node`.
  const label = new RegExp(`^\\s*${status ? esc(status) : '[^·]+'} · ${esc(base)}\\s*$`);
  let row = scope.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: label }) });
  if (stamp) row = row.filter({ has: page.locator('.label-description', { hasText: stamp }) });
  return row.first();
}
