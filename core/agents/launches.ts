// What the acting tools of one client started (an `agentjet mcp` session, a VS Code window): each
// launch runs under its own launch owner (core/launch/launcherRun.ts: the same plan, preflight and
// Stop as F5, the tasks and the CodeLens), is named by an id the agent can stop it by, and ends when
// the client goes (`close`: the MCP client disconnected, the window closed). A client stops only what
// it started: another client's launch, or one the user started, is not in its list.
import { dirname, resolve } from 'node:path';
import { LauncherRun, type LauncherRunEnd } from '../launch/launcherRun';
import { mergedEnv, type ResolvedLaunch } from '../launch/attributes';
import { t } from '../l10n';

/** The most of a launch's output kept for the answer (its end matters: the traceback, the reward). */
const OUTPUT_KEEP = 256 * 1024;

export type AgentLaunchKind = 'train' | 'debug-task';

export interface AgentLaunch {
  /** `launch-1`, `launch-2`, … in the order this client started them. */
  readonly id: string;
  readonly kind: AgentLaunchKind;
  readonly config: string;
  readonly cwd: string;
  readonly backbone: string;
  readonly python: string;
  /** CUDA_VISIBLE_DEVICES as the launch sees it (undefined: every GPU of the machine). */
  readonly gpus: string | undefined;
  readonly startedMs: number;
  /** The command line once it started (quoted for a shell). */
  command?: string;
  /** The experiment folder once the launcher named it ("Experiment Yaml Dir: …"). */
  runDir?: string;
  /** Why the plan or preflight refused it (nothing started). */
  refused?: string;
  /** Set once everything it started is gone. */
  end?: LauncherRunEnd;
  /** Resolves at that end. */
  readonly done: Promise<LauncherRunEnd>;
  /** The end of its output (stdout and stderr interleaved). */
  output(): string;
  /** The launcher's pid once started. */
  pid(): number | undefined;
}

export interface AgentLaunchesOptions {
  /** Owners start a watchdog with their first process (default true; the hints test passes false). */
  watchdog?: boolean;
}

/** The launcher's line naming the run's snapshot: the run folder is its parent. */
const YAML_DIR = /Experiment Yaml Dir:\s*(\S.*?)\s*$/m;

export class AgentLaunches {
  private readonly launches: { launch: AgentLaunch; run: LauncherRun }[] = [];
  private readonly waiters = new Set<() => void>();
  private closing: Promise<number[]> | undefined;
  private next = 1;
  /** How many launches were started and stop calls made (the hints test reads them). */
  started = 0;
  stops = 0;

  constructor(private readonly opts: AgentLaunchesOptions = {}) {}

  get all(): readonly AgentLaunch[] {
    return this.launches.map((x) => x.launch);
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Starts a launch (the plan, preflight and launcher run in the background); refused once closed. */
  start(kind: AgentLaunchKind, launch: ResolvedLaunch, via: string): AgentLaunch {
    if (this.closing) throw new Error(t('this client is closing: nothing more starts'));
    let out = '';
    let pid: () => number | undefined = () => undefined;
    const env = mergedEnv(launch);
    const record: Omit<AgentLaunch, 'done'> & { done?: Promise<LauncherRunEnd> } = {
      id: `launch-${this.next++}`,
      kind,
      config: launch.config,
      cwd: launch.cwd,
      backbone: launch.backbone,
      python: launch.python,
      gpus: env.CUDA_VISIBLE_DEVICES,
      startedMs: Date.now(),
      output: () => out,
      pid: () => pid(),
    };
    const run = new LauncherRun(
      { launch, via, lint: false },
      {
        refused: (m) => {
          record.refused = m;
          this.changed();
        },
        starting: (command) => {
          record.command = command;
        },
        output: (text) => {
          out = (out + text).slice(-OUTPUT_KEEP);
          if (!record.runDir) {
            const m = YAML_DIR.exec(out);
            if (m) {
              record.runDir = dirname(resolve(launch.cwd, m[1]!));
              this.changed();
            }
          }
        },
        spawnError: (e, command) => {
          out += `\n${command}: ${e.message}\n`;
        },
      },
      this.opts.watchdog === false ? { watchdog: false } : {},
    );
    pid = () => run.pid;
    record.done = run.start().then((end) => {
      record.end = end;
      this.changed();
      return end;
    });
    const full = record as AgentLaunch;
    this.launches.push({ launch: full, run });
    this.started++;
    return full;
  }

  /** A launch of this client by its id or its run folder (absolute). */
  find(idOrRunDir: string): AgentLaunch | undefined {
    return this.launches.find((x) => x.launch.id === idOrRunDir || x.launch.runDir === idOrRunDir)?.launch;
  }

  /** Stops one of this client's launches, as Stop does; resolves once everything it started is gone. */
  async stop(launch: AgentLaunch): Promise<LauncherRunEnd | undefined> {
    this.stops++;
    const entry = this.launches.find((x) => x.launch === launch);
    if (!entry) return undefined;
    await entry.run.stop();
    return launch.done;
  }

  /** Resolves when something about a launch changed (its run folder named, refused, ended), or after `ms`. */
  changedWithin(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(finish);
        signal?.removeEventListener('abort', finish);
        done();
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  /**
   * The client is gone: nothing more starts, and every launch it started is stopped through its
   * owner. Resolves when all have ended or `deadlineMs` passed, with the ids not yet ended.
   */
  close(deadlineMs: number): Promise<string[]> {
    this.closing ??= Promise.all(this.launches.map((x) => x.run.stop().then(() => x.launch.done))).then(() => []);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)));
    return Promise.race([this.closing, deadline]).then(() => {
      clearTimeout(timer);
      return this.launches.filter((x) => !x.launch.end).map((x) => x.launch.id);
    });
  }

  private changed(): void {
    for (const w of [...this.waiters]) w();
  }
}
