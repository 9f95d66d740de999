// The acting tools that start and stop launches, each under its own launch owner (core/launch/owner.ts
// through core/launch/launcherRun.ts, the path the tasks, the Train CodeLens and `agentjet debug-task`
// take), held by the client's AgentLaunches (core/agents/launches.ts) so they end with the client:
// - agentjet_debug_task: one task of a run on the debug backbone (core/debugTask/prepare.ts derives
//   the one-task config beside the run), waited for; its reward, its rollout record, and an exception
//   with the frame in the user's code;
// - agentjet_train: a training run, as the Train CodeLens starts it; answers once the launcher named
//   its run folder (agentjet_wait then waits on it);
// - agentjet_stop: one launch this client started, as Stop does.
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { t } from '../l10n';
import { resolveInside } from '../fs/inside';
import { resolveAttributes } from '../launch/attributes';
import type { Backbone } from '../launch/plan';
import { debugTaskDir, prepareDebugTask, readerInfo } from '../debugTask/prepare';
import { lastTraceback } from '../agentjet/launchRecord';
import { logRecordTool } from './logTools';
import { ToolError, str, int, pathArg, json, shown, insideRoots, visible, type AgentTool, type AgentToolEnv } from './toolkit';
import type { AgentLaunch, AgentLaunches } from './launches';

const BACKBONES: readonly Backbone[] = ['verl', 'trinity', 'debug'];
/** How long agentjet_train waits for the launcher to name its run folder before it answers anyway. */
const NAMED_WITHIN_MS = 60_000;

function launchesOf(env: AgentToolEnv): AgentLaunches {
  if (!env.launches) throw new ToolError(t('acting was not allowed'));
  return env.launches;
}

async function interpreter(env: AgentToolEnv, name: string): Promise<string> {
  const python = env.mayRunPython ? await env.python?.() : undefined;
  if (!python) throw new ToolError(t('{0} needs an interpreter and none was handed in', name));
  return python;
}

/** What a launch shows of itself: where it runs, with what, and on which GPUs. */
function described(env: AgentToolEnv, l: AgentLaunch): Record<string, unknown> {
  return {
    id: l.id,
    config: shown(env, l.config),
    backbone: l.backbone,
    python: l.python,
    gpus: l.gpus ?? t('all of the machine (CUDA_VISIBLE_DEVICES is not set)'),
    ...(l.command ? { command: l.command } : {}),
    ...(l.pid() !== undefined ? { pid: l.pid() } : {}),
    ...(l.runDir ? { run: shown(env, l.runDir) } : {}),
  };
}

/** Waits for the launch to end, or for `ms`, or the call's cancellation. */
async function settled(l: AgentLaunch, launches: AgentLaunches, until: (l: AgentLaunch) => boolean, ms: number, signal?: AbortSignal) {
  const deadline = Date.now() + ms;
  while (!until(l) && !l.end && Date.now() < deadline && !signal?.aborted)
    await launches.changedWithin(Math.min(5000, deadline - Date.now()), signal);
}

/** The frames of a Python traceback, and the last one in the user's code (inside the roots, not a package). */
async function userFrame(env: AgentToolEnv, lines: readonly string[]): Promise<Record<string, unknown> | undefined> {
  const FRAME = /^\s*File "(.+)", line (\d+), in (.+)$/;
  let found: Record<string, unknown> | undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = FRAME.exec(lines[i]!);
    if (!m) continue;
    const file = m[1]!;
    if (/[\\/](site|dist)-packages[\\/]/.test(file) || !(await resolveInside(file, env.roots)).ok) continue;
    const next = lines[i + 1];
    found = {
      file: shown(env, file),
      line: Number(m[2]),
      function: m[3],
      ...(next && !FRAME.test(next) ? { code: next.trim() } : {}),
    };
  }
  return found;
}

