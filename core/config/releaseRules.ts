// The rules that depend on which AgentJet judges a config, as data: each rule says which facts of
// the user's AgentJet turn it on (a key its defaults declare or its code reads, a function its code
// defines, a file its package holds), never a version string. core/config/rulesByRelease.ts is the
// engine that reads this table; core/config/factsgen.ts records the `def` and `file` facts it names,
// for the bundled releases (`npm run gen:schema`) and for the user's own tree at run time alike.
// A later AgentJet that adds a launcher check or renames a key needs a new row here, not new code.
// Every message and fix title is English text with placeholders; its zh-CN is in core/l10n/zh-cn.json
// (test/unit/l10n.test.ts reads them from this table).

import type { DiagnosticCode } from './diagnostics';

/** Something an AgentJet tree has or lacks. */
export type TreeFact =
  /** `ajet.<key>` is declared by its defaults or read by its code. */
  | { key: string }
  /** Its package defines a Python function of that name (`def name(`, anywhere in the package). */
  | { def: string }
  /** Its package holds that file (relative to the package folder, `/`-separated). */
  | { file: string };

export type Scalar = string | number | boolean | null;

/** A condition on the value of `ajet.<key>` (the file's, else the judging AgentJet's default). */
export interface ValueTest {
  key: string;
  /** Only when the config itself sets the key (a default does not count). */
  inFile?: boolean;
  equals?: Scalar;
  oneOf?: Scalar[];
  /** A number above this. */
  above?: number;
}

/** What a config must then hold: `ajet.<key>` equal to `value`, offered as a fix. */
export interface Requirement {
  key: string;
  value: Scalar;
  /** Placeholders `{0}`… are the `args` of the rule. */
  message: string;
  /** The title of the fix that sets the key. */
  fix: string;
}

/** A value shown in a message: `ajet.<key>` as Python's str() prints it, or `orElse` when it has none. */
export interface MessageArg {
  key: string;
  orElse?: string;
}

interface RuleBase {
  id: string;
  /** The diagnostic code (a new one is a row of CODES in core/config/diagnostics.ts, with its docs line). */
  code: DiagnosticCode;
  /** The rule applies to an AgentJet that has every one of these facts. */
  when: TreeFact[];
  /** Where AgentJet does it (cited in docs/config.md). */
  source: string;
}

/** "When the config says this, it must also say that", or the launcher (or AgentJet's code) stops. */
export interface RequiresRule extends RuleBase {
  kind: 'requires';
  /** All of these hold. */
  given: ValueTest[];
  requires: Requirement[];
  args?: MessageArg[];
  /** The key a diagnostic is put on (default: the required key, else the first `given` key the file sets). */
  anchor?: string;
}

/**
 * A conversion table (the judging AgentJet's `x-release.verlConversions`) whose target keys the
 * config must not set to another value than the `ajet.*` key they are converted from. Placeholders:
 * {0} the target key, {1} its value here, {2} the `ajet.` key, {3} that key's value.
 */
export interface ConversionOverlapRule extends RuleBase {
  kind: 'conversion-overlap';
  message: string;
}

export type ReleaseRule = RequiresRule | ConversionOverlapRule;

