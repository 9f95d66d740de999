// npm run bench:hostile3 — the hostile inputs of issue 28 (round 3), each through this build's
// `agentjet` and through a baseline build made in the same run from another commit (default: the
// commit before this work, `--baseline REV` for another): peak resident memory (/usr/bin/time -v),
// wall time, exit code and the first line said. Inputs are generated here. Prints; asserts nothing.
//   node --import tsx bench/hostile3.ts [--baseline REV] [--only export,swarm,dataset,facts,python]
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBombLog } from '../test/gen/bomb';
import { findUpstream } from '../test/util/upstream';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const root = join(__dirname, '..');
const TIME = '/usr/bin/time';
/** The commit before the round-3 work (lock files, bounded waits, hostile input). */
const BASELINE_REV = arg('baseline', '1b10c78');
const only = new Set(arg('only', 'export,swarm,dataset,facts,python').split(','));
const LIMIT_S = 120;

interface Figure {
  code: number | null;
  peakMb: number;
  seconds: number;
  said: string;
}

function measured(cli: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Figure> {
  return new Promise((resolve) => {
    // A build that never returns is stopped at LIMIT_S (and said so); its process group goes with it.
    const p = spawn(TIME, ['-v', process.execPath, cli, ...args], { cwd, env: { ...process.env, ...env }, detached: true });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-4000)));
    p.stderr.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20000)));
    const timer = setTimeout(() => {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, LIMIT_S * 1000);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(out);
      const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(out);
      const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : LIMIT_S;
      const said =
        signal === 'SIGKILL'
          ? `stopped after ${LIMIT_S} s`
          : (out
              .split('\n')
              .map((l) => l.trim())
              .find((l) => /^agentjet|too large|did not answer|not read|Error|FATAL/.test(l)) ?? '');
      resolve({ code, peakMb: peak ? Number(peak[1]) / 1024 : NaN, seconds, said: said.slice(0, 160) });
    });
  });
}

/** Builds the CLI of `rev` into a folder of its own (git archive + this checkout's node_modules). */
function buildBaseline(rev: string, dir: string): string | undefined {
  const src = join(dir, 'baseline');
  mkdirSync(src);
  const tar = spawnSync('sh', ['-c', `git -C '${root}' archive '${rev}' | tar -x -C '${src}'`]);
  if (tar.status !== 0) {
    console.log(`baseline ${rev}: cannot be extracted (${tar.stderr.toString().trim()})`);
    return undefined;
  }
  symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'));
  const b = spawnSync(process.execPath, ['scripts/build.mjs', '--no-tests'], { cwd: src, encoding: 'utf8' });
  if (b.status !== 0) {
    console.log(`baseline ${rev}: build failed\n${b.stderr}`);
    return undefined;
  }
  return join(src, 'dist', 'cli.js');
}

async function main(): Promise<void> {
  if (!existsSync(TIME)) {
    console.log(`${TIME} is needed (Debian: apt-get install time)`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-hostile3-'));
  const server = createServer((_req, res) => {
    // 200 MB of JSON, chunked, minding backpressure.
    const piece = Buffer.from('"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",'.repeat(32 * 1024));
    let sent = 0;
    const total = 200 * 1024 * 1024;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const pump = () => {
      while (sent < total) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end('"e"]');
    };
    res.on('close', () => (sent = total + 1));
    pump();
  });
  try {
    const builds: [string, string][] = [['this build', join(root, 'dist', 'cli.js')]];
    const base = buildBaseline(BASELINE_REV, dir);
    if (base) builds.push([`baseline ${BASELINE_REV}`, base]);
    const cases: [string, string[], string, NodeJS.ProcessEnv?][] = [];
    if (only.has('export')) {
      const bomb = await writeBombLog(join(dir, 'bomb2g.json.log'), 2 * 1024 ** 3, 3, 3, true);
      cases.push([
        'log export, 2 GB bomb, --max-record-mb 3000',
        ['log', 'export', bomb.path, '--jsonl', '--out', join(dir, 'out.jsonl'), '--no-cache', '--max-record-mb', '3000'],
        dir,
      ]);
    }
    if (only.has('swarm')) {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      cases.push([
        'swarm status --format json, 200 MB answers',
        ['swarm', 'status', '--url', url, '--format', 'json', '--timeout', '60'],
        dir,
      ]);
    }
    if (only.has('dataset')) {
      const ws = join(dir, 'dtask');
      mkdirSync(join(ws, 'data'), { recursive: true });
      writeFileSync(
        join(ws, 'cfg.yaml'),
        'ajet:\n  task_reader:\n    type: jsonl_dataset_file\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n      validation:\n        file_path: data/val.jsonl\n',
      );
      writeFileSync(join(ws, 'data', 'train.jsonl'), '{"task_id": "t0", "blob": "');
      truncateSync(join(ws, 'data', 'train.jsonl'), 600 * 1024 * 1024);
      writeFileSync(join(ws, 'data', 'val.jsonl'), '{"task_id": "t1"}\n');
      cases.push([
        'debug-task, a 600 MB single-line dataset',
        ['debug-task', '--config', 'cfg.yaml', '--task-id', 't1', '--prepare-only', '--cwd', ws],
        ws,
      ]);
    }
    const tree = findUpstream('agentjet-c68c154');
    if (only.has('facts') && tree) {
      const ws = join(dir, 'checkout');
      cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
      cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
      const defaults = join(ws, 'ajet', 'default_config', 'ajet_default.yaml');
      writeFileSync(defaults, `${readFileSync(defaults, 'utf8').trimEnd()}\n  hostile: ${'['.repeat(500_000)}${']'.repeat(500_000)}\n`);
      writeFileSync(join(ws, 'c.yaml'), 'ajet:\n  rollout:\n    num_repeat: abc\n');
      cases.push([
        "lint, the checkout's defaults 1 MB of [[[...]]]",
        ['lint', 'c.yaml'],
        ws,
        { AGENTJET_FACTS_CACHE: join(dir, 'no-cache-') },
      ]);
    } else if (only.has('facts')) console.log('facts: skipped, the agentjet-c68c154 tree is missing');
    if (only.has('python') && process.platform !== 'win32') {
      const ws = join(dir, 'silent');
      mkdirSync(ws);
      writeFileSync(join(ws, 'python'), '#!/bin/sh\nsleep 600\n', { mode: 0o755 });
      writeFileSync(join(ws, 'c.yaml'), 'ajet:\n  rollout:\n    user_workflow: somepkg.flows->Flow\n');
      cases.push(['lint --python W (a #!/bin/sh whose child sleeps)', ['lint', '--python', join(ws, 'python'), 'c.yaml'], ws]);
    }
    let n = 0;
    for (const [name, args, cwd, env] of cases) {
      console.log(`\n${name}`);
      for (const [label, cli] of builds) {
        // A fresh facts cache per run, so neither build reads the other's.
        const m = await measured(
          cli,
          args,
          cwd,
          env?.AGENTJET_FACTS_CACHE ? { AGENTJET_FACTS_CACHE: `${env.AGENTJET_FACTS_CACHE}${n++}` } : env,
        );
        console.log(`  ${label.padEnd(20)} exit ${m.code}, peak ${m.peakMb.toFixed(0)} MB, ${m.seconds.toFixed(2)} s  ${m.said}`);
      }
    }
  } finally {
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
