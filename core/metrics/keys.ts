// The metric keys of the dashboard's runs, grouped by prefix as verl names them (`actor/pg_loss`,
// `timing_s/gen`, `val-core/gsm8k/acc@1`), the groups in the order a trainer reads them; searched
// by words; a first key to show when the user has picked none.
import type { MetricGroup } from '../protocol/dashboard';

/** verl's prefixes (ray_trainer metrics, compute_data/timing/throughput metrics), most looked-at first. */
export const GROUP_ORDER = [
  'critic',
  'actor',
  'val-core',
  'val-aux',
  'val',
  'response_length',
  'prompt_length',
  'response',
  'training',
  'timing_s',
  'timing_per_token_ms',
  'perf',
];

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The group of a key: what comes before its first `/` ('' when none). */
export function groupOf(tag: string): string {
  const i = tag.indexOf('/');
  return i > 0 ? tag.slice(0, i) : '';
}

/** Every distinct key, grouped by prefix: known groups in GROUP_ORDER, then others by name, keys without a prefix last. */
export function groupKeys(tags: Iterable<string>): MetricGroup[] {
  const by = new Map<string, Set<string>>();
  for (const tag of tags) {
    const g = groupOf(tag);
    let set = by.get(g);
    if (!set) by.set(g, (set = new Set()));
    set.add(tag);
  }
  const rank = (g: string) => {
    if (g === '') return GROUP_ORDER.length + 1;
    const i = GROUP_ORDER.indexOf(g);
    return i < 0 ? GROUP_ORDER.length : i;
  };
  return [...by].sort(([a], [b]) => rank(a) - rank(b) || cmp(a, b)).map(([name, keys]) => ({ name, keys: [...keys].sort(cmp) }));
}

/** The key search (the page filters with it as you type; core/protocol holds it for both sides). */
export { keyMatches } from '../protocol/dashboard';

/** Keys a run of verl most often is judged by, first present one shown when nothing is picked. */
const PREFERRED = ['critic/score/mean', 'critic/rewards/mean', 'actor/pg_loss', 'actor/entropy', 'response_length/mean'];

export function defaultKey(tags: readonly string[]): string | undefined {
  const set = new Set(tags);
  return PREFERRED.find((k) => set.has(k)) ?? groupKeys(tags.filter((t) => !t.startsWith('timing_s/')))[0]?.keys[0] ?? tags[0];
}
