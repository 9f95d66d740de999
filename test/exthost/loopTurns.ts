// The extension host's long loop turns while a feature works: a 2-ms timer's late ticks, each split
// (Linux, the thread's schedstat) into the time the host's own work held a CPU and the time the
// thread waited for one (a loaded machine's share, not the extension's). With
// AGENTJET_TEST_HOST_PROFILE set, a CPU profile of the host runs alongside (node:inspector, in this
// process) and the longest turns are named by the functions that ran in them. Figures for the
// harness log only: tests never assert them.
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/** A late tick: when it began and ended (µs, hrtime), its time on a CPU and waiting for one (ms). */
interface LoopTurn {
  startUs: number;
  endUs: number;
  ranMs: number;
  waitedMs: number;
  /** With the profile: the functions that ran most in it. */
  top?: string[];
}

export interface LoopReport {
  /** The longest gap between ticks. */
  longest?: LoopTurn;
  /** The turns on a CPU of REPORT_MS or more, longest first (at most 5). */
  turns: LoopTurn[];
  /** Whether this platform can split a gap (Linux). */
  split: boolean;
}

/** Turns on a CPU at least this long are listed. */
const REPORT_MS = 20;

const schedstat = (): [number, number] | undefined => {
  if (process.platform !== 'linux') return undefined;
  try {
    const [ran, waited] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ').map(Number);
    return ran !== undefined && waited !== undefined && Number.isFinite(ran) ? [ran, waited] : undefined;
  } catch {
    return undefined;
  }
};
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const post = <T>(s: Session, method: string, params?: object): Promise<T> =>
  new Promise((resolve, reject) => s.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));

/** Names each turn by the frames its samples passed through most (the loop's own plumbing left out). */
function nameTurns(p: Profile, turns: LoopTurn[]): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  const plumbing =
    /^\((root|program|idle)\)|^(processTimers|listOnTimeout|processImmediate|runNextTicks|runMicrotasks|processTicksAndRejections) /;
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push((t += d));
  for (const turn of turns) {
    const counts = new Map<string, number>();
    let n = 0;
    for (let i = 0; i < times.length; i++) {
      if (times[i]! < turn.startUs || times[i]! > turn.endUs) continue;
      n++;
      const seen = new Set<string>();
      for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
        const node = byId.get(id);
        const k = node && label(node.callFrame);
        if (k && !plumbing.test(k) && !seen.has(k)) {
          seen.add(k);
          counts.set(k, (counts.get(k) ?? 0) + 1);
        }
      }
    }
    turn.top = [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, c]) => `${Math.round((100 * c) / Math.max(1, n))}% ${k}`);
  }
}

/**
 * Starts watching (after the profiler, whose own start holds the loop for a while, has started);
 * `stop()` ends it and returns the report (a profile saved under the variable's folder).
 */
export async function watchLoopTurns(what: string): Promise<{ stop(): Promise<LoopReport> }> {
  const dir = process.env.AGENTJET_TEST_HOST_PROFILE;
  let session: Session | undefined;
  if (dir) {
    session = new Session();
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 500 });
    await post(session, 'Profiler.start');
  }
  const turns: LoopTurn[] = [];
  let longest: LoopTurn | undefined;
  let last = nowUs();
  let lastS = schedstat();
  const timer = setInterval(() => {
    const now = nowUs();
    const s = schedstat();
    const turn: LoopTurn = {
      startUs: last,
      endUs: now,
      ranMs: s && lastS ? (s[0] - lastS[0]) / 1e6 : 0,
      waitedMs: s && lastS ? (s[1] - lastS[1]) / 1e6 : 0,
    };
    if (!longest || turn.endUs - turn.startUs > longest.endUs - longest.startUs) longest = turn;
    if (turn.ranMs >= REPORT_MS) turns.push(turn);
    last = now;
    lastS = s;
  }, 2);
  return {
    async stop(): Promise<LoopReport> {
      clearInterval(timer);
      const top = turns.sort((a, b) => b.ranMs - a.ranMs).slice(0, 5);
      if (session && dir) {
        try {
          const { profile } = await post<{ profile: Profile }>(session, 'Profiler.stop');
          writeFileSync(join(dir, `host-${what.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`), JSON.stringify(profile));
          nameTurns(profile, longest ? [...top, longest] : top);
        } finally {
          session.disconnect();
        }
      }
      return { ...(longest ? { longest } : {}), turns: top, split: lastS !== undefined };
    },
  };
}

/** The report as lines for the harness log. */
export function describeTurns(what: string, r: LoopReport): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const l = r.longest;
  const lines = [
    l
      ? `${what}: the event loop's longest gap ${ms((l.endUs - l.startUs) / 1000)}` +
        (r.split ? ` (the host's own work on a CPU ${ms(l.ranMs)}, waiting for a CPU ${ms(l.waitedMs)})` : '') +
        (l.top?.length ? `: ${l.top.join(' | ')}` : '')
      : `${what}: no tick`,
  ];
  if (r.split)
    lines.push(
      r.turns.length
        ? `${what}: loop turns on a CPU of ${REPORT_MS} ms or more: ${r.turns.map((t) => `${ms(t.ranMs)}${t.top?.length ? ` (${t.top.join(' | ')})` : ''}`).join('; ')}`
        : `${what}: no loop turn held a CPU ${REPORT_MS} ms or more`,
    );
  return lines.join('\n      · ');
}
