// One call of every agent tool against a copy of the fixture workspace (with `exp.yaml` written
// beside it): the trust and hints tests call each tool once, and a new tool without an entry fails them.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fixtures } from '../gen';

export function toolCalls(ws: string, swarmArgs: Record<string, unknown> = {}): Record<string, Record<string, unknown>> {
  const experiment = join('saved_experiments', readdirSync(join(ws, 'saved_experiments')).sort()[0]!);
  const rollout = relative(fixtures().workspace, fixtures().rollout);
  return {
    agentjet_lint: { path: 'exp.yaml' },
    agentjet_explain_key: { key: 'rollout.max_env_worker', path: 'exp.yaml' },
    agentjet_runs: {},
    agentjet_run_summary: { path: experiment },
    agentjet_metrics: { path: experiment },
    agentjet_compare_runs: { paths: [experiment, experiment] },
    agentjet_log_stats: { path: rollout },
    agentjet_log_search: { path: rollout, query: 'a' },
    agentjet_log_record: { path: rollout, index: 0 },
    agentjet_swarm_status: swarmArgs,
    agentjet_doctor: {},
  };
}
