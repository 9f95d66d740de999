// npm run bench:swarm — the Swarm Servers view's cost and reaction time against AgentJet's REAL swarm
// server (test/fixtures/swarm; loopback-only network namespace, as the tests).
//   latency: the engine driver changes the state (AgentJet's http_change_engine_status); t0 = the
//            server answered that POST, t1 = the view's watcher (SwarmWatcher, the view's default
//            intervals: 1 s after a change, 5 s once calm for 30 s) has the new state in its model.
//            Ten changes, spaced at random inside the calm period, median and max.
//   idle cost: requests per minute to the server while nothing changes, the view visible (watcher
//            running, after the 30 s fast window) and hidden (watcher stopped).
// Baseline, measured in the same run against the same server: AgentJet's own `ajet-swarm overwatch`
// (ajet/utils/swarm_overwatch.py, its SwarmOverwatch.run() with the default refresh interval) through
// a counting HTTP proxy: its requests per minute, and when its answer first carries each new state.
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { ensureTestPython } from '../test/harness/python';
import { loopbackOnly, NETNS_ENV, netnsUnavailable } from '../test/util/rayLocal';
import { startEngine, startSwarmServer, swarmTrees, swarmFixture } from '../test/util/swarmLocal';
import { SwarmWatcher } from '../core/swarm/watcher';
import { printBenchTable } from './table';

/** A loopback proxy in front of the server that counts requests and notes when an answer carries a state. */
async function countingProxy(
  target: string,
): Promise<{ url: string; requests: () => number; seen: Map<string, number>; close: () => void }> {
  const seen = new Map<string, number>();
  let requests = 0;
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    requests++;
    const up = httpRequest({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (b: Buffer) => chunks.push(b));
      r.on('end', () => {
        const body = Buffer.concat(chunks);
        const state = /"engine_status"\s*:\s*"([^"]+)"/.exec(body.toString('utf8'))?.[1];
        if (state && !seen.has(state)) seen.set(state, performance.now());
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.end(body);
      });
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, seen, close: () => server.close() };
}

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
  const trees = swarmTrees()!;
  const server = await startSwarmServer(python);
  const engine = startEngine(python, server);
  const proxy = await countingProxy(server.url);
  // AgentJet's own overwatch, as `ajet-swarm overwatch` runs it, its screen thrown away.
  const overwatch = spawn(
    python,
    [
      '-c',
      'import sys; sys.path[:0] = sys.argv[1:4]\nfrom ajet.utils.swarm_overwatch import SwarmOverwatch\nSwarmOverwatch(sys.argv[4]).run()',
      trees.agentjet,
      trees.beast,
      join(swarmFixture, 'stubs'),
      proxy.url,
    ],
    { stdio: 'ignore', env: { ...process.env, TERM: 'dumb', COLUMNS: '160', LINES: '50' } },
  );
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
    const o0 = proxy.requests();
    const idleMs = 30_000;
    await sleep(idleMs);
    const visiblePerMin = ((w.api.requests - r0) * 60_000) / idleMs;
    const overwatchPerMin = ((proxy.requests() - o0) * 60_000) / idleMs;
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
    const latOverwatch: number[] = [];
    for (let i = 0; i < N; i++) {
      await sleep(Math.random() * 5000);
      const st = states[i % states.length]!;
      proxy.seen.clear();
      await engine.state(st, i);
      const t0 = performance.now();
      for (;;) {
        if (seen?.state === st && seen.at >= t0 - 50 && proxy.seen.has(st)) break;
        if (overwatch.exitCode !== null) throw new Error(`ajet-swarm overwatch exited (${overwatch.exitCode})`);
        if (performance.now() - t0 > 30_000)
          throw new Error(`${st} not seen within 30 s (ours: ${seen?.state}, overwatch: ${[...proxy.seen.keys()].join(', ')})`);
        await sleep(5);
      }
      lat.push(Math.max(0, seen!.at - t0));
      latOverwatch.push(Math.max(0, proxy.seen.get(st)! - t0));
    }
    w.stop();
    const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const how =
      "AgentJet's own SwarmOverwatch(url).run() (ajet-swarm overwatch, default 2 s refresh) through a counting proxy, same server, same time";
    console.log('');
    printBenchTable([
      {
        what: `state change -> view model, median of ${N} (max)`,
        ours: `${fmt(median(lat))} (${fmt(Math.max(...lat))})`,
        baseline: `${fmt(median(latOverwatch))} (${fmt(Math.max(...latOverwatch))})`,
        how: `${how}; baseline = its first answer carrying the new state (before its render)`,
      },
      {
        what: 'idle polling, view visible',
        ours: `${visiblePerMin.toFixed(1)} requests/min`,
        baseline: `${overwatchPerMin.toFixed(1)} requests/min`,
        how,
      },
      {
        what: 'idle polling, view hidden',
        ours: `${hiddenPerMin.toFixed(1)} requests/min`,
        baseline: '(always visible)',
        how: 'the overwatch has no hidden state',
      },
    ]);
    console.log(`  (the first ${N} changes after calm; each change makes the next 30 s fast: 1 s polls)`);
    console.log(`latencies (s), ours: ${lat.map((x) => (x / 1000).toFixed(2)).join(' ')}`);
    console.log(`latencies (s), overwatch: ${latOverwatch.map((x) => (x / 1000).toFixed(2)).join(' ')}`);
  } finally {
    overwatch.kill('SIGKILL');
    proxy.close();
    await engine.dispose();
    await server.dispose();
  }
}

void main();
