// Where runs land and what they are called, from the real experiment preparation
// (prepare_experiment_config) and logger registration (init_parallel_rollout_logger) of AgentJet,
// ASTuner Dec 2025 and ASTuner Nov 2025; checked against core/agentjet's naming and path rules and
// against what core/runs and `dist/cli.js runs` report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { derivedNamePattern, experimentName, launchPaths, parseLauncherLine } from '../../core/agentjet';
import { withUpstream, type UpstreamName } from '../util/upstream';
import { collectRuns } from '../../cli/runs';
import { cliRuns, coreRuns, runDriver, summary, workspace, type DriverArgs } from './runs-harness';

const HOST = hostname();
const needs = (tree: UpstreamName, fn: () => Promise<void>) =>
  withUpstream('beast-logger-6ba1ca5', (_dir, t) => withUpstream(tree, () => fn())(t));

function announced(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const a = parseLauncherLine(line);
    if (a) out[a.kind] = a.value;
  }
  return out;
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

async function prepared(version: DriverArgs['version'], section: string, ws: string, extra: Partial<DriverArgs> = {}) {
  const config = join(ws, 'configs', 'math_agent.yaml');
  writeFileSync(config, `${section}:\n  project_name: conformance\n  experiment_name: read_yaml_name\n`);
  const run = await runDriver(ws, { version, config, steps: 2, end: 'clean', ...extra });
  assert.equal(run.code, 0, run.output);
  const said = announced(run.output);
  assert.ok(said.name, `the launcher announced the experiment name:\n${run.output}`);
  return { run, said, config, name: said.name! };
}

/** The CLI and the core list the same, one run: `name`, ended at step 2, with these hosts. */
async function oneEndedRun(root: string, name: string, layout: string, hosts: string[]): Promise<ReturnType<typeof cliRuns>> {
  const cli = cliRuns(root);
  assert.deepEqual(summary(cli), summary(await coreRuns(root)), 'the CLI and the core agree');
  assert.deepEqual(
    cli.map((r) => [r.experiment, r.layout, r.hosts, r.status, r.latestStep]),
    [[name, layout, hosts, 'ended', 2]],
  );
  return cli;
}

test(
  'read_yaml_name (AgentJet): the folder is <config stem>_<YYYYmmdd_HHMM>, as core/agentjet predicts and the launcher announces',
  needs('agentjet-d20cce0', async () => {
    const ws = workspace();
    try {
      const { said, config, name, run } = await prepared('agentjet', 'ajet', ws.path);
      assert.match(name, derivedNamePattern(config, 'agentjet'));
      assert.ok(
        [
          experimentName(config, 'read_yaml_name', 'agentjet', new Date(run.startMs)),
          experimentName(config, 'read_yaml_name', 'agentjet', new Date(run.endMs)),
        ].includes(name),
      );
      const p = launchPaths({ cwd: ws.path, version: 'agentjet', experiment: name });
      assert.equal(said.yaml, p.yamlBackup);
      assert.equal(said.backup, p.backupDir);
      const session = readdirSync(p.logExperiment).find((n) => /^\d{4}_\d\d_\d\d_\d\d_\d\d$/.test(n))!;
      assert.ok(isDir(join(p.logExperiment, session, HOST, 'rollout')));
      await oneEndedRun(ws.path, name, 'agentjet', [HOST]);
    } finally {
      ws.dispose();
    }
  }),
);

test(
  '--exp-dir: only yaml_backup.yaml and backup/ follow it; logs stay in ./saved_experiments; the Runs list shows one run, with its snapshot',
  needs('agentjet-d20cce0', async () => {
    const ws = workspace();
    try {
      const { said, name } = await prepared('agentjet', 'ajet', ws.path, { expDir: 'custom_runs' });
      const p = launchPaths({ cwd: ws.path, version: 'agentjet', experiment: name, args: ['--exp-dir', 'custom_runs'] });
      assert.equal(said.yaml, p.yamlBackup);
      assert.ok(p.yamlBackup.startsWith(join(ws.path, 'custom_runs')));
      assert.ok(existsSync(p.yamlBackup) && isDir(p.backupDir));
      assert.ok(isDir(p.logExperiment), 'logs under the working directory whatever --exp-dir says');
      assert.ok(p.logExperiment.startsWith(join(ws.path, 'saved_experiments')));
      assert.ok(
        !existsSync(join(ws.path, 'custom_runs', name)) || readdirSync(join(ws.path, 'custom_runs', name)).every((n) => !/^\d{4}_/.test(n)),
        'no session under --exp-dir',
      );
      // The user points the extension at custom_runs too (agentjet.experimentRoots or a launch config's --exp-dir).
      const rows = cliRuns(join(ws.path, 'custom_runs'));
      assert.equal(rows.length, 1, 'custom_runs alone holds just the snapshot');
      const both = cliRuns(ws.path);
      assert.equal(both.length, 1);
      const r = await collectRuns([ws.path, join(ws.path, 'custom_runs')]);
      assert.equal(r.rows.length, 1, 'one run, not two half-entries');
      assert.equal(r.infos[0]!.entry.snapshot, p.yamlBackup);
      assert.equal(r.rows[0]!.path, p.logExperiment);
    } finally {
      ws.dispose();
    }
  }),
);