export const RELEASE_RULES: readonly ReleaseRule[] = [
  {
    id: 'verl-overlap',
    kind: 'conversion-overlap',
    code: 'cross-field/verl-overlap',
    // January's launcher has no such check (its config_utils.py never compares the two).
    when: [{ def: '_validate_input_yaml_no_overlap_with_auto_convertion_config' }],
    source: 'ajet/utils/config_utils.py `_validate_input_yaml_no_overlap_with_auto_convertion_config`',
    message:
      'Configuration conflict between AgentJet and Verl: `{0}` is {1} here, but AgentJet sets it from `ajet.{2}` ({3}); the launcher stops. Set `ajet.{2}` instead.',
  },
  {
    id: 'lora',
    kind: 'requires',
    code: 'cross-field/lora',
    when: [{ key: 'lora' }],
    source: 'ajet/utils/config_utils.py `align_parameter_safe_guard`',
    given: [{ key: 'lora.lora_rank', inFile: true, above: 0 }],
    args: [{ key: 'lora.lora_rank' }, { key: 'lora.load_format', orElse: 'auto' }],
    requires: [
      {
        key: 'lora.load_format',
        value: 'safetensors',
        message: 'LoRA (`lora_rank: {0}`) needs `ajet.lora.load_format: safetensors`, but it is `{1}`: the verl launch stops.',
        fix: 'Set `ajet.lora.load_format: safetensors`',
      },
      {
        key: 'lora.layered_summon',
        value: true,
        message: 'LoRA (`lora_rank: {0}`) needs `ajet.lora.layered_summon: true`: the verl launch stops.',
        fix: 'Set `ajet.lora.layered_summon: true`',
      },
    ],
  },
  {
    id: 'swarm',
    kind: 'requires',
    code: 'cross-field/swarm',
    when: [{ key: 'enable_swarm_mode' }, { key: 'enable_interchange_server' }],
    source: 'ajet/launcher.py `start_swarm_server` (asserts both)',
    given: [{ key: 'enable_swarm_mode', inFile: true, equals: true }],
    requires: [
      {
        key: 'enable_interchange_server',
        value: true,
        message:
          '`enable_swarm_mode` needs `enable_interchange_server: true`: swarm clients reach the trainer through that server, and `ajet-swarm start` stops without it.',
        fix: 'Set `ajet.enable_interchange_server: true`',
      },
    ],
  },
  {
    id: 'opd',
    kind: 'requires',
    code: 'cross-field/opd',
    when: [{ key: 'opd.use_policy_gradient' }, { key: 'teacher_model.teacher_opd_enabled' }],
    source: 'ajet/backbone/verl/distillation.py `OpdLossConfig.__post_init__`',
    // `kl` and `k1` backpropagated directly do not depend on the teacher, so AgentJet raises.
    given: [
      { key: 'teacher_model.teacher_opd_enabled', equals: true },
      { key: 'opd.loss_mode', inFile: true, oneOf: ['kl', 'k1'] },
    ],
    args: [{ key: 'opd.loss_mode' }],
    anchor: 'opd.loss_mode',
    requires: [
      {
        key: 'opd.use_policy_gradient',
        value: true,
        message:
          '`opd.loss_mode: {0}` needs `opd.use_policy_gradient: true`: backpropagating {0} directly does not depend on the teacher, and AgentJet raises. Use `{0}+` or another mode, or turn on the policy gradient.',
        fix: 'Set `ajet.opd.use_policy_gradient: true`',
      },
    ],
  },
];

/**
 * A key one AgentJet renamed (`to`) or removed (no `to`), relative to `ajet:`. It applies to an
 * AgentJet that no longer knows `from` and, for a rename, knows `to` (its facts say so, whatever
 * its version); `release` only names, in messages, the release that made the change. Checked
 * against agentjet-d20cce0 and agentjet-c68c154's defaults and verl conversion tables.
 */
export interface KeyChange {
  from: string;
  to?: string;
  release: string;
}

export const KEY_CHANGES: readonly KeyChange[] = [
  { release: '0.0.4', from: 'enable_experimental_interchange_server', to: 'enable_interchange_server' },
  { release: '0.0.4', from: 'trainer_common.algorithm.use_kl_in_reward', to: 'trainer_common.use_kl_in_reward' },
  { release: '0.0.4', from: 'rollout.val_kwargs.num_repeat' },
  { release: '0.0.4', from: 'task_runner.llm_infer_submit_method' },
];

/** The `def` and `file` facts the table asks about, as the generator records them (`def:name`, `file:path`). */
export function recordedFactNames(rules: readonly ReleaseRule[] = RELEASE_RULES): string[] {
  const out = new Set<string>();
  for (const r of rules)
    for (const f of r.when) {
      if ('def' in f) out.add(factName(f));
      else if ('file' in f) out.add(factName(f));
    }
  return [...out].sort();
}

/** How a recorded fact is written in the facts (`x-release.has`). */
export function factName(f: { def: string } | { file: string }): string {
  return 'def' in f ? `def:${f.def}` : `file:${f.file}`;
}

/** Every English text of the table a user sees (for the translation check). */
export function releaseRuleTexts(rules: readonly ReleaseRule[] = RELEASE_RULES): string[] {
  return rules.flatMap((r) => (r.kind === 'conversion-overlap' ? [r.message] : r.requires.flatMap((q) => [q.message, q.fix])));
}
