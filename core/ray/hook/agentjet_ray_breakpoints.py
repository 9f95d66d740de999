"""AgentJet for VS Code: editor breakpoints in Ray workers, with no change to the user's code.

The extension puts this file's folder on the launch's PYTHONPATH and sets
RAY_RUNTIME_ENV_HOOK=agentjet_ray_breakpoints.runtime_env_hook. Every ray.init() of the run's
driver (AgentJet's main_verl, trinity's, or any script) then passes its runtime_env through
runtime_env_hook, which adds worker_process_setup_hook=_worker_setup. Ray pickles that function
*by value* into the cluster's GCS, so workers on any node run it at start-up without this file:
they only need debugpy>=1.8. The worker opens a debugpy listener on its node address, does NOT
wait for a client, and prints the line Ray's own debugger prints (plus a marker) to its log; the
extension reads worker logs, attaches to the workers whose task/actor names it wants, and sends
the editor's breakpoints.
"""
import os
import sys

_PREV_HOOK = "AGENTJET_RAY_BP_PREV_HOOK"


def _worker_setup():
    # Runs in every Ray worker process of the job at start-up (pickled by value: keep it
    # self-contained, imports inside).
    import os as _os
    import sys as _sys

    # The "frozen modules" notice would otherwise fill every worker's log.
    _os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        import debugpy
    except ImportError:
        print(
            "AgentJet: editor breakpoints: debugpy>=1.8 is not installed in this worker's environment",
            file=_sys.stderr,
            flush=True,
        )
        return
    try:
        import ray

        worker = ray._private.worker.global_worker
        host = _os.environ.get("AGENTJET_RAY_BP_HOST") or worker.node_ip_address
        if worker.debugger_port:
            port = worker.debugger_port
        else:
            # Not as a subprocess: debugpy's adapter would otherwise follow nothing we want.
            host, port = debugpy.listen((host, 0))
            # Ray's own breakpoint()/bp() then reuses this listener instead of opening another.
            worker.set_debugger_port(port)
        shown = "[%s]" % host if ":" in host else host
        print(
            "Ray debugger is listening on %s:%d %s" % (shown, port, "(agentjet: editor breakpoints, not waiting)"),
            file=_sys.stderr,
            flush=True,
        )
    except Exception as e:  # never break the worker
        print("AgentJet: editor breakpoints: no listener in this worker: %r" % (e,), file=_sys.stderr, flush=True)
    prev = _os.environ.get("AGENTJET_RAY_BP_USER_SETUP")
    if prev:
        import importlib

        mod, _, fn = prev.rpartition(".")
        getattr(importlib.import_module(mod), fn)()


def runtime_env_hook(runtime_env):
    """RAY_RUNTIME_ENV_HOOK: called by ray.init() in the driver with the job's runtime_env."""
    prev = os.environ.get(_PREV_HOOK)
    if prev:
        import importlib

        mod, _, fn = prev.rpartition(".")
        runtime_env = getattr(importlib.import_module(mod), fn)(runtime_env)
    env = dict(runtime_env or {})
    env_vars = dict(env.get("env_vars") or {})
    user_setup = env.get("worker_process_setup_hook")
    if isinstance(user_setup, str):
        env_vars["AGENTJET_RAY_BP_USER_SETUP"] = user_setup
    elif user_setup is not None:
        print("AgentJet: editor breakpoints: the job already has a worker_process_setup_hook; left as it is", file=sys.stderr)
        return env
    for k in ("AGENTJET_RAY_BP_HOST",):
        if os.environ.get(k):
            env_vars[k] = os.environ[k]
    env["env_vars"] = env_vars
    try:
        from ray import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    except Exception:
        pass
    env["worker_process_setup_hook"] = _worker_setup
    print("AgentJet: editor breakpoints: Ray workers of this job open a debugpy listener at start-up", file=sys.stderr, flush=True)
    return env
