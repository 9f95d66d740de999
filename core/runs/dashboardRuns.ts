// Which runs a dashboard restored after a reload may show (and open files under). The webview's
// saved state is only a hint written by the page: a page made to call setState({ runs: ['/'] })
// must not widen what openFile may reach. Only experiment folders the extension host itself
// found (the runs model's listing) are kept, compared by exact path.
import { checkDashboardState } from '../protocol/validate';

export function restoreDashboardRuns(saved: unknown, knownExperiments: Iterable<string>): { runs: string[]; dropped: string[] } {
  const checked = checkDashboardState(saved);
  if (!checked.ok) return { runs: [], dropped: [] };
  const known = new Set(knownExperiments);
  const runs: string[] = [];
  const dropped: string[] = [];
  for (const r of new Set(checked.value.runs)) (known.has(r) ? runs : dropped).push(r);
  return { runs, dropped };
}
