// The signatures of failures, each taken from the code that prints it (the `origin`: repository and
// file). A signature is a literal needle (a cheap test every line goes through) and the regular
// expression that reads its details; `explain` turns a match into the message and the fix.
import { t } from '../l10n';
import type { AgentJetGates } from './gates';
import type { CauseAction, CauseCode } from './types';

export interface SignatureContext {
  gates: AgentJetGates;
}

export interface Explained {
  message: string;
  fix: string;
  action?: CauseAction;
}

export interface Signature {
  code: CauseCode;
  /** Repository and file the message is printed by. */
  origin: string;
  /** A literal every matching line holds (case-sensitive). */
  needle: string;
  re: RegExp;
  /** How many following lines belong to the evidence (NCCL's "Last error" lines, a conflict's keys). */
  more?: number;
  explain(m: RegExpExecArray, ctx: SignatureContext): Explained;
}

const GPU_UTIL = 'ajet.rollout.gpu_memory_utilization';
const MAX_MODEL_LEN = 'ajet.rollout.max_model_len';
const PARAM_OFFLOAD = 'ajet.trainer_common.fsdp_config.param_offload';
const OPTIM_OFFLOAD = 'ajet.trainer_common.fsdp_config.optimizer_offload';
const MAX_ENV_WORKER = 'ajet.rollout.max_env_worker';
const LOGGER = 'ajet.trainer_common.logger';

const trainingOom = (): Explained => ({
  message: t('CUDA ran out of GPU memory.'),
  fix: t(
    'Leave the trainer more of the GPU: lower `{0}` (vLLM shares the GPUs with training), turn on `{1}` and `{2}`, or shorten the sequences (`{3}`, `ajet.data.max_response_length`).',
    GPU_UTIL,
    PARAM_OFFLOAD,
    OPTIM_OFFLOAD,
    MAX_MODEL_LEN,
  ),
  action: {
    config: [
      { key: GPU_UTIL, value: 'lower' },
      { key: PARAM_OFFLOAD, value: true },
      { key: OPTIM_OFFLOAD, value: true },
    ],
  },
});

