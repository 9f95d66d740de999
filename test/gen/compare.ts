// Two (or more) AgentJet runs to compare: each an experiment folder with its config snapshot and
// verl's TensorBoard folder (tensorboard_log/<project>/<experiment>) under the launch's folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { frameRecord } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';

export interface CompareRunSpec {
  name: string;
  lr: number;
  steps: number;
  /** The reward at step s. */
  reward: (s: number) => number;
  loss?: (s: number) => number;
  /** Logged every `valEvery` steps as val-core/acc. */
  valEvery?: number;
  extraConfig?: string;
}

/** Writes the runs under `ws` (the launch folder); returns their experiment folders. */
export function writeCompareRuns(ws: string, specs: readonly CompareRunSpec[]): string[] {
  return specs.map((r) => {
    const exp = join(ws, 'saved_experiments', r.name);
    mkdirSync(exp, { recursive: true });
    writeFileSync(
      join(exp, 'yaml_backup.yaml'),
      [
        'ajet:',
        '  project_name: proj',
        `  experiment_name: ${r.name}`,
        '  trainer_common:',
        '    logger:',
        '    - console',
        '    - tensorboard',
        '    optim:',
        `      lr: ${r.lr}`,
        '  rollout:',
        '    n_vllm_engine: 2',
        r.extraConfig ?? '',
      ].join('\n'),
    );
    const tb = join(ws, 'tensorboard_log', 'proj', r.name);
    mkdirSync(tb, { recursive: true });
    const recs = [frameRecord(encodeScalarEvent({ step: 0, wallTime: 1e9, fileVersion: 'brain.Event:2' }))];
    for (let s = 1; s <= r.steps; s++) {
      const values: [string, number][] = [['critic/rewards/mean', r.reward(s)]];
      if (r.loss) values.push(['actor/pg_loss', r.loss(s)]);
      if (r.valEvery && s % r.valEvery === 0) values.push(['val-core/acc', r.reward(s) / 2]);
      recs.push(frameRecord(encodeScalarEvent({ step: s, wallTime: 1e9 + s, values })));
    }
    writeFileSync(join(tb, 'events.out.tfevents.1.host.1.0'), Buffer.concat(recs));
    return exp;
  });
}
