// Rules over the whole config: the launch essentials and the cross-field checks, on the effective
// values (the file's, else the defaults of the version that reads it).
import { isScalar, type Node, type Pair } from 'yaml';
import { childSchema, type SchemaNode } from './schema';
import { nodeAt, nodeJson } from './parse';
import { parseClassRef } from './classref';
import type { Range } from './text';
import type { Severity } from './diagnostics';
import { nodeRange, push, rootName, type Ctx } from './validateContext';
import { t } from '../l10n';
import { frameworkName } from '../agentjet/dialect';

// ---------------------------------------------------------------- essentials and cross-field rules

interface Eff {
  value: unknown;
  pair?: Pair;
  node?: Node | null;
  inFile: boolean;
}

/** Effective value of an ajet.* path: the file's, else the framework default. */
function eff(ctx: Ctx, rel: string[], alts: string[][] = []): Eff {
  for (const r of [rel, ...alts]) {
    const hit = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), ...r]);
    if (hit) {
      const n = hit.node;
      return { value: isScalar(n) ? n.value : n ? nodeJson(n) : null, pair: hit.pair, node: n, inFile: true };
    }
  }
  const byVersion = (ctx.schema as { 'x-versionDefaults'?: Record<string, Record<string, string>> })['x-versionDefaults']?.[ctx.version]?.[
    rel.join('.')
  ];
  if (byVersion !== undefined) return { value: byVersion, inFile: false };
  let s: SchemaNode | undefined = childSchema(ctx.schema, 'ajet');
  for (const seg of rel) s = s ? childSchema(s, seg) : undefined;
  return { value: s?.default, inFile: false };
}

function num(e: Eff): number | undefined {
  return typeof e.value === 'number' && Number.isFinite(e.value) ? e.value : undefined;
}

function anchorRange(ctx: Ctx, ...cands: (Eff | string[])[]): Range {
  for (const c of cands) {
    if (Array.isArray(c)) {
      const hit = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), ...c]);
      if (hit) return nodeRange(ctx, hit.pair.key as Node);
    } else if (c.inFile && c.pair) {
      return nodeRange(ctx, (c.pair.value as Node | null) ?? (c.pair.key as Node));
    }
  }
  const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
  return nodeRange(ctx, root?.pair.key as Node);
}

export function checkEssentials(ctx: Ctx): void {
  if (ctx.fragment) return;
  const sev: Severity = ctx.inheritsDefaults ? 'error' : 'warning';
  const model = eff(ctx, ['model', 'path']);
  if (!model.inFile)
    push(
      ctx,
      'missing-required',
      sev,
      ctx.inheritsDefaults
        ? t('No `model.path`: set the model to train (the default is a placeholder).')
        : t('No `model.path`: set the model to train.'),
      anchorRange(ctx, ['model'], []),
    );
  const wf = eff(
    ctx,
    ['rollout', 'user_workflow'],
    [
      ['rollout', 'agentscope_workflow'],
      ['rollout', 'agentscope_learn_protocol'],
    ],
  );
  if (!wf.inFile)
    push(
      ctx,
      'missing-required',
      sev,
      t('No workflow: set `rollout.user_workflow` to `module.path->YourWorkflow`.'),
      anchorRange(ctx, ['rollout'], []),
    );
  const type = eff(ctx, ['task_reader', 'type']);
  if (!type.inFile && type.value !== 'env_service') {
    // An EnvService default reads tasks from the service the config points at; a dataset default
    // reads the placeholder dataset of the defaults file.
    push(
      ctx,
      'missing-required',
      'warning',
      t('No `task_reader.type`: the default reads the `{0}` dataset of the defaults, which is rarely what you want.', String(type.value)),
      anchorRange(ctx, ['task_reader'], []),
    );
  } else if (type.inFile && typeof type.value === 'string') {
    const sel = childSchema(childSchema(childSchema(ctx.schema, 'ajet'), 'task_reader'), 'type')?.['x-selects'] ?? {};
    const section = sel[type.value];
    if (section && !nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), 'task_reader', section])) {
      push(
        ctx,
        'missing-required',
        'warning',
        t('`task_reader.type: {0}` reads the `task_reader.{1}` section, which this file does not set.', type.value, section),
        anchorRange(ctx, type),
      );
    }
  }
  if (!ctx.inheritsDefaults && !nodeAt(ctx.p.rootMap, ctx.doc, ['hydra']) && ctx.p.rootKey) {
    const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
    push(
      ctx,
      'missing-defaults',
      'information',
      t('No Hydra `defaults:` list: the framework defaults are not merged under this file.'),
      nodeRange(ctx, root?.pair.key as Node),
    );
  }
}

