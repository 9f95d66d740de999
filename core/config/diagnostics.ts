import type { Range } from './text';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** One problem found in a config (0-based positions). Shared with the debug preflight through lint.ts. */
export interface LintDiagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface Fix {
  title: string;
  /** Defaults to the diagnostic's range. */
  range?: Range;
  newText: string;
  preferred?: boolean;
}

export interface ConfigDiagnostic extends LintDiagnostic {
  fixes?: Fix[];
}

/** Every code the validator emits, with what it means (also documented in docs/config.md). */
export const CODES = {
  'yaml-syntax': 'the YAML itself does not parse',
  'multi-document': 'Hydra reads one YAML document per file',
  'too-large': 'file too large for semantic checks',
  unreadable: 'the config file cannot be read (lintFile only)',
  'unknown-key': 'a key the framework does not read',
  'unread-key': 'a key in the defaults that no version of the code reads',
  'launcher/yml-extension': 'the launcher asserts a .yaml file name',
  'type-mismatch': 'a value of the wrong type',
  'empty-value': 'a key with no value',
  enum: 'a value outside the accepted set',
  'renamed-key': "a key spelled the other dialect's way",
  'renamed-value': "a value spelled the other dialect's way",
  'deprecated-key': 'a key the framework no longer reads',
  'missing-required': 'an essential setting is missing',
  'missing-defaults': 'no Hydra defaults list',
  placeholder: 'a placeholder value left from the defaults or a template',
  'bad-interpolation': 'an OmegaConf ${...} whose target does not exist',
  'class-ref/syntax': 'a malformed class reference',
  'class-ref/missing-module': 'the module of a class reference is missing',
  'class-ref/missing-file': 'the file of a class reference is missing',
  'class-ref/missing-class': 'the class of a class reference is missing',
  'class-ref/unchecked':
    'the class could not be confirmed: its Python file is too large to read whole, or a framework built-in is missing from an interpreter nobody chose for AgentJet',
  'class-ref/waits-for-trust': 'Restricted Mode: installed packages are checked once the user trusts the folder',
  'path-missing': 'a local path that does not exist',
  'cross-field/max-model-len': 'prompt + response longer than the model length',
  'cross-field/gpus': 'more inference GPUs than the job has',
  'cross-field/debug-tp': 'debug tensor parallel size larger than the GPUs per node',
  'cross-field/rubrics-section': 'rubrics grader selected without its section',
  'cross-field/judge': 'default judge does not fit the task reader',
  'generated-config': "AgentJet 0.0.4's launcher wrote this copy (<config>.yaml.patch.yaml); it is not checked",
  'cross-field/verl-overlap': 'a verl key set against the ajet key the conversion table writes it from (AgentJet 0.0.4 raises)',
  'cross-field/lora': 'LoRA without the weight format or summon mode verl needs',
  'cross-field/swarm': 'swarm mode without the interchange server',
  'cross-field/opd': 'on-policy distillation with loss_mode kl or k1 but no policy gradient (AgentJet after 0.0.4 raises)',
} as const;

/** A code the validator can emit: diagnostics are typed by CODES, so a new code must be listed there. */
export type DiagnosticCode = keyof typeof CODES;