export const SIGNATURES: readonly Signature[] = [
  {
    code: 'cuda-oom',
    origin: 'pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp',
    needle: 'CUDA out of memory',
    re: /CUDA out of memory\.(?: Tried to allocate ([\d.]+ [KMGT]?i?B))?/,
    explain: (m) => {
      const base = trainingOom();
      return m[1] ? { ...base, message: t('CUDA ran out of GPU memory (it tried to allocate {0}).', m[1]) } : base;
    },
  },
  {
    code: 'cuda-oom',
    origin: 'vllm-project/vllm vllm/worker/worker.py (raise_if_cache_size_invalid)',
    needle: 'No available memory for the cache blocks',
    re: /No available memory for the cache blocks/,
    explain: () => ({
      message: t('vLLM found no GPU memory left for its KV cache after loading the model.'),
      fix: t('Give vLLM more of the GPU (raise `{0}`, if nothing else uses it) or lower `{1}`.', GPU_UTIL, MAX_MODEL_LEN),
      action: {
        config: [
          { key: GPU_UTIL, value: 'raise' },
          { key: MAX_MODEL_LEN, value: 'lower' },
        ],
      },
    }),
  },
  {
    code: 'cuda-oom',
    origin: 'vllm-project/vllm vllm/worker/worker.py (raise_if_cache_size_invalid)',
    needle: 'larger than the maximum number of tokens that can be stored in KV cache',
    re: /max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)/,
    explain: (m) => ({
      message: t("vLLM's KV cache holds {0} tokens, fewer than max_model_len ({1}).", m[2]!, m[1]!),
      fix: t('Set `{0}` to {1} or less, or raise `{2}`.', MAX_MODEL_LEN, m[2]!, GPU_UTIL),
      action: { config: [{ key: MAX_MODEL_LEN, value: Number(m[2]) }] },
    }),
  },
  {
    code: 'cuda-oom',
    origin: 'vllm-project/vllm vllm/v1/core/kv_cache_utils.py (check_enough_kv_cache_memory)',
    needle: 'larger than the available KV cache memory',
    re: /max seq len \((\d+)\).*?larger than the available KV cache memory(?:.*?estimated maximum model length is (\d+))?/,
    explain: (m) => ({
      message: t("vLLM's KV cache memory cannot hold one request of max_model_len ({0}) tokens.", m[1]!),
      fix: m[2]
        ? t('Set `{0}` to {1} or less (vLLM estimates what fits), or raise `{2}`.', MAX_MODEL_LEN, m[2], GPU_UTIL)
        : t('Lower `{0}`, or raise `{1}`.', MAX_MODEL_LEN, GPU_UTIL),
      action: { config: [{ key: MAX_MODEL_LEN, value: m[2] ? Number(m[2]) : 'lower' }] },
    }),
  },
  {
    code: 'cuda-oom',
    origin: 'vllm-project/vllm vllm/v1/worker/gpu_worker.py (init_device)',
    needle: 'is less than desired GPU memory utilization',
    re: /Free memory on device .*? is less than desired GPU memory utilization \(([\d.]+)/,
    explain: (m) => ({
      message: t(
        'The GPU had less free memory at vLLM start than gpu_memory_utilization ({0}) asks for: another process holds GPU memory.',
        m[1]!,
      ),
      fix: t('Stop what else uses the GPU (a previous run, a companion vLLM), or lower `{0}`.', GPU_UTIL),
      action: { config: [{ key: GPU_UTIL, value: 'lower' }] },
    }),
  },
  {
    code: 'host-oom',
    origin: 'ray-project/ray src/ray/raylet/node_manager.cc (memory monitor)',
    needle: 'killed due to the node running low on memory',
    re: /(?:Task was|\d+ worker\(s\) were) killed due to the node running low on memory/,
    explain: () => ({
      message: t("Ray's memory monitor killed a worker: the machine ran low on host memory."),
      fix: t(
        'Use less host memory: lower `{0}` (each environment worker holds its own state); parameter and optimizer offload also keep weights in host memory.',
        MAX_ENV_WORKER,
      ),
      action: { config: [{ key: MAX_ENV_WORKER, value: 'lower' }] },
    }),
  },
  {
    code: 'host-oom',
    origin: 'torvalds/linux mm/oom_kill.c',
    needle: 'Killed process',
    re: /(?:Out of memory|Memory cgroup out of memory): Killed process (\d+) \(([^)]*)\)/,
    explain: (m) => ({
      message: t("The kernel's OOM killer ended process {0} ({1}): the machine or container ran out of memory.", m[1]!, m[2]!),
      fix: t('Use less host memory (lower `{0}`), or give the machine or container more.', MAX_ENV_WORKER),
      action: { config: [{ key: MAX_ENV_WORKER, value: 'lower' }] },
    }),
  },
  {
    code: 'nccl',
    origin: 'pytorch/pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp',
    needle: 'NCCL error',
    re: /NCCL error in: \S+, (.*)/,
    more: 3,
    explain: (m) =>
      /unhandled cuda error/i.test(m[1]!)
        ? {
            message: t('NCCL failed in a CUDA call ({0}).', m[1]!.slice(0, 120)),
            fix: t("Launch again with NCCL_NVLS_ENABLE=0 (AgentJet's hardware notes: NVLS multicast fails on some machines)."),
            action: { env: { name: 'NCCL_NVLS_ENABLE', value: '0' } },
          }
        : {
            message: t("NCCL, the GPUs' communication library, failed ({0}).", m[1]!.slice(0, 120)),
            fix: t(
              'Launch again with NCCL_DEBUG=INFO to see which link failed; on one machine NCCL_NVLS_ENABLE=0 and NCCL_P2P_DISABLE=1 are the usual settings to try.',
            ),
            action: { env: { name: 'NCCL_DEBUG', value: 'INFO' } },
          },
  },
  {
    code: 'nccl',
    origin: 'pytorch/pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp',
    needle: 'ncclUnhandledCudaError',
    re: /ncclUnhandledCudaError/,
    more: 2,
    explain: () => ({
      message: t('NCCL failed in a CUDA call ({0}).', 'ncclUnhandledCudaError'),
      fix: t("Launch again with NCCL_NVLS_ENABLE=0 (AgentJet's hardware notes: NVLS multicast fails on some machines)."),
      action: { env: { name: 'NCCL_NVLS_ENABLE', value: '0' } },
    }),
  },
  {
    code: 'nccl',
    origin: 'pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (watchdog)',
    needle: 'Watchdog caught collective operation timeout',
    re: /Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+)/,
    explain: (m) => ({
      message: t('A collective operation ({0}) waited for another GPU past its timeout: a rank hung or died.', m[2]!),
      fix: t('Look for the first failure among all ranks (earlier lines, the Ray worker logs); NCCL_DEBUG=INFO shows which link stopped.'),
      action: { env: { name: 'NCCL_DEBUG', value: 'INFO' } },
    }),
  },
  {
    code: 'port-in-use',
    origin: 'CPython socket.bind (OSError EADDRINUSE, strerror "Address already in use"); encode/uvicorn uvicorn/server.py',
    needle: 'ddress already in use',
    re: /\[Errno (?:98|48|10048)\](?: error while attempting to bind on address \(([^)]*)\):)? [Aa]ddress already in use/,
    explain: (m) => ({
      message: m[1]
        ? t('A server could not listen on {0}: another process already holds that port.', m[1].replace(/'/g, ''))
        : t('A server could not listen: another process already holds its port.'),
      fix: t('Stop what holds the port (a previous run or companion: see the Companions view or `agentjet runs`), or choose another port.'),
    }),
  },
  {
    code: 'env-verl-version',
    origin: 'AgentJet ajet/utils/launch_utils.py (verify_python_env)',
    needle: 'does not match current backbone',
    re: /Python environment does not match current backbone '(\w+)'/,
    explain: (m, { gates }) => ({
      message:
        m[1] === 'verl'
          ? t(
              'AgentJet refused the installed verl: the verl backbone needs a verl whose version has one of {0}.',
              gates.verlAccepted.join(', '),
            )
          : t("AgentJet refused the installed verl for backbone '{0}'.", m[1]!),
      fix: t('In your AgentJet folder, install the matching environment: {0}', `pip install -e .[${m[1]!}]`),
      action: { command: `pip install -e .[${m[1]!}]` },
    }),
  },
  {
    code: 'env-verl-version',
    origin: 'AgentJet ajet/backbone/trainer_verl.py (_validate_config)',
    needle: 'unsupported VERL version',
    re: /You are using an unsupported VERL version/,
    explain: (_m, { gates }) => ({
      message: t(
        'AgentJet cannot use the installed verl (its config classes differ); it accepts versions with one of {0}.',
        gates.verlAccepted.join(', '),
      ),
      fix: t('In your AgentJet folder, install the matching environment: {0}', 'pip install -e .[verl]'),
      action: { command: 'pip install -e .[verl]' },
    }),
  },
  {
    code: 'env-debugpy',
    origin: 'AgentJet ajet/utils/launch_utils.py (check_debugpy_version)',
    needle: 'debugpy',
    re: /debugpy version (\S+) is too old|Module 'debugpy>=[\d.]+' cannot be loaded/,
    explain: (m, { gates }) => ({
      message: m[1]
        ? t("AgentJet's launcher refused debugpy {0}: it needs {1} or newer, for every backbone.", m[1], gates.debugpyMin)
        : t("AgentJet's launcher found no debugpy: it needs {0} or newer, for every backbone.", gates.debugpyMin),
      fix: t("Install it in the run's environment: {0}", `pip install --upgrade "debugpy>=${gates.debugpyMin}"`),
      action: { command: `pip install --upgrade "debugpy>=${gates.debugpyMin}"` },
    }),
  },
  {
    code: 'env-swanlab-key',
    origin: 'AgentJet ajet/utils/launch_utils.py (verify_python_env)',
    needle: 'SWANLAB_API_KEY is not set',
    re: /SWANLAB_API_KEY is not set/,
    explain: () => ({
      message: t('The config logs to SwanLab (logger: swanlab) but SWANLAB_API_KEY is not set.'),
      fix: t('Set SWANLAB_API_KEY for the launch (a .env file beside the config works), or set `{0}` to tensorboard.', LOGGER),
      action: { env: { name: 'SWANLAB_API_KEY', value: '' }, config: [{ key: LOGGER, value: 'tensorboard' }] },
    }),
  },
  {
    code: 'config-invalid',
    origin: 'omry/omegaconf omegaconf/dictconfig.py (struct mode)',
    needle: 'is not in struct',
    re: /Key '([^']+)' is not in struct/,
    explain: (m) => ({
      message: t('The config sets `{0}`, a key the framework does not have (struct mode refuses new keys).', m[1]!),
      fix: t(
        "Fix the key's spelling or section in the config (the editor marks unknown keys), or remove it; a command-line override of a new key needs a leading + ({0}).",
        `+${m[1]!}=...`,
      ),
    }),
  },
  {
    code: 'config-invalid',
    origin: 'facebookresearch/hydra hydra/_internal/config_loader_impl.py',
    needle: 'Could not override',
    re: /Could not override '([^']+)'/,
    explain: (m) => ({
      message: t('Hydra could not override `{0}`: no such key in the config.', m[1]!),
      fix: t(
        "Fix the key's spelling or section in the config (the editor marks unknown keys), or remove it; a command-line override of a new key needs a leading + ({0}).",
        `+${m[1]!}=...`,
      ),
    }),
  },
  {
    code: 'config-invalid',
    origin: 'AgentJet ajet/backbone/trainer_verl.py (_validate_config)',
    needle: 'must be divisible by minimal possible batch size',
    re: /real_train_batch_size \((\d+)\) must be divisible by minimal possible batch size \((\d+)\)/,
    explain: (m) => ({
      message: t('train_batch_size × num_repeat ({0}) is not a multiple of the number of GPUs ({1}).', m[1]!, m[2]!),
      fix: t('Make `ajet.data.train_batch_size` × `ajet.rollout.num_repeat` a multiple of {0} (n_gpus_per_node × nnodes).', m[2]!),
      action: { config: [{ key: 'ajet.data.train_batch_size', value: Number(m[2]) }] },
    }),
  },
  {
    code: 'config-invalid',
    origin: 'AgentJet ajet/utils/config_utils.py (check_config_conflicts)',
    needle: 'configuration conflict between AgentJet and Verl',
    re: /configuration conflict between AgentJet and Verl/,
    more: 6,
    explain: () => ({
      message: t('The config sets verl keys that AgentJet also sets, to different values.'),
      fix: t('Set these through their `ajet.` keys instead (the lines below name them), and remove the verl ones.'),
    }),
  },
  {
    code: 'config-invalid',
    origin: 'AgentJet ajet/utils/config_utils.py (align_parameter_safe_guard)',
    needle: 'LoRA training (lora_rank=',
    re: /LoRA training \(lora_rank=(\d+)\) requires (\w+)\s*=\s*'?(\w+)'?.*?Please set `([^`]+)`/,
    explain: (m) => ({
      message: t('LoRA training (lora_rank={0}) needs {1}={2}.', m[1]!, m[2]!, m[3]!),
      fix: t('Set `{0}` in the config.', m[4]!),
    }),
  },
  {
    code: 'dataset-missing',
    origin: 'AgentJet ajet/task_reader/jsonl_reader.py',
    needle: 'JSONL file not found',
    re: /JSONL file not found: (.+)/,
    explain: (m) => ({
      message: t('The dataset file {0} does not exist.', m[1]!.trim()),
      fix: t(
        'Point `{0}` at an existing file (a relative path is read from the folder the launch runs in).',
        'ajet.task_reader.jsonl_dataset_file.*.file_path',
      ),
    }),
  },
  {
    code: 'dataset-missing',
    origin: 'huggingface/datasets src/datasets/load.py (DatasetNotFoundError)',
    needle: 'DatasetNotFoundError',
    re: /DatasetNotFoundError: Dataset '([^']+)'/,
    explain: (m) => ({
      message: t('The dataset {0} was not found on the Hugging Face Hub or could not be read.', m[1]!),
      fix: t(
        'Check `{0}` (a Hub name or a local folder), and HF_TOKEN / HF_ENDPOINT when the dataset is gated or mirrored.',
        'ajet.task_reader.huggingface_dat_repo.dataset_path',
      ),
    }),
  },
  {
    code: 'dataset-missing',
    origin: 'huggingface/datasets src/datasets/data_files.py',
    needle: 'Unable to find',
    re: /FileNotFoundError: Unable to find '([^']+)'/,
    explain: (m) => ({
      message: t('The dataset file {0} does not exist.', m[1]!),
      fix: t(
        'Check `{0}` (a Hub name or a local folder), and HF_TOKEN / HF_ENDPOINT when the dataset is gated or mirrored.',
        'ajet.task_reader.huggingface_dat_repo.dataset_path',
      ),
    }),
  },
  {
    code: 'dataset-missing',
    origin: 'CPython open() (FileNotFoundError, ENOENT) of a data file',
    needle: 'No such file or directory',
    re: /FileNotFoundError: \[Errno 2\] No such file or directory: '([^']+\.(?:parquet|jsonl|json|csv|arrow))'/,
    explain: (m) => ({
      message: t('The dataset file {0} does not exist.', m[1]!),
      fix: t("Point the config's data path at an existing file (a relative path is read from the folder the launch runs in)."),
    }),
  },
];
