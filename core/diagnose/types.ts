// What `agentjet diagnose`, `agentjet runs`, the Runs view and the agents' tools say about why a run
// failed: causes read from the run's own material by signatures of the real messages of torch,
// vLLM, Ray, the kernel, NCCL, OmegaConf and AgentJet (core/diagnose/signatures.ts).

export type CauseCode =
  | 'cuda-oom'
  | 'host-oom'
  | 'nccl'
  | 'port-in-use'
  | 'env-verl-version'
  | 'env-debugpy'
  | 'env-swanlab-key'
  | 'config-invalid'
  | 'workflow-exception'
  | 'dataset-missing';

export const CAUSE_CODES: readonly CauseCode[] = [
  'cuda-oom',
  'host-oom',
  'nccl',
  'port-in-use',
  'env-verl-version',
  'env-debugpy',
  'env-swanlab-key',
  'config-invalid',
  'workflow-exception',
  'dataset-missing',
];

/** A change to the config the run came from (offered as a quick fix). */
export interface ConfigEdit {
  /** Dotted key, e.g. `ajet.rollout.gpu_memory_utilization`. */
  key: string;
  /** The value to write; `lower`/`raise` when it depends on the current one (see nextValue). */
  value: number | boolean | string | 'lower' | 'raise';
}

/** What to change, in one of three shapes besides the sentence. */
export interface CauseAction {
  /** Edits of the run's config, first the one to try first. */
  config?: ConfigEdit[];
  /** An environment variable for the next launch. */
  env?: { name: string; value: string };
  /** A command to run (an install). */
  command?: string;
}

export interface Cause {
  code: CauseCode;
  /** 1-based line of the first evidence line in `file` (see lineBase). */
  line: number;
  /** What happened, one sentence. */
  message: string;
  /** What to change. */
  fix: string;
  /** The lines that show it (the first is at `line`), control characters removed, each at most 400 characters. */
  evidence: string[];
  /** Where it was read (a path), when read from a file. */
  file?: string;
  /** What kind of material it was read from. */
  source?: CauseSource;
  /** `tail`: the file was read from byte `fromByte` on and `line` counts from there. */
  lineBase?: 'file' | 'tail';
  fromByte?: number;
  action?: CauseAction;
  /** workflow-exception: the frame in the user's code. */
  frame?: { file: string; line: number; function?: string };
}

export type CauseSource = 'launcher-output' | 'run-log' | 'exception-log' | 'ray-worker-log' | 'vllm-log' | 'file';

/** The `--format json` shape of `agentjet diagnose`. */
export interface DiagnoseJson {
  causes: Cause[];
  /** Files read, each with how much of it. */
  read: { file: string; source: CauseSource; bytes: number; size: number; fromByte: number }[];
  /** Files that could not be read, with why. */
  skipped?: { file: string; reason: string }[];
}
