// Identical stacks together: "8 threads in 8 processes wait in all_gather". Two threads group when
// every frame (function, file, line) is the same, whichever process they are in.
import type { ProcessStacks, StackFrame, StackGroup } from './types';

const keyOf = (frames: readonly StackFrame[]): string => frames.map((f) => `${f.func}\u0000${f.file}\u0000${f.line ?? ''}`).join('\u0001');

/** The groups, the largest first (then by where they wait, for a stable order). */
export function groupStacks(processes: readonly ProcessStacks[]): StackGroup[] {
  const groups = new Map<string, StackGroup & { pids: Set<number> }>();
  for (const p of processes)
    for (const t of p.threads) {
      const k = keyOf(t.frames);
      let g = groups.get(k);
      if (!g) {
        g = { frames: t.frames, waitsIn: t.frames[0]?.func ?? '', members: [], processes: 0, pids: new Set() };
        groups.set(k, g);
      }
      g.members.push({ pid: p.pid, thread: t.id, threadName: t.name });
      g.pids.add(p.pid);
    }
  return [...groups.values()]
    .map(({ pids, ...g }) => ({ ...g, processes: pids.size }))
    .sort(
      (a, b) => b.members.length - a.members.length || a.waitsIn.localeCompare(b.waitsIn) || keyOf(a.frames).localeCompare(keyOf(b.frames)),
    );
}
