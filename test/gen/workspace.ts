// A workspace of AgentJet runs as the launcher and beast-logger leave them (upstream
// beast_logger/register.py: one folder per module with `<mod>.log` and `<mod>.json.log`,
// `regular/regular.log`, `.logger_lock` holding the writer's PID; AgentJet adds yaml_backup.yaml,
// trajectory/<split>/step_<n>/<task>.json and saved_checkpoints/<project>/<exp>/global_step_<n>/):
//
//   saved_experiments/<exp>/yaml_backup.yaml, backup/
//   saved_experiments/<exp>/<YYYY_MM_DD_HH_MM>/<host>/{rollout,evaluation,exception,benchmark,token_clip,bad_case}/
//   saved_experiments/<exp>/<YYYY_MM_DD_HH_MM>/<host>/regular/regular.log
//   saved_experiments/<exp>/<YYYY_MM_DD_HH_MM>/<host>/trajectory/eval/step_<n>/<task>.json
//   saved_checkpoints/example_<kind>/<exp>/global_step_<n>/
//
// Experiment e is kind math_agent, appworld, countdown, werewolves (cycling), started 5 h after the
// previous one. The second (appworld) failed: an exception record. With runningPid, the newest
// holds a .logger_lock naming that process (running while it lives). With multiHost, werewolves
// runs write from two hosts. Deterministic for a given seed.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { frame, logTime, prng, sessionName, writeRolloutLog } from './rollout';
import { jsonlTaskReader } from '../../core/templates/config';

const KINDS = ['math_agent', 'appworld', 'countdown', 'werewolves'] as const;
const MODULES = ['rollout', 'evaluation', 'exception', 'benchmark', 'token_clip', 'bad_case'] as const;

export interface WorkspaceOptions {
  experiments?: number;
  steps?: number;
  /** Mean tokens per rollout timeline. */
  tokens?: number;
  seed?: number;
  /** The newest experiment's lock names this PID (on host gpu-node-0). */
  runningPid?: number;
  /** werewolves runs log from gpu-node-0 and gpu-node-1. */
  multiHost?: boolean;
}

function snapshot(project: string, exp: string, backbone: string): string {
  return `ajet:
  project_name: ${project}
  experiment_name: ${exp}
  experiment_dir: saved_experiments/${exp}
  backbone: ${backbone}
  model:
    path: Qwen/Qwen2.5-7B-Instruct
${jsonlTaskReader('  ')}
  task_judge:
    judge_protocol: tutorial.example_math_agent.math_answer_as_judge->MathAnswerAsJudge
  rollout:
    user_workflow: tutorial.example_math_agent.math_agent->ExampleMathLearn
    num_repeat: 4
    max_model_len: 10000
  data:
    train_batch_size: 32
    max_prompt_length: 3000
    max_response_length: 7000
  trainer_common:
    total_epochs: 10
    save_freq: 2
    test_freq: 2
    logger: console
`;
}

/** A two-column table in the shape rich prints for beast-logger's print_dict (a panel around a grid). */
function richDictTable(rows: Record<string, string | number>, width = 60): string {
  const k = Math.max(...Object.keys(rows).map((x) => x.length)) + 2;
  const v = width - k - 7;
  const out = ['╭' + '─'.repeat(width - 2) + '╮', `│ ┌${'─'.repeat(k)}┬${'─'.repeat(v)}┐ │`];
  const list = Object.entries(rows);
  list.forEach(([key, val], i) => {
    out.push(`│ │ ${key.padEnd(k - 1)}│ ${String(val).padEnd(v - 1)}│ │`);
    if (i < list.length - 1) out.push(`│ ├${'─'.repeat(k)}┼${'─'.repeat(v)}┤ │`);
  });
  out.push(`│ └${'─'.repeat(k)}┴${'─'.repeat(v)}┘ │`, '╰' + '─'.repeat(width - 2) + '╯');
  return `\n${out.join('\n')}\n`;
}

/** print_dict's two writes: the text log gets the table, the JSON log gets {header, color, content, attach}. */
function dictLog(host: string, mod: string, when: Date, header: string, rows: Record<string, string | number>, source: string): void {
  mkdirSync(join(host, mod), { recursive: true });
  const table = richDictTable(rows);
  appendFileSync(join(host, mod, `${mod}.log`), `${logTime(when)} | INFO     | ${source} - ${table}\n`);
  appendFileSync(
    join(host, mod, `${mod}.json.log`),
    frame(when, { header, color: '#4422cc', content: table, attach: null }, { plain: true, source }),
  );
}

const TAGS = ['success', 'failure', 'half_success'] as const;

