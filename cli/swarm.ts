// `agentjet swarm status|watch [--url URL]`: an AgentJet swarm server (`ajet-swarm start`) seen from a
// terminal: CI logs, SSH sessions, scripts. No server, a refused connection or a timeout: exit code 1
// within a few seconds with a one-line reason.
import type { CliCommand } from './commands';
import { parseCli } from './args';
import { t } from '../core/l10n';
import { DEFAULT_SWARM_URL, SwarmApi, SwarmError, fetchStatus, normalizeSwarmUrl } from '../core/swarm/api';
import { statusText } from '../core/swarm/format';
import { SwarmWatcher } from '../core/swarm/watcher';

const help = () =>
  t(
    `Usage: agentjet swarm status [--url URL] [--format text|json] [--timeout SECONDS]
       agentjet swarm watch [--url URL] [--interval SECONDS] [--timeout SECONDS]

Shows an AgentJet swarm server (started with \`ajet-swarm start\`): the engine state as the server
names it (ENGINE.OFFLINE, ENGINE.BOOTING, ENGINE.ROLLING, ENGINE.ROLLING_POST, ENGINE.WEIGHT_SYNCING,
ENGINE.WEIGHT_EXPORTING), the global step and the current batch's rollout pool.

  status      print once and exit
  watch       print on every change until the server stops answering (then exit 1)
  --url       the server (default: $AJET_SWARM_URL, else {0})
  --format    text (default) or json (status only)
  --interval  seconds between polls while nothing changes (watch; default 2)
  --timeout   seconds to wait for an answer (default 2.5)

Exit codes: 0 ok, 1 the server cannot be reached or answered something unexpected, 2 bad usage.
`,
    DEFAULT_SWARM_URL,
  );

interface Opts {
  url: string;
  format: string;
  interval: number;
  timeoutMs: number;
}

function parse(args: string[], err: (s: string) => void): Opts | undefined {
  const o: Opts = { url: process.env.AJET_SWARM_URL || DEFAULT_SWARM_URL, format: 'text', interval: 2, timeoutMs: 2500 };
  const r = parseCli(args, {
    url: { type: 'string' },
    format: { type: 'string', choices: ['text', 'json'] },
    interval: { type: 'string' },
    timeout: { type: 'string' },
  });
  if (r.kind !== 'ok' || r.positionals.length) {
    err(`agentjet swarm: ${r.kind === 'error' ? r.message : t('unknown option {0}', r.kind === 'ok' ? r.positionals[0]! : '--help')}\n`);
    return undefined;
  }
  const v = r.values;
  if (v.url !== undefined) o.url = v.url;
  if (v.format !== undefined) o.format = v.format;
  for (const [name, val] of [
    ['--interval', v.interval],
    ['--timeout', v.timeout],
  ] as const) {
    if (val === undefined) continue;
    const n = Number(val);
    if (val === '' || !Number.isFinite(n) || n <= 0 || n > 3600) {
      err(`agentjet swarm: ${t('{0} must be a number of seconds', name)}\n`);
      return undefined;
    }
    if (name === '--interval') o.interval = n;
    else o.timeoutMs = n * 1000;
  }
  try {
    o.url = normalizeSwarmUrl(o.url);
  } catch (e) {
    err(`agentjet swarm: ${(e as Error).message}\n`);
    return undefined;
  }
  return o;
}

export async function runSwarm(
  args: string[],
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
  signal?: AbortSignal,
  tty = false,
): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === '-h' || sub === '--help' || rest.includes('-h') || rest.includes('--help')) {
    write(help());
    return sub ? 0 : 2;
  }
  if (sub !== 'status' && sub !== 'watch') {
    writeErr(`agentjet swarm: ${t("unknown subcommand '{0}' (status, watch)", sub)}\n`);
    return 2;
  }
  const o = parse(rest, writeErr);
  if (!o) return 2;
  if (sub === 'status') {
    try {
      const s = await fetchStatus(new SwarmApi(o.url, { timeoutMs: o.timeoutMs }), signal);
      write(o.format === 'json' ? `${JSON.stringify(s, null, 2)}\n` : statusText(s));
      return 0;
    } catch (e) {
      writeErr(`agentjet swarm: ${oneLine(e)}\n`);
      return 1;
    }
  }
  return watch(o, write, writeErr, signal, tty);
}

function oneLine(e: unknown): string {
  const m = e instanceof SwarmError || e instanceof Error ? e.message : String(e);
  return m.replace(/\s+/g, ' ').trim();
}

function watch(
  o: Opts,
  write: (s: string) => void,
  writeErr: (s: string) => void,
  signal: AbortSignal | undefined,
  tty: boolean,
): Promise<number> {
  return new Promise<number>((done) => {
    const resolve = (code: number) => {
      process.removeListener('SIGINT', onSig);
      done(code);
    };
    let lastShown = '';
    let seen = false;
    const w = new SwarmWatcher(o.url, {
      timeoutMs: o.timeoutMs,
      fastMs: Math.min(1000, o.interval * 1000),
      slowMs: o.interval * 1000,
      onChange: (m) => {
        if (m.reachability === 'error') {
          w.stop();
          writeErr(`agentjet swarm: ${seen ? t('the server stopped answering: {0}', m.error ?? '') : m.error}\n`);
          resolve(1);
          return;
        }
        if (!m.status) return;
        seen = true;
        const text = statusText(m.status, m.stateSince !== undefined ? Date.now() - m.stateSince : undefined);
        // Durations change every second; print when something else did.
        const key = text.replace(/ {2}\S+ \d+ (s|min).*$/m, '');
        if (key === lastShown) return;
        lastShown = key;
        write(tty ? `\x1b[2J\x1b[H${text}` : `--- ${new Date().toISOString()}\n${text}`);
      },
    });
    signal?.addEventListener('abort', () => {
      w.stop();
      resolve(0);
    });
    function onSig(): void {
      w.stop();
      resolve(0);
    }
    process.once('SIGINT', onSig);
    w.start();
  });
}

export const swarmCommand: CliCommand = {
  name: 'swarm',
  summary: 'show an AgentJet swarm server (status, watch)',
  run: (args) => runSwarm(args, undefined, undefined, undefined, process.stdout.isTTY === true),
};
