// npm run bench:swarm — the Swarm Servers view's cost and reaction time against AgentJet's REAL swarm
// server (test/fixtures/swarm; loopback-only network namespace, as the tests).
//   latency: the engine driver changes the state (AgentJet's http_change_engine_status); t0 = the
//            server answered that POST, t1 = the view's watcher (SwarmWatcher, the view's default
//            intervals: 1 s after a change, 5 s once calm for 30 s) has the new state in its model.
//            Ten changes, spaced at random inside the calm period, median and max.
//   idle cost: requests per minute to the server while nothing changes, the view visible (watcher
//            running, after the 30 s fast window) and hidden (watcher stopped).
// Baseline: `ajet-swarm overwatch` (ajet/utils/swarm_overwatch.py) asks two endpoints every 2 s
// (refresh_interval 2.0), i.e. 60 requests/min whether anything changes or not, and shows a change
// after 1 s on average (half its interval) plus its render.
import { spawn } from 'node:child_process';
import { ensureTestPython } from '../test/harness/python';
import { loopbackOnly, NETNS_ENV, netnsUnavailable } from '../test/util/rayLocal';
import { startEngine, startSwarmServer, swarmTrees } from '../test/util/swarmLocal';
import { SwarmWatcher } from '../core/swarm/watcher';

const N = 10;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  if (!swarmTrees()) {
    console.log('bench:swarm skipped: the AgentJet 0.0.4 tree (agentjet-c68c154) is not available');
    return;
  }
  if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
    const why = netnsUnavailable();
    if (why) {
      console.log(`bench:swarm skipped: ${why}`);
      return;
    }
    ensureTestPython();
    const child = spawn('unshare', ['--net', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${__filename}"`], {
      env: { ...process.env, [NETNS_ENV]: '1' },
      stdio: 'inherit',
    });
    process.exitCode = await new Promise<number>((res) => child.on('close', (c) => res(c ?? 1)));
    return;
  }
  const python = ensureTestPython().python;
  const server = await startSwarmServer(python);
  const engine = startEngine(python, server);
  try {
    let seen: { state: string; at: number } | undefined;
    const w = new SwarmWatcher(server.url, {
      onChange: (m) => {
        if (m.engineState) seen = { state: m.engineState, at: performance.now() };
      },
    });
    w.start();
    // Idle, visible: wait out the fast window, then count.
    console.log('waiting 32 s for the view to calm down…');
    await sleep(32_000);
    let r0 = w.api.requests;
    const idleMs = 30_000;
    await sleep(idleMs);
    const visiblePerMin = ((w.api.requests - r0) * 60_000) / idleMs;
    // Hidden: the watcher stops.
    w.stop();
    r0 = w.api.requests;
    await sleep(10_000);
    const hiddenPerMin = ((w.api.requests - r0) * 60_000) / 10_000;

    // Latency: visible again, calm (5 s polls), one change at a random moment each time.
    w.start();
    await sleep(32_000);
    const states = ['ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.OFFLINE'];
    const lat: number[] = [];
    for (let i = 0; i < N; i++) {
      await sleep(Math.random() * 5000);
      const st = states[i % states.length]!;
      await engine.state(st, i);
      const t0 = performance.now();
      for (;;) {
        if (seen?.state === st && seen.at >= t0 - 50) break;
        await sleep(5);
      }
      lat.push(Math.max(0, seen!.at - t0));
    }
    w.stop();
    const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log('');
    console.log(
      `state change → view model (median of ${N}): ${fmt(median(lat))}   max ${fmt(Math.max(...lat))}   [baseline ajet-swarm overwatch: ~1.00 s mean, 2 s max]`,
    );
    console.log(`  (the first ${N} after calm; each change makes the next 30 s fast: 1 s polls)`);
    console.log(`idle polling, view visible: ${visiblePerMin.toFixed(1)} requests/min   [baseline ajet-swarm overwatch: 60 requests/min]`);
    console.log(`idle polling, view hidden:  ${hiddenPerMin.toFixed(1)} requests/min`);
    console.log(`latencies (s): ${lat.map((x) => (x / 1000).toFixed(2)).join(' ')}`);
  } finally {
    await engine.dispose();
    await server.dispose();
  }
}

void main();
