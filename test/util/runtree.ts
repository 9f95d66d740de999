// Builds AgentJet run folders in temp dirs for tests and benchmarks, in beast-logger's on-disk format
// (loguru header line + plain or base64-zlib JSON payload); test/gen has the full generator.
import { mkdirSync, mkdtempSync, writeFileSync, appendFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

export function tempDir(prefix = 'agentjet-runs-'): { path: string; dispose(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export function recordText(payload: object, opts: { when?: Date; compressed?: boolean; source?: string } = {}): string {
  const head = `${stamp(opts.when ?? new Date(2026, 0, 5, 10, 0, 0))} | INFO     | ${opts.source ?? 'ajet.context_tracker.multiagent_tracking:generate_log:556'} - \n`;
  const json = JSON.stringify(payload);
  return head + (opts.compressed ? `base64:${deflateSync(Buffer.from(json)).toString('base64')}` : json) + '\n';
}

export function rolloutRecord(
  step: number,
  reward: number,
  opts: { task?: string; responseLen?: number; when?: Date; compressed?: boolean } = {},
): string {
  const task = opts.task ?? `t${step}x${Math.round(reward * 1000)}`;
  return recordText(
    {
      header: `[${step}] Task ${task} (Reward ${reward.toFixed(3)})`,
      color: '#337711',
      content: '',
      attach: null,
      nested: true,
      nested_json: {
        [`${task}.${reward}.0`]: {
          outcome: String(reward),
          len_prompt_ids: 10,
          len_response_ids: opts.responseLen ?? 20,
          len_input_ids: 30,
          raw_reward: reward.toFixed(3),
          content: { text: ['a'], title: ['N/A'], count: ['1'], color: ['#D98510'] },
        },
      },
    },
    { ...(opts.when ? { when: opts.when } : {}), compressed: opts.compressed ?? true },
  );
}

export function richTable(rows: Record<string, string | number>): string {
  const k = Math.max(...Object.keys(rows).map((x) => x.length)) + 2;
  const v = 20;
  const out = ['╭' + '─'.repeat(k + v + 7) + '╮', `│ ┌${'─'.repeat(k)}┬${'─'.repeat(v)}┐ │`];
  const list = Object.entries(rows);
  list.forEach(([key, val], i) => {
    out.push(`│ │ ${key.padEnd(k - 1)}│ ${String(val).padEnd(v - 1)}│ │`);
    if (i < list.length - 1) out.push(`│ ├${'─'.repeat(k)}┼${'─'.repeat(v)}┤ │`);
  });
  out.push(`│ └${'─'.repeat(k)}┴${'─'.repeat(v)}┘ │`, '╰' + '─'.repeat(k + v + 7) + '╯');
  return `\n${out.join('\n')}\n`;
}

export interface HostSpec {
  host?: string;
  lockPid?: number;
  /** [step, reward] pairs written to rollout.json.log */
  rollout?: [number, number][];
  evaluations?: Record<string, string | number>[];
  exceptions?: string[];
  regular?: string;
  trajectories?: { split: string; step: number; task: string }[];
}

export interface RunSpec {
  name: string;
  session?: string;
  dialect?: 'ajet' | 'astuner';
  project?: string;
  hosts?: HostSpec[];
  snapshot?: string | false;
}

/** Writes one experiment under `root`; returns its path. */
export function writeRun(root: string, spec: RunSpec): string {
  const exp = join(root, spec.name);
  mkdirSync(exp, { recursive: true });
  if (spec.snapshot !== false) {
    writeFileSync(
      join(exp, 'yaml_backup.yaml'),
      spec.snapshot ??
        `${spec.dialect ?? 'ajet'}:\n  project_name: ${spec.project ?? 'proj'}\n  experiment_name: ${spec.name}\n  trainer_common:\n    total_epochs: 1\n`,
    );
  }
  const session = join(exp, spec.session ?? '2026_01_05_10_00');
  for (const h of spec.hosts ?? [{}]) writeHost(join(session, h.host ?? 'gpu-node-0'), h);
  return exp;
}

function writeHost(dir: string, h: HostSpec): void {
  for (const mod of ['rollout', 'evaluation', 'exception', 'regular']) mkdirSync(join(dir, mod), { recursive: true });
  writeFileSync(
    join(dir, 'rollout', 'rollout.json.log'),
    (h.rollout ?? []).map(([s, r], i) => rolloutRecord(s, r, { task: `task${s}_${i}` })).join(''),
  );
  writeFileSync(join(dir, 'rollout', 'rollout.log'), '');
  writeFileSync(
    join(dir, 'evaluation', 'evaluation.json.log'),
    (h.evaluations ?? [])
      .map((rows, i) =>
        recordText(
          { header: 'gsm8k_test', color: '#4422cc', content: richTable(rows), attach: null },
          { when: new Date(2026, 0, 5, 10, i + 1), source: 'ajet.backbone.trainer_verl:_validate:1052' },
        ),
      )
      .join(''),
  );
  writeFileSync(
    join(dir, 'exception', 'exception.json.log'),
    (h.exceptions ?? [])
      .map((t, i) =>
        recordText(
          { header: t, color: '#4422cc', content: richTable({ detail: 'something broke' }), attach: null },
          { when: new Date(2026, 0, 5, 11, i) },
        ),
      )
      .join(''),
  );
  writeFileSync(
    join(dir, 'regular', 'regular.log'),
    h.regular ?? '2026-01-05 10:00:00.000 | INFO     | ajet.backbone.trainer_verl:fit:830 - step 0 done\n',
  );
  if (h.lockPid !== undefined) writeFileSync(join(dir, '.logger_lock'), String(h.lockPid));
  for (const t of h.trajectories ?? []) {
    const d = join(dir, 'trajectory', t.split, `step_${t.step}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, `${t.task}.json`),
      JSON.stringify({
        task_id: t.task,
        task_tag: 'success',
        reward_structure: { raw_reward: 1 },
        traj: [[{ role: 'user', content: 'hi' }]],
      }),
    );
  }
}

export function appendRollout(hostDir: string, text: string): void {
  appendFileSync(join(hostDir, 'rollout', 'rollout.json.log'), text);
}
