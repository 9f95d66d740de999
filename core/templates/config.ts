// The config.yaml every template writes: the tutorial layout, with the few keys that differ.
import { HYDRA_TAIL } from './common';

export interface ConfigParts {
  projectName: string;
  pkg: string;
  workflowClass: string;
  judgeClass: string;
  comment: string;
  temperature: number;
  maxResponseInOneTurn: number;
  maxModelLen: number;
  maxPrompt: number;
  maxResponse: number;
  /** Extra lines under `rollout:` (indented four spaces), e.g. multi_turn settings. */
  rolloutExtra?: string;
}

/** The task reader of a project laid out as the templates write it: `data/train.jsonl` and `data/val.jsonl`. */
const JSONL_TASK_READER = `task_reader:
  type: jsonl_dataset_file
  jsonl_dataset_file:
    training:
      file_path: data/train.jsonl
    validation:
      file_path: data/val.jsonl`;

/** JSONL_TASK_READER as YAML lines indented by `indent` (under `ajet:`, two spaces). */
export function jsonlTaskReader(indent: string): string {
  return JSONL_TASK_READER.split('\n')
    .map((l) => indent + l)
    .join('\n');
}

export function configYaml(p: ConfigParts): string {
  return `# ${p.comment}
# Debug one rollout with F5 ("AgentJet: debug rollout"); train with "AgentJet: Train (verl)".
ajet:
  project_name: ${p.projectName}
  experiment_name: ${p.projectName}_debug
${jsonlTaskReader('  ')}

  task_judge:
    # the judge turns the workflow's output into a reward (called when execute returns reward=None)
    judge_protocol: ${p.pkg}.judge->${p.judgeClass}

  model:
    # the model to fine-tune (a Hugging Face id or a local folder)
    path: Qwen/Qwen2.5-1.5B-Instruct

  rollout:
    user_workflow: ${p.pkg}.workflow->${p.workflowClass}
    temperature: ${p.temperature.toFixed(1)}
    num_repeat: 4
    max_env_worker: 8
    max_response_length_in_one_turn: ${p.maxResponseInOneTurn}
    max_model_len: ${p.maxModelLen}
    n_vllm_engine: 1
    tensor_model_parallel_size: 1
${p.rolloutExtra ?? ''}
  data:
    train_batch_size: 8
    max_prompt_length: ${p.maxPrompt}
    max_response_length: ${p.maxResponse}

  debug:
    debug_max_parallel: 1
    debug_first_n_tasks: 2
    debug_tensor_parallel_size: 1   # vLLM for debugging on one GPU

  trainer_common:
    n_gpus_per_node: 1
    save_freq: 20
    test_freq: 10
    total_epochs: 2
    logger: console
${HYDRA_TAIL}`;
}
