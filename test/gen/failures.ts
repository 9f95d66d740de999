// Failure logs made from the real messages of the programs an AgentJet run goes through, each with
// where the message is printed (`origin`: repository and file), the cause code it must get and the
// 1-based line of its evidence. The surrounding lines are the ordinary output of a run (loguru,
// Ray's `(Actor pid=N)` prefixes, colour codes), so the classifier has to find the message among them.
// Also the logs of runs that did not fail, which must get no cause.

export interface FailureCase {
  name: string;
  /** Repository and file the failure message comes from. */
  origin: string;
  log: string;
  code: string;
  /** 1-based line of the first evidence line. */
  line: number;
  /** A piece of the cause's message or fix that must be there. */
  says?: RegExp;
  /** The config key / env var / command the fix names. */
  action?: { configKey?: string; configValue?: number | boolean | string; env?: string; command?: RegExp };
}

const PROLOGUE = [
  '\x1b[32m2026-12-06 14:02:11.532\x1b[0m | \x1b[1mINFO    \x1b[0m | ajet.launcher:main:201 - Experiment Name: math_agent',
  '2026-12-06 14:02:12,004\tINFO worker.py:1832 -- Started a local Ray instance. View the dashboard at 127.0.0.1:8265',
  '(TaskRunner pid=40213) step:1 - critic/score/mean:0.125 - timing_s/gen:41.2',
];

/** The log: the prologue, then `lines`; `at` is the 1-based line of `lines[i]`. */
function log(lines: string[]): string {
  return [...PROLOGUE, ...lines].join('\n') + '\n';
}
const at = (i: number) => PROLOGUE.length + 1 + i;

