// Writes the demo workspace's run history (demo/saved_experiments, demo/launcher_record,
// demo/saved_checkpoints) in AgentJet's on-disk format: yaml_backup.yaml, session folders per
// host, beast-logger .json.log records (base64 + zlib payloads), text logs, trajectories.
// Deterministic; run `npx tsx scripts/gen-demo.ts` after changing it and commit the output.
import { mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { deflateSync } from 'node:zlib';
import { logTime, prng, sessionName, shade } from '../test/gen/rollout';

const demo = join(__dirname, '..', 'demo');
const TRAINED = '#09ABCF';
const CONTEXT = '#D98510';

const rng = prng;
const stamp = logTime;
const folderStamp = sessionName;
const addMin = (d: Date, m: number) => new Date(d.getTime() + m * 60_000);

/** AgentJet's viewer colour of a token: the base colour, its saturation scaled by the logprob (test/gen/rollout.ts). */
function colour(base: string, logprob: number | undefined): string {
  return logprob === undefined ? base.toLowerCase() : shade(base, logprob);
}

function tokenize(text: string): string[] {
  // Special tokens whole, newlines alone, a leading space glued to the word (like BPE).
  return text.match(/<\|[a-z_]+\|>|<\/?[a-z_]+>|\n|[ \t]*[A-Za-z]+|[ \t]*\d|[ \t]*[^\sA-Za-z\d]|[ \t]+/g) ?? [];
}
function tokenId(tok: string): number {
  let h = 2166136261;
  for (let i = 0; i < tok.length; i++) h = Math.imul(h ^ tok.charCodeAt(i), 16777619);
  return (h >>> 0) % 151000;
}

interface Segment {
  text: string;
  trained: boolean;
}

function timeline(rand: () => number, segments: Segment[]) {
  const content = { text: [] as string[], title: [] as string[], count: [] as string[], color: [] as string[] };
  let prompt = 0,
    response = 0,
    seenTrained = false;
  for (const seg of segments) {
    for (const tok of tokenize(seg.text)) {
      const lp = seg.trained ? -Math.pow(rand(), 3) * 8 : undefined;
      content.text.push(tok);
      content.title.push(lp === undefined ? 'N/A' : lp.toFixed(4));
      content.count.push(String(tokenId(tok)));
      content.color.push(colour(seg.trained ? TRAINED : CONTEXT, lp));
      if (seg.trained) seenTrained = true;
      if (seenTrained) response++;
      else prompt++;
    }
  }
  return { content, prompt, response };
}

/** The demo's own dataset: each rollout is one of its tasks, so "Debug this task" on a demo rollout finds it. */
const DATASET = readFileSync(join(demo, 'data', 'train.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { task_id: string; main_query: string; metadata: { answer: string } });

function rolloutRecord(rand: () => number, step: number, taskNo: number, skill: number) {
  const task = DATASET[taskNo % DATASET.length]!;
  const p = { q: task.main_query, a: task.metadata.answer };
  const taskId = task.task_id;
  const right = rand() < skill;
  const answer = right ? p.a : String(Number(p.a) + 1 + Math.floor(rand() * 9));
  const useTool = rand() < 0.5;
  const segments: Segment[] = [
    {
      text: `<|im_start|>system\nSolve the problem. Put the final answer in \\boxed{}.<|im_end|>\n<|im_start|>user\n${p.q}<|im_end|>\n<|im_start|>assistant\n`,
      trained: false,
    },
  ];
  if (useTool) {
    segments.push({
      text: `<tool_call>\n{"name": "execute_python_code", "arguments": {"code": "print(${p.q.replace(/[^\d+*/ -]/g, '').trim() || p.a})"}}\n</tool_call><|im_end|>`,
      trained: true,
    });
    segments.push({ text: `\n<|im_start|>tool\n${answer}\n<|im_end|>\n<|im_start|>assistant\n`, trained: false });
  }
  segments.push({
    text: `Let me work it out step by step. The result is ${answer}, so the answer is \\boxed{${answer}}.<|im_end|>`,
    trained: true,
  });
  const reward = right ? 1 : 0;
  const t = timeline(rand, segments);
  const advantage = (reward - skill) / 0.5;
  const outcome = reward.toFixed(1);
  const item = {
    item_id: 'item',
    outcome,
    len_prompt_ids: t.prompt,
    len_response_ids: t.response,
    len_input_ids: t.prompt + t.response,
    raw_reward: reward.toFixed(3),
    step_reward: reward.toFixed(3),
    step_advantage: advantage.toFixed(3),
    step_advantage_simple: advantage.toFixed(3),
    content: t.content,
  };
  return {
    taskId,
    reward,
    tokens: t.content.text.length,
    payload: {
      header: `[${step}] Task ${taskId} (Reward ${reward.toFixed(3)})`,
      color: '#337711',
      content: `Task ${taskId}, step ${step}`,
      attach: null,
      nested: true,
      nested_json: { [`${taskId}.${outcome}.0`]: item },
    },
    trajectory: {
      task_id: taskId,
      task_tag: right ? 'success' : 'failure',
      reward_structure: { raw_reward: reward, step_reward_arr: [reward], success_rate: reward },
      traj: [
        [
          { role: 'system', content: 'Solve the problem. Put the final answer in \\boxed{}.' },
          { role: 'user', content: p.q },
          ...(useTool
            ? [
                {
                  role: 'assistant',
                  content: '',
                  tool_calls: [
                    {
                      id: 'call_1',
                      type: 'function',
                      function: { name: 'execute_python_code', arguments: JSON.stringify({ code: `print(${answer})` }) },
                    },
                  ],
                },
                { role: 'tool', tool_call_id: 'call_1', content: answer },
              ]
            : []),
          { role: 'assistant', content: `The result is ${answer}, so the answer is \\boxed{${answer}}.` },
        ],
      ],
    },
  };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * One beast-logger record of module `mod` in a session: the payload in `<mod>/<mod>.json.log`
 * (zlib + base64 unless `plain`) and its text line (`level`, `text`) in `<mod>/<mod>.log`.
 */
function logRecord(
  session: string,
  mod: string,
  r: { when: Date; source: string; payload: unknown; text: string; level?: 'INFO' | 'ERROR'; plain?: boolean },
): void {
  const body = r.plain ? JSON.stringify(r.payload) : `base64:${deflateSync(Buffer.from(JSON.stringify(r.payload))).toString('base64')}`;
  mkdirSync(join(session, mod), { recursive: true });
  appendFileSync(join(session, mod, `${mod}.json.log`), `${stamp(r.when)} | INFO     | ${r.source} - \n${body}\n`);
  appendFileSync(join(session, mod, `${mod}.log`), `${stamp(r.when)} | ${(r.level ?? 'INFO').padEnd(8)} | ${r.source} - ${r.text}\n`);
}

function table(rows: Record<string, string | number>): string {
  const k = Math.max(...Object.keys(rows).map((x) => x.length)) + 2,
    v = 24;
  const out = [`╭${'─'.repeat(k + v + 7)}╮`, `│ ┌${'─'.repeat(k)}┬${'─'.repeat(v)}┐ │`];
  Object.entries(rows).forEach(([key, val], i, all) => {
    out.push(`│ │ ${key.padEnd(k - 1)}│ ${String(val).padEnd(v - 1)}│ │`);
    if (i < all.length - 1) out.push(`│ ├${'─'.repeat(k)}┼${'─'.repeat(v)}┤ │`);
  });
  out.push(`│ └${'─'.repeat(k)}┴${'─'.repeat(v)}┘ │`, `╰${'─'.repeat(k + v + 7)}╯`);
  return `\n${out.join('\n')}\n`;
}

function snapshot(root: string, exp: string, backbone: string, dialect: 'ajet' | 'astuner', totalSteps?: number): string {
  // The last step the settings call for: what lets the Runs view call a run without a lock finished.
  // verl's own key, at the top level of the composed config the launcher backs up.
  const total = totalSteps === undefined ? '' : `trainer:\n  total_training_steps: ${totalSteps}\n`;
  if (dialect === 'astuner') {
    return `astuner:\n  project_name: math_demo\n  experiment_name: ${exp}\n  backbone: ${backbone}\n  model:\n    path: Qwen/Qwen2.5-1.5B-Instruct\n  task_reader:\n    type: dataset_file\n    dataset_file:\n      training:\n        file_path: data/train.jsonl\n      validation:\n        file_path: data/val.jsonl\n  task_judge:\n    judge_type: customized_protocal\n    judge_protocol: math_demo.judge->MathAnswerJudge\n  rollout:\n    agentscope_learn_protocol: math_demo.workflow->MathWorkflow\n    num_repeat: 4\n  debug:\n    debug_tensor_parallel_size: 1\n  trainer_common:\n    n_gpus_per_node: 1\n    total_epochs: 1\n${total}`;
  }
  return `ajet:\n  project_name: math_demo\n  experiment_name: ${exp}\n  experiment_dir: ${root}/${exp}\n  backbone: ${backbone}\n  model:\n    path: Qwen/Qwen2.5-1.5B-Instruct\n  task_reader:\n    type: jsonl_dataset_file\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n      validation:\n        file_path: data/val.jsonl\n  task_judge:\n    judge_protocol: math_demo.judge->MathAnswerJudge\n  rollout:\n    user_workflow: math_demo.workflow->MathWorkflow\n    temperature: 0.9\n    num_repeat: 4\n    max_model_len: 8000\n  data:\n    train_batch_size: 8\n    max_prompt_length: 2000\n    max_response_length: 4000\n  debug:\n    debug_tensor_parallel_size: 1\n  trainer_common:\n    n_gpus_per_node: 1\n    nnodes: 1\n    save_freq: 2\n    test_freq: 2\n    total_epochs: 2\n    logger: console\n${total}`;
}

interface RunSpec {
  exp: string;
  start: Date;
  steps: number;
  hosts: string[];
  backbone: string;
  fail?: boolean;
  dialect?: 'ajet' | 'astuner';
  seed: number;
  totalSteps?: number;
}

function writeRun(spec: RunSpec): void {
  const dialect = spec.dialect ?? 'ajet';
  const rootName = dialect === 'ajet' ? 'saved_experiments' : 'launcher_record';
  const expDir = join(demo, rootName, spec.exp);
  write(join(expDir, 'yaml_backup.yaml'), snapshot(rootName, spec.exp, spec.backbone, dialect, spec.totalSteps));
  write(join(expDir, 'backup', 'math_demo', 'README.txt'), 'copies of the BACK_TARGETS folders at launch\n');
  const rand = rng(spec.seed);
  for (const [h, host] of spec.hosts.entries()) {
    const session = join(expDir, folderStamp(spec.start), host);
    const regular = [
      `${stamp(spec.start)} | INFO     | ajet.launcher:main:212 - backbone=${spec.backbone} conf=math_agent.yaml host=${host}`,
    ];
    for (const mod of ['token_clip', 'bad_case', 'benchmark', 'exception']) {
      write(join(session, mod, `${mod}.log`), '');
      write(join(session, mod, `${mod}.json.log`), '');
    }
    write(join(session, 'rollout', 'rollout.log'), '');
    write(join(session, 'rollout', 'rollout.json.log'), '');
    for (let step = 0; step < spec.steps; step++) {
      const t0 = addMin(spec.start, step * 6 + 1);
      const skill = Math.min(0.9, 0.25 + 0.1 * step + 0.05 * h);
      let sum = 0,
        n = 0;
      for (let task = 0; task < 3; task++) {
        for (let rep = 0; rep < 4; rep++) {
          // A batch of three tasks per host and step, taken in turn from the dataset (as a sampler would).
          const r = rolloutRecord(rand, step, (step * spec.hosts.length + h) * 3 + task, skill);
          const when = new Date(t0.getTime() + (task * 4 + rep) * 7_000);
          logRecord(session, 'rollout', {
            when,
            source: 'ajet.context_tracker.multiagent_tracking:generate_log:556',
            payload: r.payload,
            text: `${r.payload.header} tokens=${r.tokens}`,
          });
          if (rep === 0 && h === 0)
            write(join(session, 'trajectory', 'train', `step_${step}`, `${r.taskId}.json`), JSON.stringify(r.trajectory, null, 2) + '\n');
          sum += r.reward;
          n++;
        }
      }
      regular.push(
        `${stamp(addMin(t0, 5))} | INFO     | ajet.backbone.trainer_${spec.backbone === 'trinity' ? 'trinity' : 'verl'}:fit:830 - step ${step} done, mean reward ${(sum / n).toFixed(3)}`,
      );
      if (step % 2 === 1 && h === 0) {
        const mean = Math.min(1, 0.2 + 0.12 * step);
        const when = addMin(t0, 5);
        const rows = {
          pass_n: 4,
          total_tasks: 4,
          num_all_success_tasks: Math.round(4 * mean * 0.6),
          'num_pass_n_tasks(pass@4)': Math.round(4 * Math.min(1, mean * 1.3)),
          'TGC@1': mean.toFixed(4),
          'TGC@4': Math.min(1, mean * 1.3).toFixed(4),
          mean_reward: mean.toFixed(4),
        };
        logRecord(session, 'evaluation', {
          when,
          source: 'ajet.backbone.trainer_verl:_validate:1052',
          payload: { header: 'math_demo_val', color: '#4422cc', content: table(rows), attach: null },
          text: table(rows),
          plain: true,
        });
        const vt = rolloutRecord(rand, step, 9, skill);
        write(join(session, 'trajectory', 'eval', `step_${step}`, `${vt.taskId}.json`), JSON.stringify(vt.trajectory, null, 2) + '\n');
      }
    }
    if (spec.fail) {
      const when = addMin(spec.start, spec.steps * 6 + 1);
      const rows = {
        expected_prompt_text: '<|im_start|>user\\nWhat is 37 * 12 + 37?',
        current_prompt_text: '<|im_start|>user\\n What is 37 * 12 + 37?',
      };
      logRecord(session, 'exception', {
        when,
        source: 'ajet.context_tracker.multiagent_tracking:ensure_retokenization_perfect_match:440',
        payload: { header: 'Prompt text mismatch, Please report a github issue', color: '#cc2222', content: table(rows), attach: null },
        text: table(rows),
        level: 'ERROR',
        plain: true,
      });
      regular.push(
        `${stamp(when)} | ERROR    | ajet.launcher:main:260 - training crashed`,
        'Traceback (most recent call last):',
        '  File "/opt/ajet/ajet/launcher.py", line 258, in main',
        '    trainer.fit()',
        '  File "/opt/ajet/ajet/backbone/trainer_verl.py", line 842, in fit',
        '    batch = self.rollout(step)',
        '  File "/workspace/math_demo/workflow.py", line 16, in execute',
        '    answer = reply.choices[0].message.content or ""',
        'IndexError: list index out of range',
      );
    } else {
      regular.push(`${stamp(addMin(spec.start, spec.steps * 6 + 2))} | INFO     | ajet.launcher:main:270 - training finished`);
    }
    write(join(session, 'regular', 'regular.log'), regular.join('\n') + '\n');
  }
  if (!spec.fail && dialect === 'ajet') {
    for (let s = 2; s <= spec.steps; s += 2)
      write(
        join(demo, 'saved_checkpoints', 'math_demo', spec.exp, `global_step_${s}`, 'README.txt'),
        'checkpoint placeholder: the real one holds model weights\n',
      );
  }
}

for (const d of ['saved_experiments', 'launcher_record', 'saved_checkpoints']) rmSync(join(demo, d), { recursive: true, force: true });
writeRun({
  exp: 'math_demo_20260103_1010',
  start: new Date(Date.UTC(2026, 0, 3, 10, 10)),
  steps: 6,
  hosts: ['gpu-node-0'],
  backbone: 'verl',
  seed: 1,
  totalSteps: 6,
});
writeRun({
  exp: 'math_demo_lr_sweep_20260104_1530',
  start: new Date(Date.UTC(2026, 0, 4, 15, 30)),
  steps: 2,
  hosts: ['gpu-node-0'],
  backbone: 'verl',
  fail: true,
  seed: 2,
});
writeRun({
  exp: 'math_demo_2node_20260105_0900',
  start: new Date(Date.UTC(2026, 0, 5, 9, 0)),
  steps: 4,
  hosts: ['gpu-node-0', 'gpu-node-1'],
  backbone: 'trinity',
  seed: 3,
  totalSteps: 4,
});
writeRun({
  exp: 'astuner_math_20251220_1200',
  start: new Date(Date.UTC(2025, 11, 20, 12, 0)),
  steps: 2,
  hosts: ['dev-box'],
  backbone: 'debug',
  dialect: 'astuner',
  seed: 4,
  totalSteps: 1,
});
// A companion the debug backbone left behind; its process group no longer exists (ids above
// Linux's pid_max can never be live), so it shows as dead.
write(join(demo, 'saved_experiments', 'companion_logs', 'companion', 'external_vllm_server.5f2c9a1.gpu-node-0.pgid'), '4999999\n');
write(
  join(demo, 'saved_experiments', 'companion_logs', 'companion', 'external_vllm_server.5f2c9a1.gpu-node-0.log'),
  'INFO:     Started server process [4999999]\nINFO:     Uvicorn running on http://127.0.0.1:18000 (Press CTRL+C to quit)\n',
);
console.log(`demo runs written under ${demo}`);
