// Pieces shared by every project template: the Hydra tail of the config, the launch
// configuration, the README skeleton. Pure: strings in, strings out.

/** The Hydra lines AgentJet's tutorial configs end with (the launcher composes the defaults). */
export const HYDRA_TAIL = `
# ------------------ do not modify ------------------
hydra:
  searchpath:
    - file://ajet/default_config
    - file://ajet/default_config/verl
    - file://ajet/default_config/trinity

# ------------------ do not modify ------------------
defaults:
  - verl_default
  - trinity_default
  - ajet_default
  - _self_
`;

/** `.vscode/launch.json` with one AgentJet debug configuration (F5 debugs a rollout). */
export function launchJson(name: string): string {
  return (
    JSON.stringify(
      {
        version: '0.2.0',
        configurations: [
          {
            type: 'agentjet',
            request: 'launch',
            name: `AgentJet: debug rollout (${name})`,
            config: '${workspaceFolder}/config.yaml',
            backbone: 'debug',
            cwd: '${workspaceFolder}',
          },
        ],
      },
      null,
      2,
    ) + '\n'
  );
}

export function jsonl(rows: readonly object[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** The "next steps" part every README ends with. */
export function nextSteps(pkg: string, workflowClass: string, judgeClass: string): string {
  return `## Next steps

1. **Pick the interpreter** that has AgentJet installed (\`pip install -e .\` in an AgentJet checkout), then run
   **AgentJet: Check Environment** (or \`agentjet doctor\`) and follow its fixes.
2. **Debug one rollout**: open \`${pkg}/workflow.py\`, set a breakpoint in \`${workflowClass}.execute\`,
   press F5 (configuration "AgentJet: debug rollout"). The debug backbone runs
   \`debug.debug_first_n_tasks\` tasks in one process, so breakpoints in your workflow and in
   \`${pkg}/judge.py\` (\`${judgeClass}.compute_reward\`) stop.
3. **Read the token log**: when the rollout ends, the run shows up in the AgentJet **Runs** view;
   open its token log to see every token the model produced and the reward it earned.
4. **Use your data**: replace \`data/train.jsonl\` and \`data/val.jsonl\` (one JSON object per line with
   \`task_id\`, \`main_query\` and \`metadata\`; the judge reads \`metadata\`).
5. **Train**: set \`ajet.model.path\` to the model to fine-tune and \`trainer_common.n_gpus_per_node\`,
   then run **AgentJet: Train (verl)** (or \`ajet --conf config.yaml --backbone verl\`).

Useful commands: \`agentjet lint config.yaml\` checks the config; \`agentjet runs\` lists your runs.
`;
}

/** Tasks as AgentJet's JSONL task reader takes them: ids `<prefix>-000`, `-001`, …, each query with its metadata. */
export function tasks(prefix: string, rows: readonly [query: string, metadata: Record<string, string>][]): object[] {
  return rows.map(([main_query, metadata], i) => ({ task_id: `${prefix}-${String(i).padStart(3, '0')}`, main_query, metadata }));
}

/** What differs between templates; `project()` assembles the files every template writes. */
export interface ProjectParts {
  projectName: string;
  pkg: string;
  config: string;
  /** The package's `__init__.py` docstring line. */
  doc: string;
  /** The package's modules, by file name (workflow.py, judge.py, ...). */
  modules: Record<string, string>;
  train: readonly object[];
  val: readonly object[];
  readme: string;
}

export function project(p: ProjectParts): Record<string, string> {
  const files: Record<string, string> = { 'config.yaml': p.config, [`${p.pkg}/__init__.py`]: `"""${p.doc}"""\n` };
  for (const [name, text] of Object.entries(p.modules)) files[`${p.pkg}/${name}`] = text;
  files['data/train.jsonl'] = jsonl(p.train);
  files['data/val.jsonl'] = jsonl(p.val);
  files['.vscode/launch.json'] = launchJson(p.projectName);
  files['README.md'] = p.readme;
  return files;
}
