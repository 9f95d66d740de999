// A workspace that runs the REAL AgentJet launcher (upstream agentjet-d20cce0) with the tests'
// Python: the working directory holds `ajet/` (links into the upstream tree), the user's config
// and workflow; PYTHONPATH puts
// test/conformance/stubs/ first, then beast-logger and Debian's OmegaConf. See stubs/README.md.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findUpstream, type UpstreamName } from '../util/upstream';
import { repoRoot } from '../util/paths';
import { ensureTestPython } from '../harness/python';
import { freePort } from '../util/debugWorkspace';
import { companionsOf, stopCompanions } from '../../core/launch/companions';

export const stubsDir = join(repoRoot, 'test', 'conformance', 'stubs');
/** Debian's python3-omegaconf (and its python3-antlr4): pip has no antlr4 4.9 here. */
const DEBIAN_PACKAGES = ['omegaconf', 'antlr4'];
const DEBIAN_DIST = '/usr/lib/python3/dist-packages';

/** Why the real launcher cannot run here, or undefined. */
export function realAgentJetMissing(): string | undefined {
  const missing = DEBIAN_PACKAGES.filter((p) => !existsSync(join(DEBIAN_DIST, p)));
  if (missing.length)
    return `Debian's ${missing.join(', ')} missing: apt-get install python3-omegaconf (see test/conformance/stubs/README.md)`;
  const py = ensureTestPython();
  if (py.kind !== 'venv') return `the tests' Python venv could not be made (${py.reason ?? 'unknown'})`;
  return undefined;
}

export interface RealWorkspace {
  dir: string;
  config: string;
  workflow: string;
  port: number;
  python: string;
  /** PYTHONPATH for launches in this workspace. */
  pythonPath: string;
  /** Stops the companions started here (another config's launch needs the port). */
  stopCompanions(): Promise<void>;
  /** Stops the companions started here and removes the folder. */
  dispose(): Promise<void>;
}

/** `dst/<entry>` -> `src/<entry>` for each entry, except those in `except`. */
function linkEntries(src: string, dst: string, except: readonly string[] = []): void {
  mkdirSync(dst, { recursive: true });
  for (const name of readdirSync(src)) if (!except.includes(name)) symlinkSync(join(src, name), join(dst, name));
}

export const WORKFLOW = [
  'from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask',
  '',
  '',
  'class DebugWorkflow(Workflow):',
  '    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:',
  '        query = workflow_task.task.main_query  # BREAK HERE',
  '        client = tuner.as_raw_openai_sdk_client()',
  '        reply = await client.chat.completions.create(messages=[{"role": "system", "content": "Solve it."}, {"role": "user", "content": str(query)}])',
  '        answer = reply.choices[0].message.content',
  '        return WorkflowOutput(reward=1.0, metadata={"answer": answer})',
  '',
].join('\n');

/** The config as an AgentJet user writes it (hydra defaults, `experiment_name` left to read_yaml_name). */
export function configText(port: number, extra = ''): string {
  return (
    [
      'ajet:',
      '  project_name: conformance',
      '  task_reader:',
      '    type: random_dummy',
      '  model:',
      '    path: stub-model',
      '  rollout:',
      '    user_workflow: "workflow.py->DebugWorkflow"',
      '  debug:',
      '    debug_max_parallel: 1',
      '    debug_first_n_tasks: 1',
      `    debug_vllm_port: ${port}`,
      '    debug_tensor_parallel_size: 1',
      '  trainer_common:',
      '    logger: tensorboard',
      extra,
      'hydra:',
      '  searchpath:',
      '    - file://ajet/default_config',
      '    - file://ajet/default_config/verl',
      'defaults:',
      '  - verl_default',
      '  - ajet_default',
      '  - _self_',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n'
  );
}

export async function realWorkspace(tree: UpstreamName = 'agentjet-d20cce0', tag = 'aj-real-'): Promise<RealWorkspace> {
  const upstreamDir = findUpstream(tree);
  const beast = findUpstream('beast-logger-6ba1ca5');
  if (!upstreamDir || !beast) throw new Error(`${tree} or beast-logger missing`);
  const dir = mkdtempSync(join(tmpdir(), tag));
  // The AgentJet checkout the user runs from: its package, entry by entry (so that nothing the run
  // writes lands in the shared tree), with its own ajet/utils/vsdb.py.
  linkEntries(join(upstreamDir, 'ajet'), join(dir, 'ajet'));
  const deps = join(dir, '.pydeps');
  mkdirSync(deps);
  for (const p of DEBIAN_PACKAGES) symlinkSync(join(DEBIAN_DIST, p), join(deps, p));
  const port = await freePort();
  const config = join(dir, 'conformance.yaml');
  writeFileSync(config, configText(port));
  const workflow = join(dir, 'workflow.py');
  writeFileSync(workflow, WORKFLOW);
  return {
    dir,
    config,
    workflow,
    port,
    python: ensureTestPython().python,
    pythonPath: [stubsDir, beast, deps].join(':'),
    async stopCompanions() {
      await stopCompanions(companionsOf(dir));
    },
    async dispose() {
      await stopCompanions(companionsOf(dir));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
