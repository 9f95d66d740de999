"""Runs the real AgentJet / ASTuner experiment preparation and the real beast-logger registration,
then ends the way a scenario asks (clean, crash, SIGKILL, hold until stdin closes).

Called by test/conformance/runs-*.test.ts with one JSON argument:
  version      "agentjet" | "agentjet-0.0.4" | "astuner-2025-12" | "astuner-2025-11"
  tree         path of the upstream source tree for that version
  beast        path of the beast-logger tree
  config       YAML given to the launcher (prepare step) or None
  expDir       --exp-dir value (None: the version's default)
  experiment   experiment name when there is no prepare step
  steps        rollout steps to log (records through beast-logger's print_nested)
  note         write AgentJet's harmless "Prompt token ids mismatch" exception note
  end          "clean" | "crash" | "sigkill" | "hold"
  sessionTime  "YYYY-mm-ddTHH:MM": pins datetime.now() so two processes share a session minute
  stepDelay    seconds between steps (default 0: all at once)
  keepStepping with end "hold": go on logging a step every stepDelay until stdin closes

What is not the upstream code here (and why) is listed in test/conformance/stubs/README.md.
"""
import datetime as _dt
import json
import os
import signal
import sys
import types

args = json.loads(sys.argv[1])
tree = args["tree"]
sys.path.insert(0, args["beast"])
sys.path.insert(0, tree)
pkg = {"agentjet": "ajet", "agentjet-0.0.4": "ajet", "astuner-2025-12": "astuner", "astuner-2025-11": "astuner"}[args["version"]]


def shell_package(name):
    """Registers a package without running its __init__ (which imports the GPU stack); submodules load for real."""
    mod = types.ModuleType(name)
    mod.__path__ = [os.path.join(tree, *name.split("."))]
    sys.modules[name] = mod


for p in (pkg, f"{pkg}.utils", f"{pkg}.backbone"):
    shell_package(p)

if args.get("sessionTime"):
    fixed = _dt.datetime.strptime(args["sessionTime"], "%Y-%m-%dT%H:%M")

    class _Pinned(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    _dt.datetime = _Pinned

exp_name = args.get("experiment")
# 0.0.4 hands init_parallel_rollout_logger the experiment folder (`{exp_base_dir}/{exp_name}`, which
# prepare_experiment_config passes to read_ajet_hierarchical_config as experiment_dir); January took the name.
experiment_dir = None
if args.get("config"):
    try:
        import hydra  # noqa: F401
    except ImportError:
        # Hydra is not installable here; config_utils imports it at module level. The composition it
        # does (read_*_hierarchical_config / expand_*) is replaced below, so these are never called.
        hydra = types.ModuleType("hydra")

        def _unavailable(*a, **k):
            raise RuntimeError("hydra is not available in the conformance environment")

        hydra.compose = _unavailable
        hydra.initialize = _unavailable
        hydra.__path__ = []
        # 0.0.4's config_utils also does `import hydra.errors` (for MissingConfigException).
        errors = types.ModuleType("hydra.errors")
        errors.MissingConfigException = type("MissingConfigException", (IOError,), {})
        hydra.errors = errors
        sys.modules["hydra"] = hydra
        sys.modules["hydra.errors"] = errors
    try:
        import best_logger  # noqa: F401
    except ImportError:
        # ASTuner of Nov 2025 imports the logging library under its former name (best_logger).
        import beast_logger

        sys.modules["best_logger"] = beast_logger
    import importlib

    cu = importlib.import_module(f"{pkg}.utils.config_utils")
    # Hydra composition of the defaults is not what these scenarios check: keep the raw YAML.
    def _read_hierarchical(yaml_fp, *a, **k):
        global experiment_dir
        experiment_dir = k.get("experiment_dir")
        return {}

    for fn in ("read_ajet_hierarchical_config", "read_astune_hierarchical_config"):
        if hasattr(cu, fn):
            setattr(cu, fn, _read_hierarchical)
    for fn in ("expand_ajet_hierarchical_config", "expand_astune_hierarchical_config"):
        if hasattr(cu, fn):
            setattr(cu, fn, lambda config, write_to=None: config)
    default_dir = {"agentjet": "saved_experiments", "agentjet-0.0.4": "saved_experiments", "astuner-2025-12": "saved_experiments", "astuner-2025-11": "launcher_record"}[args["version"]]
    out = cu.prepare_experiment_config(os.path.abspath(args["config"]), args.get("expDir") or default_dir, "debug")
    exp_name = out[2]

import importlib

if args["version"] == "astuner-2025-11":
    wu = importlib.import_module("astuner.backbone.common_warm_up")
else:
    wu = importlib.import_module(f"{pkg}.backbone.warm_up")
if args["version"] == "agentjet-0.0.4":
    wu.init_parallel_rollout_logger(experiment_dir or f"{args.get('expDir') or 'saved_experiments'}/{exp_name}")
else:
    wu.init_parallel_rollout_logger(exp_name)

from beast_logger import NestedJsonItem, SeqItem, print_dict, print_nested  # noqa: E402
from loguru import logger  # noqa: E402

import time  # noqa: E402


def log_step(step):
    reward = 0.5 if step % 2 else 1.0
    print_nested(
        {f"t{step}.{reward}.0": NestedJsonItem(item_id="item", outcome=str(reward), len_prompt_ids=2, len_response_ids=1, len_input_ids=3,
                                              raw_reward=f"{reward:.3f}", step_reward=f"{reward:.3f}", step_advantage="0.000", step_advantage_simple="0.000",
                                              content=SeqItem(text=["a", "b", "c"], title=["N/A", "N/A", "-0.1"], count=["1", "2", "3"], color=["#D98510", "#D98510", "#09ABCF"]))},
        main_content="This is the main content of the nested JSON",
        header=f"[{step}] Task t{step} (Reward {reward:.3f})",
        mod="rollout",
        narrow=False,
        attach="copy this",
    )
    logger.info(f"step {step} done")


delay = float(args.get("stepDelay", 0))
for step in range(1, int(args.get("steps", 0)) + 1):
    if step > 1 and delay:
        time.sleep(delay)
    log_step(step)

if args.get("note"):
    # The call ajet/context_tracker/multiagent_tracking.py makes (ensure_retokenization_perfect_match)
    # when token ids differ although the text matches; training goes on.
    print_dict({"expected_token_ids": [1, 2, 3], "current_token_ids": [1, 2, 4]}, mod="exception", header="Prompt token ids mismatch, Please report a github issue")

logger.complete()
print(f"DRIVER pid={os.getpid()} log={os.environ.get('BEST_LOGGER_PATH')} experiment={exp_name}", flush=True)

end = args.get("end", "clean")
if end == "crash":
    raise RuntimeError("simulated failure in the middle of training")
if end == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
if end == "hold":
    print("DRIVER holding", flush=True)
    if args.get("keepStepping") and delay:
        import threading

        closed = threading.Event()
        threading.Thread(target=lambda: (sys.stdin.read(), closed.set()), daemon=True).start()
        step = int(args.get("steps", 0))
        while not closed.wait(delay):
            step += 1
            log_step(step)
    else:
        sys.stdin.read()