test(
  'read_yaml_name (AgentJet 0.0.4): the folder is <config stem>_<YYYYmmdd_HHMMSS_mmm>, as core/agentjet predicts and the launcher announces',
  needs('agentjet-c68c154', async () => {
    const ws = workspace();
    try {
      const { said, config, name, run } = await prepared('agentjet-0.0.4', 'ajet', ws.path);
      assert.match(name, derivedNamePattern(config, 'agentjet-0.0.4'));
      assert.doesNotMatch(name, derivedNamePattern(config, 'agentjet'), "not January's minute stamp");
      // The stamp is the launcher's clock between our start and end, to the millisecond.
      const at = /_(\d{4})(\d\d)(\d\d)_(\d\d)(\d\d)(\d\d)_(\d{3})$/.exec(name)!.slice(1).map(Number);
      const ms = new Date(at[0]!, at[1]! - 1, at[2]!, at[3]!, at[4]!, at[5]!, at[6]!).getTime();
      assert.ok(ms >= run.startMs - 1 && ms <= run.endMs, `${name} within the run`);
      assert.equal(experimentName(config, 'read_yaml_name', 'agentjet-0.0.4', new Date(ms)), name);
      const p = launchPaths({ cwd: ws.path, version: 'agentjet-0.0.4', experiment: name });
      assert.equal(said.yaml, p.yamlBackup);
      assert.equal(said.backup, p.backupDir);
      const session = readdirSync(p.logExperiment).find((n) => /^\d{4}_\d\d_\d\d_\d\d_\d\d$/.test(n))!;
      assert.ok(isDir(join(p.logExperiment, session, HOST, 'rollout')));
      await oneEndedRun(ws.path, name, 'agentjet-0.0.4', [HOST]);
    } finally {
      ws.dispose();
    }
  }),
);

test(
  '--exp-dir (AgentJet 0.0.4): the logs follow it with the snapshot (init_parallel_rollout_logger(experiment_dir)); nothing under ./saved_experiments; one run',
  needs('agentjet-c68c154', async () => {
    const ws = workspace();
    try {
      const { said, name } = await prepared('agentjet-0.0.4', 'ajet', ws.path, { expDir: 'custom_runs' });
      const p = launchPaths({ cwd: ws.path, version: 'agentjet-0.0.4', experiment: name, args: ['--exp-dir', 'custom_runs'] });
      assert.equal(said.yaml, p.yamlBackup);
      assert.equal(p.logExperiment, p.backupExperiment, 'one folder');
      assert.ok(p.logExperiment.startsWith(join(ws.path, 'custom_runs')));
      const session = readdirSync(p.logExperiment).find((n) => /^\d{4}_\d\d_\d\d_\d\d_\d\d$/.test(n));
      assert.ok(session && isDir(join(p.logExperiment, session, HOST, 'rollout')), 'the session is under --exp-dir');
      assert.ok(!existsSync(join(ws.path, 'saved_experiments', name)), 'nothing of the run under ./saved_experiments');
      const rows = cliRuns(join(ws.path, 'custom_runs'));
      assert.deepEqual(
        rows.map((r) => [r.experiment, r.path, r.status, r.latestStep]),
        [[name, p.logExperiment, 'ended', 2]],
      );
      const r = await collectRuns([ws.path, join(ws.path, 'custom_runs')]);
      assert.equal(r.rows.length, 1);
      assert.equal(r.infos[0]!.entry.snapshot, p.yamlBackup);
    } finally {
      ws.dispose();
    }
  }),
);

test(
  'ASTuner December 2025 (f9fab4f): saved_experiments/<stem>_<stamp>/<session>/<host>',
  needs('astuner-f9fab4f', async () => {
    const ws = workspace();
    try {
      const { name, config } = await prepared('astuner-2025-12', 'astuner', ws.path);
      assert.match(name, derivedNamePattern(config, 'astuner-2025-12'));
      const p = launchPaths({ cwd: ws.path, version: 'astuner-2025-12', experiment: name });
      assert.ok(existsSync(p.yamlBackup));
      await oneEndedRun(ws.path, name, 'astuner-2025-12', [HOST]);
    } finally {
      ws.dispose();
    }
  }),
);

test(
  'ASTuner November 2025 (61e9359): launcher_record/<stem>/<session>/ with no host folder reads as one run on one host, not hosts named "regular", "rollout"',
  needs('astuner-61e9359', async () => {
    const ws = workspace();
    try {
      const { name, config } = await prepared('astuner-2025-11', 'astuner', ws.path);
      assert.equal(name, 'math_agent', 'no timestamp in this generation');
      assert.match(name, derivedNamePattern(config, 'astuner-2025-11'));
      const p = launchPaths({ cwd: ws.path, version: 'astuner-2025-11', experiment: name });
      assert.ok(existsSync(p.yamlBackup));
      const session = readdirSync(p.logExperiment).find((n) => /^\d{4}_/.test(n))!;
      assert.ok(isDir(join(p.logExperiment, session, 'rollout')), 'modules directly in the session folder');
      const cli = await oneEndedRun(ws.path, name, 'astuner-2025-11', []);
      assert.deepEqual(
        cli[0]!.latestSession!.hosts.map((h) => h.name),
        ['(session)'],
      );
    } finally {
      ws.dispose();
    }
  }),
);