function trajectory(taskId: string, tag: string, reward: number): unknown {
  return {
    task_id: taskId,
    task_tag: tag,
    reward_structure: { raw_reward: reward, step_reward_arr: [reward], success_rate: reward },
    traj: [
      [
        { role: 'system', content: 'You solve arithmetic with a Python tool.' },
        { role: 'user', content: 'How much is 6 times 7?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_0', type: 'function', function: { name: 'execute_python_code', arguments: '{"code": "print(6 * 7)"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_0', content: '42' },
        { role: 'assistant', content: 'So the result is \\boxed{42}.' },
      ],
    ],
  };
}

/** Lays the workspace out under `root`; returns the experiment names, oldest first. */
export function writeWorkspace(root: string, o: WorkspaceOptions = {}): string[] {
  const r = prng(o.seed ?? 0);
  const experiments = o.experiments ?? 3,
    steps = o.steps ?? 4,
    tokens = o.tokens ?? 600;
  const base = Date.UTC(2026, 0, 5, 9, 0);
  const names: string[] = [];
  const lockHosts: string[] = [];
  for (let e = 0; e < experiments; e++) {
    const kind = KINDS[e % KINDS.length]!;
    const start = new Date(base + e * 5 * 3_600_000);
    const exp = `${kind}_${sessionName(start).replace(/^(\d{4})_(\d\d)_(\d\d)_(\d\d)_(\d\d)$/, '$1$2$3_$4$5')}`;
    names.push(exp);
    const expDir = join(root, 'saved_experiments', exp);
    mkdirSync(join(expDir, 'backup'), { recursive: true });
    writeFileSync(join(expDir, 'yaml_backup.yaml'), snapshot(`example_${kind}`, exp, ['verl', 'trinity', 'debug'][e % 3]!));
    const hosts = o.multiHost && kind === 'werewolves' ? ['gpu-node-0', 'gpu-node-1'] : ['gpu-node-0'];
    const at = (min: number) => new Date(start.getTime() + min * 60_000);
    hosts.forEach((hostName, hi) => {
      const host = join(expDir, sessionName(start), hostName);
      mkdirSync(join(host, 'regular'), { recursive: true });
      writeRolloutLog(join(host, 'rollout', 'rollout.json.log'), {
        entries: steps * 4,
        tasksPerStep: 4,
        tokens,
        seed: (o.seed ?? 0) * 100 + e * 10 + hi,
        start,
      });
      writeFileSync(
        join(host, 'rollout', 'rollout.log'),
        `${logTime(start)} | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - (token view in rollout.json.log)\n`,
      );
      writeFileSync(
        join(host, 'regular', 'regular.log'),
        Array.from(
          { length: steps },
          (_, s) => `${logTime(at(7 * s))} | INFO     | ajet.backbone.trainer_verl:fit:830 - step ${s} done\n`,
        ).join(''),
      );
      for (const mod of MODULES) {
        mkdirSync(join(host, mod), { recursive: true });
        for (const ext of ['.log', '.json.log']) appendFileSync(join(host, mod, mod + ext), '');
      }
      for (let s = 0; s < steps; s += 2) {
        // Rounded to 4 places as AgentJet's evaluation prints them.
        const mean = Math.round(Math.min(1, 0.2 + 0.15 * s + (r() - 0.5) * 0.1) * 10_000) / 10_000;
        const p4 = Math.min(1, mean * 1.3);
        dictLog(
          host,
          'evaluation',
          at(7 * s + 3),
          'gsm8k_test',
          {
            pass_n: 4,
            total_tasks: 64,
            num_all_success_tasks: Math.floor(64 * mean * 0.6),
            'num_pass_n_tasks(pass@4)': Math.floor(64 * p4),
            'TGC@1': mean.toFixed(4),
            'TGC@4': p4.toFixed(4),
            'TGC@4-all-pass': (mean * 0.6).toFixed(4),
            mean_reward: mean.toFixed(4),
          },
          'ajet.backbone.trainer_verl:_validate:1052',
        );
        const dir = join(host, 'trajectory', 'eval', `step_${s}`);
        mkdirSync(dir, { recursive: true });
        const taskId = Math.floor(r() * 0x10000000)
          .toString(16)
          .padStart(7, '0');
        const tag = TAGS[(e + s / 2) % TAGS.length]!;
        writeFileSync(
          join(dir, `${taskId}.json`),
          JSON.stringify(trajectory(taskId, tag, tag === 'success' ? 1 : tag === 'failure' ? 0 : 0.5), null, 2),
        );
      }
      if (e === 1 && hi === 0) {
        dictLog(
          host,
          'exception',
          at(30),
          'Prompt text mismatch, Please report a github issue',
          { expected_prompt_text: '<|im_start|>user ...', current_prompt_text: '<|im_start|>user  ...' },
          'ajet.context_tracker.multiagent_tracking:ensure_retokenization_perfect_match:440',
        );
      }
      if (hi === 0) lockHosts[e] = host;
    });
    for (let s = 2; s <= steps; s += 2)
      mkdirSync(join(root, 'saved_checkpoints', `example_${kind}`, exp, `global_step_${s}`), { recursive: true });
  }
  if (o.runningPid !== undefined && names.length > 0)
    writeFileSync(join(lockHosts[names.length - 1]!, '.logger_lock'), String(o.runningPid));
  return names;
}
