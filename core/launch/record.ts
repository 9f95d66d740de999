// What an `agentjet` launch leaves behind, for every path that starts one (the debug session, the
// task terminal, `agentjet debug-task`): the launcher's output (the end of it), the experiment
// folder it announced (or the one found after it), and the launch record written beside the run.
// A launcher that names no folder (one that failed or was stopped early, or prints differently)
// still gets its record: under the folder AgentJet would have made for it in the log root of the
// launched version's layout, so the Runs view and `agentjet runs` show how the launch ended.
import { t } from '../l10n';
import { join } from 'node:path';
import type { ResolvedLaunch } from './attributes';
import type { LaunchPlan } from './lifecycle';
import { LauncherOutputReader, findExperimentFolder, findRolloutLog, logExperimentOf, type LaunchWhere } from './experiment';
import { existsSync } from 'node:fs';
import { experimentName, launchPaths, writeLaunchRecord, LAUNCH_OUTPUT_MAX, type LayoutVersion } from '../agentjet';
import type { ExperimentEventBody, FinishedEventBody, LaunchCause } from '../protocol/debug';
import { classifyText } from '../diagnose/classify';
import { LiveRecord, type LiveRecordEvents } from './liveRecord';
import type { LaunchOwner } from './owner';
import { STACKS_DIR_ENV } from './stackHook';
import { adoptStackDumps, keepStackDumps } from './stackDumps';

/** The layout a launch's record falls back to when the preflight did not read one from AgentJet's code. */
function fallbackLayout(dialect: LaunchPlan['facts']['dialect']): LayoutVersion {
  return dialect === 'ajet' ? 'agentjet' : dialect === 'astune' ? 'astune' : 'astuner-2025-12';
}

export class LaunchRecordKeeper {
  /** The command line run, for the record. */
  command: string[] = [];
  startedAt = 0;
  exitCode: number | undefined;
  exitSignal: string | undefined;
  /** The launched AgentJet's layout (from the preflight), arguments and environment. */
  where: LaunchWhere = {};
  /** When the user asked to stop (Stop/Shift+F5, Restart): the exit that follows is not a failure. */
  stopRequestedMs: number | undefined;
  private readonly reader = new LauncherOutputReader();
  /** The record written while the launch runs (from its preparation on). */
  private live: LiveRecord | undefined;
  /** The launcher's output (the end of it), for the launch record beside the run. */
  private output = '';
  private experiment: string | undefined;
  /** The stack dumps moving beside the run (core/stacks/dumps.ts), once the launcher named it. */
  private adopting: Promise<unknown> | undefined;

  /** Why the launch failed, from its output (none for a success or the user's stop). */
  causes(): LaunchCause[] {
    if (this.exitCode === 0 || (this.exitCode === undefined && !this.exitSignal) || this.stopRequestedMs !== undefined) return [];
    return classifyText(this.output).map((c) => ({
      code: c.code,
      message: c.message,
      fix: c.fix,
      line: c.line,
      evidence: c.evidence,
      ...(c.action?.config ? { edits: c.action.config.map((e) => ({ key: e.key, value: e.value })) } : {}),
      ...(c.action?.env ? { env: c.action.env } : {}),
    }));
  }

  /**
   * Keeps the output and reads the launcher's own lines; the experiment event's body when this
   * text first named the experiment folder.
   */
  push(text: string, category: 'stdout' | 'stderr', launch: ResolvedLaunch | undefined): ExperimentEventBody | undefined {
    this.output += text;
    if (this.output.length > 2 * LAUNCH_OUTPUT_MAX) this.output = this.output.slice(-LAUNCH_OUTPUT_MAX);
    if (!this.reader.push(text, category) || !launch) return undefined;
    const info = this.reader.info;
    const folder = info.yamlBackup || info.logSession ? logExperimentOf(info, launch.cwd, existsSync, this.where) : undefined;
    return folder ? this.setExperiment(folder) : undefined;
  }

  /**
   * From the moment the launch is prepared: a live record (phase, pids) rewritten at every event of
   * the owner, first where AgentJet will log this launch (the folder its name would get now), then
   * in the folder the launcher names. `finish` writes the last one.
   */
  beginLive(owner: LaunchOwner, r: ResolvedLaunch, plan: LaunchPlan, via: string, events: LiveRecordEvents = {}): void {
    if (this.live) return;
    const startMs = Date.now();
    this.live = new LiveRecord(
      owner,
      { cwd: r.cwd, config: r.config, via, startMs },
      () => this.experiment ?? this.expectedFolder(r, plan, startMs),
      () => this.command,
      events,
    );
  }

  /**
   * The launch ended before its launcher started: a stop made then leaves a "stopped" record where
   * the live one was; a refused launch (nothing ran) leaves nothing.
   */
  async abandon(stopRequestedMs: number | undefined): Promise<void> {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    await live.close();
    const folder = live.folder;
    if (stopRequestedMs === undefined || !folder) return live.remove();
    const now = Date.now();
    try {
      writeLaunchRecord(folder, {
        id: live.id,
        command: this.command,
        cwd: live.cwd,
        config: live.config,
        startMs: live.startMs,
        endMs: Math.max(now, stopRequestedMs),
        exitCode: null,
        signal: null,
        stopRequestedMs,
        via: live.via,
      });
      live.written(folder);
    } catch {
      /* a vanished folder: nothing to show */
    }
  }

