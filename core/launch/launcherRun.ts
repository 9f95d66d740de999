// A launcher run outside a debug session: the task/terminal launch (tasks, the CodeLens) and
// `agentjet debug-task`. The same steps as F5 (core/launch/lifecycle.ts: plan, preflight, the
// launcher the installed version has) under the launch's owner (core/launch/owner.ts: the user's
// stop checked before every step, the process groups, stop, the watchdog), the launcher's output
// streamed to the shell, and the launch record written at the end (core/launch/record.ts, with or
// without a folder named by the launcher). The shells (extension/debug/launcherTerminal.ts,
// cli/debugTask.ts) only word and show what happens.
import { constants } from 'node:os';
import type { ResolvedLaunch } from './attributes';
import { commandLine, describeTarget, planLaunch, preflightLaunch, type LaunchPlan, type Preflighted } from './lifecycle';
import { shellCommand } from '../process/quote';
import { LaunchOwner, LaunchStopped, type LaunchOwnerOptions } from './owner';
import { LaunchRecordKeeper } from './record';
import type { LaunchCause } from '../protocol/debug';

export interface LauncherRunSpec {
  launch: ResolvedLaunch;
  extra?: { withRay?: boolean | undefined; withRayCluster?: boolean | undefined; debugTags?: readonly string[] | string | undefined };
  /** Recorded with the launch: 'task', 'codelens', 'debug-task', ... */
  via: string;
  /** Lint the config before the launch (default true; `agentjet debug-task` writes its own). */
  lint?: boolean;
  /** Plan and preflight the caller already made (`agentjet debug-task` prints the command first). */
  prepared?: { plan: LaunchPlan; pre: Extract<Preflighted, { ok: true }> };
}

export interface LauncherRunEnd {
  /** The launcher's exit code (128 + the signal's number for a signal, 1 when it could not start). */
  exitCode: number;
  signal: string | null;
  /** The user stopped it (before it started, or while it ran). */
  stopped: boolean;
  /** Nothing was started (refused, stopped before the spawn, or the spawn failed). */
  started: boolean;
  /** A failed launch: why, from its output, for Problems on `config` (core/diagnose). */
  causes?: LaunchCause[];
  config?: string;
}

export interface LauncherRunEvents {
  /** The plan or preflight refused the launch: nothing was started. */
  refused?(message: string): void;
  warning?(text: string): void;
  /** The command line about to run (quoted for a shell) and what it is. */
  starting?(command: string, what: string, cwd: string): void;
  output?(text: string, stream: 'stdout' | 'stderr'): void;
  spawnError?(error: NodeJS.ErrnoException, command: string): void;
  recordError?(message: string): void;
  /** The launch record in `folder` was (re)written: the Runs view looks again. */
  recordWritten?(folder: string): void;
  /** Once, at the very end: everything the launch started is gone (companions aside). */
  ended?(end: LauncherRunEnd): void;
}