export function checkCrossFields(ctx: Ctx): void {
  const prompt = eff(ctx, ['data', 'max_prompt_length']);
  const resp = eff(ctx, ['data', 'max_response_length']);
  const mml = eff(ctx, ['rollout', 'max_model_len']);
  const [a, b, c] = [num(prompt), num(resp), num(mml)];
  if (a !== undefined && b !== undefined && c !== undefined && (prompt.inFile || resp.inFile || mml.inFile) && a + b > c) {
    push(
      ctx,
      'cross-field/max-model-len',
      'error',
      t('data.max_prompt_length + data.max_response_length = {0} + {1} = {2} exceeds rollout.max_model_len = {3}.', a, b, a + b, c),
      anchorRange(ctx, mml, resp, prompt),
    );
  }
  const engines = eff(ctx, ['rollout', 'n_vllm_engine']);
  const tp = eff(ctx, ['rollout', 'tensor_model_parallel_size']);
  const gpn = eff(ctx, ['trainer_common', 'n_gpus_per_node']);
  const nodes = eff(ctx, ['trainer_common', 'nnodes']);
  const [e, tps, g, nn] = [num(engines), num(tp), num(gpn), num(nodes)];
  if (
    e !== undefined &&
    tps !== undefined &&
    g !== undefined &&
    nn !== undefined &&
    (engines.inFile || tp.inFile || gpn.inFile || nodes.inFile) &&
    e * tps > g * nn
  ) {
    push(
      ctx,
      'cross-field/gpus',
      'error',
      t(
        'rollout.n_vllm_engine x rollout.tensor_model_parallel_size = {0} x {1} = {2} GPUs, but the job has trainer_common.n_gpus_per_node x nnodes = {3} x {4} = {5}.',
        e,
        tps,
        e * tps,
        g,
        nn,
        g * nn,
      ),
      anchorRange(ctx, engines, tp, gpn, nodes),
    );
  }
  const dtp = eff(ctx, ['debug', 'debug_tensor_parallel_size']);
  const d = num(dtp);
  if (d !== undefined && g !== undefined && (dtp.inFile || gpn.inFile) && d > g) {
    push(
      ctx,
      'cross-field/debug-tp',
      'warning',
      dtp.inFile
        ? t(
            'debug.debug_tensor_parallel_size = {0} needs {0} GPUs, more than trainer_common.n_gpus_per_node = {1}; the debug vLLM server will not start on such a machine.',
            d,
            g,
          )
        : t(
            'debug.debug_tensor_parallel_size = {0} (default) needs {0} GPUs, more than trainer_common.n_gpus_per_node = {1}; the debug vLLM server will not start on such a machine.',
            d,
            g,
          ),
      anchorRange(ctx, dtp, ['debug'], gpn),
    );
  }
  const jt = eff(ctx, ['task_judge', 'judge_type']);
  if (jt.value === 'rubrics_auto_grader' && !nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), 'task_judge', 'rubrics_auto_grader'])) {
    push(
      ctx,
      'cross-field/rubrics-section',
      ctx.inheritsDefaults ? 'warning' : 'error',
      t(
        '`judge_type: rubrics_auto_grader` without a `task_judge.rubrics_auto_grader` section: the grader runs with the default model and data settings.',
      ),
      anchorRange(ctx, jt),
    );
  }
  const jp = eff(ctx, ['task_judge', 'judge_protocol']);
  const rt = eff(ctx, ['task_reader', 'type']);
  if (
    (jt.value === 'customized_protocol' || jt.value === 'customized_protocal') &&
    !jp.inFile &&
    rt.inFile &&
    rt.value !== 'env_service' &&
    typeof jp.value === 'string' &&
    jp.value.includes('env_service') &&
    !workflowSetsReward(ctx)
  ) {
    push(
      ctx,
      'cross-field/judge',
      'warning',
      t(
        'No `task_judge.judge_protocol`: the default judge (`{0}`) asks an EnvService for rewards, but `task_reader.type` is `{1}`.',
        jp.value,
        String(rt.value),
      ),
      anchorRange(ctx, ['task_judge'], rt),
    );
  }
}

/** Used by hover/definition: alias-aware value node of a key path. */

/**
 * The runner asks the judge only when the workflow's output has no reward
 * (`if workflow_output.reward is not None` in ajet/task_runner/general_runner.py). True when the
 * workflow's module builds `WorkflowOutput(reward=<not None>)` or assigns `.reward`, or when the workflow
 * cannot be read (then nothing is claimed).
 */
function workflowSetsReward(ctx: Ctx): boolean {
  const wf = eff(
    ctx,
    ['rollout', 'user_workflow'],
    [
      ['rollout', 'agentscope_workflow'],
      ['rollout', 'agentscope_learn_protocol'],
    ],
  );
  if (typeof wf.value !== 'string' || !ctx.root) return true;
  const ref = parseClassRef(wf.value);
  if ('error' in ref) return true;
  const r = ctx.resolver.resolve(ref, ctx.root);
  if (r.ok !== true) return true;
  const text = ctx.fs.read(r.file, ctx.resolver.within(ctx.root));
  if (text === undefined) return true;
  return /\bWorkflowOutput\s*\([^)]*\breward\s*=\s*(?!None\b)[^\s,)]/.test(text) || /\.reward\s*=(?!=)\s*(?!None\b)\S/.test(text);
}

/** The launchers of every version assert `yaml_path.endswith(".yaml")` (utils/config_utils.py). */
export function checkFileName(ctx: Ctx, fileName: string | undefined): void {
  if (!fileName || !/\.yml$/i.test(fileName) || ctx.standalone || ctx.fragment) return;
  const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
  push(
    ctx,
    'launcher/yml-extension',
    'error',
    t(
      'The {0} launcher only accepts files ending in `.yaml` (it asserts `yaml_path.endswith(".yaml")`); rename this file to `.yaml` to launch it.',
      frameworkName(ctx.version),
    ),
    nodeRange(ctx, root?.pair.key as Node),
  );
}

export function checkRoot(ctx: Ctx): void {
  const key = ctx.p.rootKey;
  if (!key || key === 'ajet') return;
  if (ctx.dialect === 'agentjet') {
    const pair = nodeAt(ctx.p.rootMap, ctx.doc, [key]);
    if (pair)
      push(
        ctx,
        'renamed-key',
        'warning',
        t('`{0}:` is the ASTuner root; AgentJet reads `ajet:`.', key),
        nodeRange(ctx, pair.pair.key as Node),
        [{ title: t('Rename to `ajet`'), newText: 'ajet', preferred: true }],
      );
  }
}
