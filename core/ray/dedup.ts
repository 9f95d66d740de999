// Ray folds worker lines it relays to the driver's console when they differ only in numbers
// ("[repeated 3x across cluster]", ray/_private/ray_logging: LogDeduplicator). Lines matching
// RAY_DEDUP_LOGS_ALLOW_REGEX (read when the driver imports ray) are relayed one by one. The console is
// how the extension learns about workers on other nodes, so launches that debug Ray extend it.

/** Ray's debugger lines (ray/util/debugpy.py), which say where a paused worker listens. */
export const DEBUGGER_LINES = 'Ray debugger is |Waiting for debugger to attach|Debugger client is connected';

/** `existing` (the user's pattern, kept) extended with `pattern` (a Python `re` alternative). */
export function allowInConsole(existing: string | undefined, pattern: string): string {
  if (!existing) return pattern;
  if (existing.includes(pattern)) return existing;
  return `(?:${existing})|${pattern}`;
}
