// A small AgentJet package tree shaped like AgentJet after 0.0.4 (code of about August 2026): the
// files the facts generator reads, written for these tests (not copied from AgentJet). What each
// file stands for:
//   default_config/ajet_default.yaml        the defaults, with the later keys: rollout.tool_parser,
//                                           rollout.chat_template_generate_prompt_type,
//                                           rollout.ppo_max_token_len_per_gpu, teacher_model.*, opd.*
//   utils/tool_parser.py                    a registry dict of tool parsers; an unknown name logs and
//                                           falls back to hermes
//   utils/get_blackout_token_combo.py       a dict of generation-prompt headers; an unknown type raises
//   backbone/verl/distillation.py           OPD loss modes registered by a decorator; unknown raises
// pyproject.toml says 0.0.4 while ajet/__init__.py says 0.1.0, as AgentJet's own tree does: the
// release is the package metadata's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface AgentJetTreeOptions {
  /** pyproject.toml's version (default 0.0.4). */
  release?: string;
  /** `__version__` in ajet/__init__.py (default 0.1.0). */
  initVersion?: string;
  /** Leave out the later files (tool parser, header table, distillation): a 0.0.4-like tree. */
  without04Later?: boolean;
  /**
   * Leave out the launcher's overlap check (`_validate_input_yaml_no_overlap_with_auto_convertion_config`
   * in ajet/utils/config_utils.py), as January 2026's AgentJet had it.
   */
  withoutOverlapCheck?: boolean;
}

const DEFAULTS = `# defaults of the test tree (post-0.0.4 shape)
ajet:
  project_name: "test_project"
  experiment_name: "test_experiment"
  experiment_dir: "auto"
  backbone: verl   # debug, trinity or verl

  model:
    # the model to train
    path: /path/to/model

  data:
    max_prompt_length: 3000
    max_response_length: 15000
    train_batch_size: 32

  rollout:
    # workflow class, module.path->ClassName
    user_workflow: tutorial.example->SomeWorkflow
    max_env_worker: 64
    max_model_len: 18000
    # per-GPU token budget of the PPO update; null follows max_model_len
    ppo_max_token_len_per_gpu: null
    # how tool calls are read from the model's text
    tool_parser: hermes
    # which generation-prompt header is masked out of the loss
    chat_template_generate_prompt_type: default
    num_repeat: 4
    temperature: 0.9

  task_reader:
    type: random_dummy   # env_service, jsonl_dataset_file, huggingface_dat_repo, random_dummy

  task_judge:
    judge_type: customized_protocol
    judge_protocol: ajet.task_judge.env_service_as_judge->EnvServiceJudge

  trainer_common:
    total_epochs: 50
    n_gpus_per_node: 8
    logger: swanlab

  lora:
    lora_rank: 0
    lora_alpha: 16
    layered_summon: false

  # on-policy distillation against a remote teacher (off unless enabled)
  teacher_model:
    teacher_opd_enabled: false
    teacher_model_vllm_url: ""
    teacher_model_name: ""
    teacher_model_api_key: "EMPTY"
    teacher_topk: 0
    teacher_max_concurrent: 32
    teacher_chunk_size: 16
    teacher_request_timeout: 120.0
    teacher_max_model_len: null
    teacher_log_prob_min_clamp: -10.0
  opd:
    loss_mode: k3
    use_policy_gradient: false
    use_task_rewards: true
    distillation_loss_coef: 1.0
    loss_max_clamp: 10.0
    log_prob_min_clamp: -10.0
`;

const TOOL_PARSER = `"""Reads tool calls out of model text; the format is chosen by ajet.rollout.tool_parser."""
import logging

log = logging.getLogger(__name__)


def _json_style(text):
    return {"calls": [], "text": text}


def _xml_style(text):
    return {"calls": [], "text": text}


# name -> reader; "hermes" is what older models emit
_TOOL_PARSERS = {
    "hermes": _json_style,
    "qwen3_coder": _xml_style,  # the "<function=...>" form
}


def parse_tool_calls(text, parser_name):
    key = (parser_name or "hermes").strip().lower()
    reader = _TOOL_PARSERS.get(key)
    if reader is None:
        log.warning("unknown tool parser %r, using hermes", parser_name)
        reader = _json_style
    return reader(text)


def parser_of(config):
    return parse_tool_calls("", config.ajet.rollout.tool_parser)
`;