export const FAILURE_CASES: FailureCase[] = [
  {
    name: 'torch CUDA OOM in the actor update',
    origin: 'pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp',
    log: log([
      '(WorkerDict pid=40511) Traceback (most recent call last):',
      '(WorkerDict pid=40511)   File "/opt/venv/lib/python3.10/site-packages/verl/workers/actor/dp_actor.py", line 412, in update_policy',
      '(WorkerDict pid=40511)     loss.backward()',
      '(WorkerDict pid=40511) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 3 has a total capacity of 79.25 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.21 GiB memory in use.',
    ]),
    code: 'cuda-oom',
    line: at(3),
    says: /2\.50 GiB/,
    action: { configKey: 'ajet.rollout.gpu_memory_utilization', configValue: 'lower' },
  },
  {
    name: 'vLLM: no memory for the KV cache blocks',
    origin: 'vllm-project/vllm vllm/worker/worker.py (raise_if_cache_size_invalid)',
    log: log([
      'ERROR 12-06 14:03:40 engine.py:366] Error in model execution',
      'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.',
    ]),
    code: 'cuda-oom',
    line: at(1),
    action: { configKey: 'ajet.rollout.gpu_memory_utilization', configValue: 'raise' },
  },
  {
    name: 'vLLM: max_model_len larger than the KV cache (v0 worker)',
    origin: 'vllm-project/vllm vllm/worker/worker.py (raise_if_cache_size_invalid)',
    log: log([
      "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (22032). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ]),
    code: 'cuda-oom',
    line: at(0),
    says: /22032/,
    action: { configKey: 'ajet.rollout.max_model_len', configValue: 22032 },
  },
  {
    name: 'vLLM v1: one request of max_model_len does not fit',
    origin: 'vllm-project/vllm vllm/v1/core/kv_cache_utils.py (check_enough_kv_cache_memory)',
    log: log([
      "(EngineCore_DP0 pid=18799) ERROR 10-08 20:33:48 [core.py:708] ValueError: To serve at least one request with the models's max seq len (40960), (5.62 GiB KV cache is needed, which is larger than the available KV cache memory (4.50 GiB). Based on the available memory, the estimated maximum model length is 32768. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ]),
    code: 'cuda-oom',
    line: at(0),
    action: { configKey: 'ajet.rollout.max_model_len', configValue: 32768 },
  },
  {
    name: "Ray's memory monitor kills a worker",
    origin: 'ray-project/ray src/ray/raylet/node_manager.cc (memory monitor)',
    log: log([
      'ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.',
      'Memory on the node (IP: 172.17.0.2, ID: 90efe99b) where the task (task ID: a675, name=allocate_memory, pid=91085, memory used=24.99GB) was running was 32.62GB / 33.28GB (0.980175), which exceeds the memory usage threshold of 0.95.',
    ]),
    code: 'host-oom',
    line: at(0),
    action: { configKey: 'ajet.rollout.max_env_worker', configValue: 'lower' },
  },
  {
    name: "Ray's memory monitor, several workers (raylet.out form)",
    origin: 'ray-project/ray src/ray/raylet/node_manager.cc (memory monitor)',
    log: log([
      '[2026-12-06 14:05:01,223 I 40100 40100] (raylet) node_manager.cc:3212: 2 worker(s) were killed due to the node running low on memory. Memory on the node (IP: 10.0.0.5) was 110.69GB / 124.35GB (0.890161)',
    ]),
    code: 'host-oom',
    line: at(0),
  },
  {
    name: "the kernel's OOM killer",
    origin: 'torvalds/linux mm/oom_kill.c',
    log: log([
      '[18492.104] Memory cgroup out of memory: Killed process 4182 (python) total-vm:812044kB, anon-rss:518420kB, file-rss:1240kB',
    ]),
    code: 'host-oom',
    line: at(0),
    says: /4182/,
  },
  {
    name: "NCCL unhandled cuda error (AgentJet's hardware notes)",
    origin: 'pytorch/pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp; AgentJet docs/en/hardware_related_solution.md',
    log: log([
      'Traceback (most recent call last):',
      '  File "/root/AgentJet/.venv/lib/python3.10/site-packages/torch/distributed/utils.py", line 322, in _sync_params_and_buffers',
      '    dist._broadcast_coalesced(',
      'torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2',
      'ncclUnhandledCudaError: Call to CUDA function failed.',
      'Last error:',
      "Cuda failure 1 'invalid argument'",
    ]),
    code: 'nccl',
    line: at(3),
    action: { env: 'NCCL_NVLS_ENABLE' },
  },
  {
    name: 'NCCL watchdog timeout',
    origin: 'pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (watchdog)',
    log: log([
      '[rank1]:[E1206 14:20:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1521, OpType=ALLGATHER, NumelIn=1, NumelOut=8, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.',
    ]),
    code: 'nccl',
    line: at(0),
    says: /ALLGATHER/,
  },
  {
    name: 'port in use (uvicorn)',
    origin: 'encode/uvicorn uvicorn/server.py (startup)',
    log: log(["ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use"]),
    code: 'port-in-use',
    line: at(0),
    says: /8000/,
  },
  {
    name: 'port in use (socket.bind)',
    origin: 'CPython Modules/socketmodule.c (OSError from bind, strerror EADDRINUSE)',
    log: log([
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.10/socketserver.py", line 466, in server_bind',
      '    self.socket.bind(self.server_address)',
      'OSError: [Errno 98] Address already in use',
    ]),
    code: 'port-in-use',
    line: at(3),
  },
  {
    name: 'AgentJet refuses the verl version',
    origin: 'AgentJet ajet/utils/launch_utils.py (verify_python_env)',
    log: log([
      '╭──────────────────────────────────────╮',
      "│ Python Environment Check │ FAILED',",
      'Traceback (most recent call last):',
      '  File "/root/AgentJet/ajet/launcher.py", line 262, in main',
      '    verify_python_env(args, exp_config)',
      '  File "/root/AgentJet/ajet/utils/launch_utils.py", line 317, in verify_python_env',
      '    raise ImportError(cause + " " + solution)',
      "ImportError: Python environment does not match current backbone 'verl'. Please `cd /path/to/project/AgentJet` and run `(uv) pip install -e .[verl]` to install the correct environment.",
    ]),
    code: 'env-verl-version',
    line: at(7),
    action: { command: /pip install -e \.\[verl\]/ },
  },
  {
    name: 'AgentJet refuses an old debugpy',
    origin: 'AgentJet ajet/utils/launch_utils.py (check_debugpy_version)',
    log: log([
      'Traceback (most recent call last):',
      '  File "/root/AgentJet/ajet/launcher.py", line 282, in <module>',
      '    check_debugpy_version()',
      '  File "/root/AgentJet/ajet/utils/launch_utils.py", line 103, in check_debugpy_version',
      '    raise RuntimeError(',
      "RuntimeError: debugpy version 1.6.7 is too old. Ray Debugpy Debugger requires 'debugpy>=1.8.0'. Upgrade using 'pip install debugpy>=1.8.0'",
    ]),
    code: 'env-debugpy',
    line: at(5),
    says: /1\.6\.7/,
    action: { command: /debugpy>=1\.8\.0/ },
  },
  {
    name: 'logger: swanlab without SWANLAB_API_KEY',
    origin: 'AgentJet ajet/utils/launch_utils.py (verify_python_env)',
    log: log([
      'ImportError: SWANLAB_API_KEY is not set in the environment. To use the swanlab logger, please set `SWANLAB_API_KEY`. Otherwise, set `ajet.trainer_common.logger=tensorboard`',
    ]),
    code: 'env-swanlab-key',
    line: at(0),
    action: { env: 'SWANLAB_API_KEY', configKey: 'ajet.trainer_common.logger', configValue: 'tensorboard' },
  },
  {
    name: 'OmegaConf struct mode refuses a key',
    origin: 'omry/omegaconf omegaconf/dictconfig.py (struct mode)',
    log: log([
      'Traceback (most recent call last):',
      '  File "/opt/venv/lib/python3.10/site-packages/omegaconf/dictconfig.py", line 375, in _get_impl',
      '    node = self._get_child(key=key, throw_on_missing_key=throw_on_missing_key, validate_key=validate_key)',
      "omegaconf.errors.ConfigAttributeError: Key 'rollout_nmae' is not in struct",
      '    full_key: ajet.rollout_nmae',
    ]),
    code: 'config-invalid',
    line: at(3),
    says: /rollout_nmae/,
  },
  {
    name: 'AgentJet batch size assert',
    origin: 'AgentJet ajet/backbone/trainer_verl.py (_validate_config)',
    log: log(['AssertionError: real_train_batch_size (36) must be divisible by minimal possible batch size (8)']),
    code: 'config-invalid',
    line: at(0),
    action: { configKey: 'ajet.data.train_batch_size' },
  },
  {
    name: 'AgentJet and verl config conflict',
    origin: 'AgentJet ajet/utils/config_utils.py',
    log: log([
      'ValueError: We found a configuration conflict between AgentJet and Verl! Input yaml contains keys that conflict with ajet default config values:',
      "  - Key 'actor_rollout_ref.rollout.gpu_memory_utilization': input_yaml value = 0.7, but ajet config sets it to = 0.85",
      'Please use ajet.xxx to assign training parameters instead.',
    ]),
    code: 'config-invalid',
    line: at(0),
  },
  {
    name: 'JSONL dataset missing',
    origin: 'AgentJet ajet/task_reader/jsonl_reader.py',
    log: log([
      'Traceback (most recent call last):',
      '  File "/root/AgentJet/ajet/task_reader/jsonl_reader.py", line 39, in _read_jsonl_file',
      '    raise ValueError(f"JSONL file not found: {file_path}")',
      'ValueError: JSONL file not found: /data/math/train.jsonl',
    ]),
    code: 'dataset-missing',
    line: at(3),
    says: /\/data\/math\/train\.jsonl/,
  },
  {
    name: 'Hugging Face dataset not found',
    origin: 'huggingface/datasets src/datasets/load.py (DatasetNotFoundError)',
    log: log(["datasets.exceptions.DatasetNotFoundError: Dataset 'openai/gsm8kk' doesn't exist on the Hub or cannot be accessed."]),
    code: 'dataset-missing',
    line: at(0),
  },
  {
    name: 'parquet file missing',
    origin: 'CPython open() (FileNotFoundError, ENOENT)',
    log: log(["FileNotFoundError: [Errno 2] No such file or directory: '/root/data/gsm8k/train.parquet'"]),
    code: 'dataset-missing',
    line: at(0),
  },
  {
    name: "an exception in the user's workflow (Ray prefixes)",
    origin: 'CPython traceback module (the traceback format)',
    log: log([
      '(TaskRunner pid=40213) Traceback (most recent call last):',
      '(TaskRunner pid=40213)   File "/opt/venv/lib/python3.10/site-packages/ajet/task_runner/general_runner.py", line 88, in execute',
      '(TaskRunner pid=40213)     result = workflow.execute(task, tuner)',
      '(TaskRunner pid=40213)   File "/home/me/proj/math_workflow.py", line 57, in execute',
      '(TaskRunner pid=40213)     answer = reply.split("####")[1]',
      '(TaskRunner pid=40213) IndexError: list index out of range',
    ]),
    code: 'workflow-exception',
    line: at(3),
    says: /math_workflow\.py:57/,
  },
];

/** Logs of runs that ended well or are still running: no cause. */
export const CLEAN_LOGS: { name: string; log: string }[] = [
  {
    name: 'a run that steps and saves',
    log: log([
      '(TaskRunner pid=40213) step:2 - critic/score/mean:0.25 - timing_s/gen:40.1',
      '(TaskRunner pid=40213) Saved checkpoint to saved_checkpoints/p/math_agent/global_step_2',
      'INFO 12-06 14:10:00 [gpu_worker.py:276] Available KV cache memory: 31.2 GiB',
      'INFO 12-06 14:10:00 [kv_cache_utils.py:849] GPU KV cache size: 291,456 tokens',
      '2026-12-06 14:12:11.000 | INFO | ajet.launcher:main:300 - training finished',
    ]),
  },
  {
    name: 'warnings that name the same words without failing',
    log: log([
      'WARNING: NCCL_DEBUG is set; NCCL errors will be printed with details',
      '2026-12-06 14:02:11.532 | INFO | ajet.utils.launch_utils:check_debugpy_version:109 - ✓ debugpy version 1.8.14 meets requirement (>=1.8.0)',
      'INFO: memory usage is fine; nothing was killed',
      'To use the swanlab logger, set SWANLAB_API_KEY in your .env',
    ]),
  },
  {
    name: 'a handled exception in library code with a user stop',
    log: log([
      'Traceback (most recent call last):',
      '  File "/home/me/proj/run.py", line 3, in <module>',
      '    main()',
      'KeyboardInterrupt',
    ]),
  },
];