/** The shell's exit code for a process ended by `signal`: 128 + its number (SIGINT 130, SIGTERM 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  const n = (constants.signals as Partial<Record<NodeJS.Signals, number>>)[signal];
  return n === undefined ? 128 : 128 + n;
}

export class LauncherRun {
  readonly owner: LaunchOwner;
  private readonly record = new LaunchRecordKeeper();
  private done: Promise<LauncherRunEnd> | undefined;
  private launcherPid: number | undefined;

  constructor(
    private readonly spec: LauncherRunSpec,
    private readonly events: LauncherRunEvents = {},
    ownerOptions: LaunchOwnerOptions = {},
  ) {
    this.owner = new LaunchOwner({ ...ownerOptions, autokill: spec.launch.autokill === true });
  }

  /** The launcher's pid once started. */
  get pid(): number | undefined {
    return this.launcherPid;
  }

  /** Runs the launch to its end (resolves once everything it started is gone). */
  start(): Promise<LauncherRunEnd> {
    return (this.done ??= this.run().then((end) => {
      this.events.ended?.(end);
      return end;
    }));
  }

  /** The user's stop, at any moment: nothing starts after it, and everything started ends. */
  async stop(): Promise<void> {
    await this.owner.stop();
  }

  private async run(): Promise<LauncherRunEnd> {
    const r = this.spec.launch;
    const owner = this.owner;
    // Nothing ran (refused, stopped first, no such interpreter): the live record says so or goes.
    const notStarted = async (exitCode: number): Promise<LauncherRunEnd> => {
      await this.record.abandon(owner.stopRequestedMs);
      return { exitCode, signal: null, stopped: owner.stopRequested, started: false };
    };
    try {
      const prepared = this.spec.prepared;
      const planned = prepared
        ? ({ ok: true, plan: prepared.plan } as const)
        : await owner.step('plan', () => planLaunch(r, this.spec.lint === false ? { lint: false } : {}));
      if (!planned.ok) {
        this.events.refused?.(planned.refusal.message);
        return notStarted(1);
      }
      const plan = planned.plan;
      owner.configure({ cwd: r.cwd, env: plan.env, autokill: r.autokill === true });
      this.record.beginLive(owner, r, plan, this.spec.via, {
        written: (folder) => this.events.recordWritten?.(folder),
        error: (message) => this.events.recordError?.(message),
      });
      const pre = prepared ? prepared.pre : await owner.step('preflight', (signal) => preflightLaunch(plan, false, { signal }));
      if (!pre.ok) {
        this.events.refused?.(pre.refusal.message);
        return notStarted(1);
      }
      for (const w of pre.warnings) this.events.warning?.(w);
      const cmd = commandLine(plan, pre.target, this.spec.extra ?? {});
      this.events.starting?.(shellCommand([cmd.command, ...cmd.args]), describeTarget(pre.target), r.cwd);
      owner.check('launcher');
      this.record.command = [cmd.command, ...cmd.args];
      this.record.where = { ...(pre.layout ? { layout: pre.layout } : {}), args: r.args ?? [], env: plan.env };
      this.record.startedAt = Date.now();
      let child;
      try {
        child = owner.spawn(cmd.command, cmd.args, { cwd: r.cwd, env: plan.env });
      } catch (e) {
        if (e instanceof LaunchStopped) throw e;
        this.events.spawnError?.(e as NodeJS.ErrnoException, cmd.command);
        return notStarted(127);
      }
      owner.running();
      this.launcherPid = child.pid;
      this.record.setPid(child.pid);
      const onData = (stream: 'stdout' | 'stderr') => (b: Buffer) => {
        const text = b.toString();
        this.record.push(text, stream, r);
        this.events.output?.(text, stream);
      };
      child.stdout?.on('data', onData('stdout'));
      child.stderr?.on('data', onData('stderr'));
      const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; failed?: NodeJS.ErrnoException }>((resolve) => {
        let settled = false;
        const settle = (v: { code: number | null; signal: NodeJS.Signals | null; failed?: NodeJS.ErrnoException }) => {
          if (!settled) resolve(v);
          settled = true;
        };
        child.on('error', (e: NodeJS.ErrnoException) => {
          // No such interpreter: `exit` never comes.
          if (child.pid === undefined) settle({ code: null, signal: null, failed: e });
          else this.events.spawnError?.(e, cmd.command);
        });
        child.on('close', (code, signal) => settle({ code, signal }));
        // The launcher is gone but a child of it (one that outlived it) still holds the pipes: the
        // launch's tree goes with its launcher (companions aside), and the run ends now.
        child.on('exit', (code, signal) => {
          setTimeout(() => {
            if (settled) return;
            void owner.end().finally(() => {
              child.stdout?.destroy();
              child.stderr?.destroy();
              settle({ code, signal });
            });
          }, 500).unref();
        });
      });
      if (exit.failed) {
        this.events.spawnError?.(exit.failed, cmd.command);
        await owner.end();
        return notStarted(127);
      }
      // Whatever of the launch is left (a child that re-grouped) goes with the launcher.
      await owner.end();
      const exitCode = exit.code ?? (exit.signal ? signalExitCode(exit.signal) : 1);
      this.record.exitCode = exitCode;
      if (exit.signal) this.record.exitSignal = exit.signal;
      if (owner.stopRequestedMs !== undefined) this.record.stopRequestedMs = owner.stopRequestedMs;
      const finished = await this.record.finish(
        r,
        plan,
        child.pid,
        () => undefined,
        (message) => this.events.recordError?.(message),
        this.spec.via,
      );
      return {
        exitCode,
        signal: exit.signal ?? null,
        stopped: owner.stopRequested,
        started: true,
        ...(finished.causes ? { causes: finished.causes, config: r.config } : {}),
      };
    } catch (e) {
      if (!(e instanceof LaunchStopped)) throw e;
      await owner.end();
      return notStarted(130);
    }
  }
}