  /** The launch's process (the launcher, or debugpy's debuggee) once known. */
  setPid(pid: number | undefined): void {
    this.live?.setPid(pid);
  }

  /** The launch's own folder of stack dumps (AGENTJET_STACKS_DIR of its environment), if it has one. */
  private stacksDir(): string | undefined {
    const d = this.where.env?.[STACKS_DIR_ENV];
    return d && d !== 'off' ? d : undefined;
  }

  /** The folder AgentJet makes for this launch when the launcher names none (its log root, its name now). */
  private expectedFolder(r: ResolvedLaunch, plan: LaunchPlan, atMs: number): string {
    const w = this.where;
    const logRoot = w.layout
      ? launchPaths({ cwd: r.cwd, version: w.layout, experiment: '', args: w.args ?? [], env: w.env ?? {} }).logRoot
      : join(r.cwd, 'saved_experiments');
    const name = experimentName(r.config, plan.facts.experimentName, w.layout ?? fallbackLayout(plan.facts.dialect), new Date(atMs));
    return join(logRoot, name);
  }

  private setExperiment(folder: string): ExperimentEventBody | undefined {
    if (this.experiment) return undefined;
    this.experiment = folder;
    this.live?.changed();
    const dumps = this.stacksDir();
    if (dumps) this.adopting = adoptStackDumps(dumps, folder, this.startedAt || Date.now()).catch(() => undefined);
    return { folder, ...(this.reader.info.yamlBackup ? { yamlBackup: this.reader.info.yamlBackup } : {}) };
  }

  /**
   * At the end of the run: finds the experiment if no line named it (`onExperiment` gets its
   * event), writes the launch record (`onError` gets why it could not), and returns the
   * finished event's body.
   */
  async finish(
    r: ResolvedLaunch,
    plan: LaunchPlan,
    pid: number | undefined,
    onExperiment: (b: ExperimentEventBody) => void,
    onError: (message: string) => void,
    via: string = r.noDebug ? 'run' : 'debug',
  ): Promise<FinishedEventBody> {
    // No live write may land after the last one.
    const live = await this.live?.close();
    let recordFolder: string | undefined;
    if (!this.experiment) {
      // No "Experiment Name" line seen (a launcher that failed early prints none): look for a
      // folder this launch made under the working directory's log root.
      const w = this.where;
      const logRoot = w.layout
        ? launchPaths({ cwd: r.cwd, version: w.layout, experiment: '', args: w.args ?? [], env: w.env ?? {} }).logRoot
        : join(r.cwd, 'saved_experiments');
      const found = await findExperimentFolder(logRoot, r.config, plan.facts.experimentName, this.startedAt);
      const body = found ? this.setExperiment(found) : undefined;
      if (body) onExperiment(body);
      // Nothing made: the folder AgentJet would have made for this launch holds its record alone
      // (where the live record already is, when there is one).
      if (!found && live) recordFolder = live.folder;
      else if (!found && this.startedAt) {
        const name = experimentName(
          r.config,
          plan.facts.experimentName,
          w.layout ?? fallbackLayout(plan.facts.dialect),
          new Date(this.startedAt),
        );
        recordFolder = join(logRoot, name);
      }
    }
    const folder = this.experiment ?? recordFolder;
    if (live && live.folder !== folder) await live.remove();
    if (folder) {
      try {
        writeLaunchRecord(
          folder,
          {
            ...(live ? { id: live.id } : {}),
            command: this.command,
            cwd: r.cwd,
            config: r.config,
            experiment: this.reader.info.name ?? this.experiment,
            ...(pid ? { pid } : {}),
            startMs: live?.startMs ?? this.startedAt,
            endMs: Date.now(),
            exitCode: this.exitCode ?? null,
            signal: this.exitSignal ?? null,
            ...(this.stopRequestedMs !== undefined ? { stopRequestedMs: this.stopRequestedMs } : {}),
            via,
          },
          this.output,
        );
        live?.written(folder);
      } catch (e) {
        onError(t('could not record the launch in {0}: {1}', folder, (e as Error).message));
      }
    }
    // The stack dumps beside the run too (moved when it was named, else copied now).
    await this.adopting;
    const dumps = this.stacksDir();
    if (dumps && folder) await keepStackDumps(dumps, folder, live?.startMs ?? (this.startedAt || Date.now())).catch(() => undefined);
    const rolloutLog = this.experiment ? await findRolloutLog(this.experiment, this.startedAt) : undefined;
    const causes = this.causes();
    return {
      experimentFolder: this.experiment ?? null,
      rolloutLog: rolloutLog ?? null,
      exitCode: this.exitCode ?? null,
      openTokenLog: r.openTokenLogOnFinish,
      ...(causes.length ? { causes, config: r.config } : {}),
    };
  }
}