const HEADERS = `"""Tokens of the generation-prompt header that the loss never trains on."""

# one header per ajet.rollout.chat_template_generate_prompt_type
_HEADER_BY_PROMPT_TYPE = {
    "default": "<|im_start|>assistant\\n",
    "qwen3.6": "<|im_start|>assistant\\n<think>",
}


def header_tokens(tokenizer, config=None):
    kind = "default"
    if config is not None:
        kind = config.ajet.rollout.chat_template_generate_prompt_type or "default"
    header = _HEADER_BY_PROMPT_TYPE.get(kind)
    if header is None:
        raise ValueError(f"chat_template_generate_prompt_type {kind!r} is not one of {sorted(_HEADER_BY_PROMPT_TYPE)}")
    return tokenizer.encode(header)
`;

const DISTILLATION = `"""On-policy distillation losses, looked up by ajet.opd.loss_mode."""
_LOSSES = {}


def _register(names, family):
    if isinstance(names, str):
        names = [names]

    def wrap(fn):
        for n in names:
            _LOSSES[n] = (fn, family)
        return fn

    return wrap


def family_of(loss_mode):
    if loss_mode not in _LOSSES:
        raise ValueError(f"unsupported loss_mode {loss_mode!r}")
    return _LOSSES[loss_mode][1]


@_register(["kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3", "k1+", "k3+", "kl+"], "estimator")
def _estimator(cfg, out, data):
    return None


@_register(["forward_kl_topk"], "topk")
def _topk(cfg, out, data):
    return None


def mode_of(config):
    return family_of(config.ajet.opd.loss_mode), config.ajet.teacher_model.teacher_opd_enabled
`;

// The launcher's check, reduced to its shape: a verl key the conversion table writes must not be set
// to another value than the ajet key it comes from.
const CONFIG_UTILS = `def _validate_input_yaml_no_overlap_with_auto_convertion_config(input_yaml_config, config_final):
    for key, value in input_yaml_config.items():
        if key in config_final and str(config_final[key]) != str(value):
            raise ValueError(f"Configuration conflict between AgentJet and Verl: {key}")
`;

/** Writes the tree under `root` (`root/pyproject.toml`, `root/ajet/...`); returns the package folder. */
export function writeAgentJetTree(root: string, opts: AgentJetTreeOptions = {}): string {
  const pkg = join(root, 'ajet');
  const put = (rel: string, text: string) => {
    const f = join(root, rel);
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, text);
  };
  put('pyproject.toml', `[project]\nname = "agentjet"\nversion = "${opts.release ?? '0.0.4'}"\n`);
  put('ajet/__init__.py', `__version__ = "${opts.initVersion ?? '0.1.0'}"\n`);
  put('ajet/default_config/ajet_default.yaml', DEFAULTS);
  put('ajet/default_config/verl/verl_default.yaml', 'actor_rollout_ref:\n  rollout:\n    n: 4\n');
  put(
    'ajet/default_config/verl/config_auto_convertion_verl.jsonc',
    '{\n  // ajet key -> verl key it overwrites\n  "ajet.rollout.num_repeat": "actor_rollout_ref.rollout.n"\n}\n',
  );
  put('ajet/default_config/trinity/trinity_default.yaml', 'buffer:\n  batch_size: 1\n');
  put('ajet/task_judge/__init__.py', '');
  put('ajet/task_judge/env_service_as_judge.py', 'class EnvServiceJudge:\n    pass\n');
  if (!opts.withoutOverlapCheck) put('ajet/utils/config_utils.py', CONFIG_UTILS);
  if (!opts.without04Later) {
    put('ajet/utils/tool_parser.py', TOOL_PARSER);
    put('ajet/utils/get_blackout_token_combo.py', HEADERS);
    put('ajet/backbone/verl/distillation.py', DISTILLATION);
  }
  return pkg;
}