export const debugTaskTool: AgentTool = {
  name: 'agentjet_debug_task',
  title: 'Run one AgentJet task on the debug backbone',
  description:
    "Runs one task (by its task id) on AgentJet's debug backbone, as \"Debug this task\" does: the run's config (run: its yaml_backup.yaml) or a config is copied into a derived config that reads only that task (your files are not changed), the launcher runs it under the launch owner, and the answer says how it ended: exit code, the task's reward, its rollout record (the messages the model saw), and an exception with the frame in your code. Runs the workspace's interpreter (the launcher and your workflow): only with an interpreter handed in.",
  inputSchema: {
    type: 'object',
    properties: {
      run: pathArg('The run the task came from (saved_experiments/<experiment>); its config snapshot is used.'),
      config: pathArg('Or: the config to run the task with.'),
      taskId: {
        type: 'string',
        minLength: 1,
        maxLength: 500,
        description: 'The task id (as the rollout records and the task table show it).',
      },
      numRepeat: { type: 'integer', minimum: 1, maximum: 64, description: 'Rollouts of the task (default 1).' },
      timeoutS: { type: 'integer', minimum: 10, maximum: 1800, description: 'Stop it after this many seconds (default 600).' },
    },
    required: ['taskId'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'always',
  network: false,
  acts: 'starts',
  async run(args, env, signal) {
    const launches = launchesOf(env);
    const python = await interpreter(env, 'agentjet_debug_task');
    const runArg = str(args, 'run');
    const configArg = str(args, 'config');
    if ((runArg === undefined) === (configArg === undefined)) throw new ToolError(t('name either run or config'));
    let run: string | undefined;
    let config: string;
    let cwd = env.roots[0]!;
    if (runArg !== undefined) {
      run = await insideRoots(env, runArg);
      config = join(run, 'yaml_backup.yaml');
      if (!(await stat(config).catch(() => undefined))?.isFile())
        throw new ToolError(t('{0} has no config snapshot (yaml_backup.yaml)', shown(env, run)));
      // A run lives in <cwd>/saved_experiments/<name>: the launcher ran from <cwd>.
      if (/^(saved_experiments|launcher_record)$/.test(basename(dirname(run)))) cwd = dirname(dirname(run));
    } else config = await insideRoots(env, configArg);
    const info = readerInfo(await readFile(config, 'utf8'));
    if (!info.selectable) throw new ToolError(info.why ?? '');
    const taskId = str(args, 'taskId')!;
    const prepared = await prepareDebugTask({
      sourceConfig: config,
      cwd,
      taskId,
      numRepeat: int(args, 'numRepeat', 1),
      outDir: debugTaskDir(run, cwd),
      python,
      ...(run ? { sourceRun: run } : {}),
    });
    if (!prepared.ok) throw new ToolError(prepared.message);
    const launch = launches.start(
      'debug-task',
      resolveAttributes({ config: prepared.config, cwd, python, backbone: 'debug', noDebug: true }),
      'debug-task',
    );
    const limitS = int(args, 'timeoutS', 600);
    await settled(launch, launches, () => false, limitS * 1000, signal);
    const timedOut = !launch.end;
    if (timedOut) await launches.stop(launch);
    const end = await launch.done;
    const out = launch.output();
    const rewards = [...out.matchAll(/Task (\S+) \(Reward (-?[\d.]+(?:e-?\d+)?)\)/g)]
      .filter((m) => m[1] === taskId)
      .map((m) => Number(m[2]));
    const tb = lastTraceback(out);
    let record: unknown;
    if (launch.runDir && rewards.length) {
      const text = await logRecordTool
        .run({ path: launch.runDir, taskId }, env, signal)
        .catch((e: unknown) => (e instanceof Error ? e.message : String(e)));
      try {
        record = JSON.parse(text) as unknown;
      } catch {
        record = text.slice(0, 8000);
      }
    }
    return json({
      ...described(env, launch),
      task: taskId,
      derivedConfig: shown(env, prepared.config),
      outcome: launch.refused
        ? 'refused'
        : timedOut
          ? 'timeout'
          : signal?.aborted || end.stopped
            ? 'stopped'
            : end.exitCode === 0
              ? 'finished'
              : 'failed',
      exitCode: end.exitCode,
      ...(launch.refused ? { refused: launch.refused } : {}),
      ...(rewards.length ? { reward: rewards.length === 1 ? rewards[0] : rewards } : {}),
      ...(tb
        ? {
            exception: {
              line: tb
                .filter((l) => l.trim())
                .at(-1)
                ?.trim(),
              frameInYourCode: (await userFrame(env, tb)) ?? t('none: every frame is in packages or outside the workspace'),
              traceback: visible(tb.join('\n').trim()).slice(-4000),
            },
          }
        : {}),
      ...(record !== undefined ? { rolloutRecord: record } : {}),
      ...(!rewards.length && !tb ? { outputTail: visible(out.slice(-3000)) } : {}),
    });
  },
};

export const trainTool: AgentTool = {
  name: 'agentjet_train',
  title: 'Start training an AgentJet config',
  description:
    "Starts training a config with a backbone (verl or trinity; debug for a debug rollout), as the Train CodeLens does: the same plan and preflight, AgentJet's launcher under the launch owner. Answers once the launcher named its run folder (or it ended or was refused): the launch id, the run folder, the command, the interpreter and the GPUs (CUDA_VISIBLE_DEVICES). Then agentjet_wait on the id or the folder; agentjet_stop ends it. It ends too when this client disconnects. Runs the workspace's interpreter (the launcher and the trainer): only with an interpreter handed in.",
  inputSchema: {
    type: 'object',
    properties: {
      config: pathArg('The config to train.'),
      backbone: { type: 'string', minLength: 1, maxLength: 10, description: 'verl, trinity or debug.' },
    },
    required: ['config', 'backbone'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'always',
  network: false,
  acts: 'starts',
  async run(args, env, signal) {
    const launches = launchesOf(env);
    const backbone = str(args, 'backbone') as Backbone;
    if (!BACKBONES.includes(backbone)) throw new ToolError(t('backbone must be one of {0}', BACKBONES.join(', ')));
    const python = await interpreter(env, 'agentjet_train');
    const config = await insideRoots(env, str(args, 'config'));
    const launch = launches.start('train', resolveAttributes({ config, cwd: env.roots[0]!, python, backbone, noDebug: true }), 'agent');
    await settled(launch, launches, (l) => l.runDir !== undefined || l.refused !== undefined, NAMED_WITHIN_MS, signal);
    const state = launch.refused ? 'refused' : launch.end ? 'ended' : 'running';
    return json({
      ...described(env, launch),
      state,
      ...(launch.refused ? { refused: launch.refused } : {}),
      ...(launch.end ? { exitCode: launch.end.exitCode, outputTail: visible(launch.output().slice(-3000)) } : {}),
      ...(state === 'running' && !launch.runDir
        ? { note: t('the launcher has not named its run folder yet; agentjet_wait on {0}', launch.id) }
        : {}),
    });
  },
};

export const stopTool: AgentTool = {
  name: 'agentjet_stop',
  title: 'Stop an AgentJet launch this client started',
  description:
    'Stops a launch that agentjet_train or agentjet_debug_task of this same client started (by its id or its run folder), as Stop does: everything it started ends (its companions, such as the vLLM server, are spared). A run this client did not start is refused.',
  inputSchema: {
    type: 'object',
    properties: { run: pathArg('The launch id (launch-1) or the run folder agentjet_train returned.') },
    required: ['run'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  acts: 'stops',
  async run(args, env) {
    const launches = launchesOf(env);
    const name = str(args, 'run')!;
    let launch = launches.find(name);
    if (!launch) {
      const dir = await insideRoots(env, name).catch(() => undefined);
      launch = dir ? launches.all.find((l) => l.runDir !== undefined && dir === l.runDir) : undefined;
    }
    if (!launch)
      throw new ToolError(
        t('{0} was not started by this client ({1}); stop it where it was started', name, launches.all.map((l) => l.id).join(', ') || '-'),
      );
    const was = launch.end ? 'ended' : 'running';
    const end = await launches.stop(launch);
    return json({ ...described(env, launch), was, stopped: true, ...(end ? { exitCode: end.exitCode } : {}) });
  },
};
