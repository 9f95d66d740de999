"""AgentJet for VS Code: editor breakpoints in Ray workers, with no change to the user's code.

The extension puts this file's folder on the launch's PYTHONPATH and sets
RAY_RUNTIME_ENV_HOOK=agentjet_ray_breakpoints.runtime_env_hook. Every ray.init() of the run's
driver (AgentJet's main_verl, trinity's, or any script) then passes its runtime_env through
runtime_env_hook, which adds worker_process_setup_hook=_worker_setup. Ray pickles that function
*by value* into the cluster's GCS, so workers on any node run it at start-up without this file:
they only need debugpy>=1.8. The worker opens a plain TCP "doorbell" on its node address (no
debugger, so an idle worker runs at full speed) and prints the line Ray's own debugger prints (plus a
marker) to its log; the extension reads worker logs, rings the doorbell of the workers whose
task/actor names it wants (the worker then calls debugpy.listen() and answers its port), attaches
and sends the editor's breakpoints.
"""
import os
import sys

_PREV_HOOK = "AGENTJET_RAY_BP_PREV_HOOK"


def _worker_setup():
    # Runs in every Ray worker process of the job at start-up (pickled by value: keep it
    # self-contained, imports inside). It opens only a "doorbell": a plain TCP listener served by a
    # daemon thread. debugpy is neither imported nor started here, because debugpy.listen() turns
    # pydevd's tracing on for every call (Python < 3.12), with or without a client, which made idle
    # workers several times slower. When the extension wants to attach, it connects and sends
    # "debugpy\n"; only then is debugpy.listen() called, and the answer is its port ("PORT\n").
    import os as _os
    import sys as _sys
    import socket
    import threading

    # The "frozen modules" notice would otherwise fill every worker's log.
    _os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        import importlib.util

        if importlib.util.find_spec("debugpy") is None:
            raise ImportError
    except Exception:
        print(
            "AgentJet: editor breakpoints: debugpy>=1.8 is not installed in this worker's environment",
            file=_sys.stderr,
            flush=True,
        )
        return
    lock = threading.Lock()

    def open_debugpy(worker, host):
        # Ray's own debugger (breakpoint(), bp()) may have opened debugpy already: reuse it.
        with lock:
            if worker.debugger_port:
                return worker.debugger_port
            import debugpy

            _h, port = debugpy.listen((host, 0))
            # Ray's own breakpoint()/bp() then reuses this listener instead of opening another.
            worker.set_debugger_port(port)
            print("AgentJet: editor breakpoints: debugpy listening on port %d (doorbell rung)" % port, file=_sys.stderr, flush=True)
            return port

    # What this worker has run, from the ":task_name:" / ":actor_name:" lines Ray writes to its own
    # log files. On another node the extension cannot read those files, so it asks ("names\n").
    seen = {"names": [], "role": None, "offsets": {}}

    def own_names(worker):
        import glob
        import json

        try:
            logs = ray._private.worker._global_node.get_logs_dir_path()
            wid = worker.worker_id.hex()
        except Exception:
            return json.dumps(seen_answer())
        for path in sorted(glob.glob(_os.path.join(logs, "worker-%s-*-%d.*" % (wid, _os.getpid())))):
            if not (path.endswith(".out") or path.endswith(".err")):
                continue
            try:
                with open(path, "rb") as f:
                    f.seek(seen["offsets"].get(path, 0))
                    data = f.read(1 << 20)
                    # Only whole lines: the rest is read on the next question.
                    end = data.rfind(b"\n") + 1
                    seen["offsets"][path] = f.tell() - len(data) + end
            except Exception:
                continue
            for line in data[:end].decode("utf-8", "replace").splitlines():
                for prefix, role in ((":task_name:", "task"), (":actor_name:", "actor")):
                    if line.startswith(prefix):
                        name = line[len(prefix):].strip()
                        if name and name not in seen["names"] and len(seen["names"]) < 64:
                            seen["names"].append(name)
                        seen["role"] = role
        return json.dumps(seen_answer())

    def seen_answer():
        return {"names": seen["names"], "role": seen["role"], "pid": _os.getpid()}

    def serve(srv, worker, host):
        while True:
            try:
                conn, _addr = srv.accept()
            except Exception:
                return
            try:
                conn.settimeout(10)
                data = b""
                while b"\n" not in data and len(data) < 64:
                    chunk = conn.recv(64)
                    if not chunk:
                        break
                    data += chunk
                if data.strip() == b"debugpy":
                    try:
                        answer = "%d\n" % open_debugpy(worker, host)
                    except Exception as e:
                        answer = "error %r\n" % (e,)
                elif data.strip() == b"names":
                    with lock:
                        answer = "names %s\n" % own_names(worker)
                else:
                    answer = "error unknown request\n"
                conn.sendall(answer.encode("utf-8", "replace"))
            except Exception:
                pass
            finally:
                try:
                    conn.close()
                except Exception:
                    pass

    try:
        import ray

        worker = ray._private.worker.global_worker
        host = _os.environ.get("AGENTJET_RAY_BP_HOST") or worker.node_ip_address
        srv = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        srv.bind((host, 0))
        srv.listen(8)
        port = srv.getsockname()[1]
        t = threading.Thread(target=serve, args=(srv, worker, host), name="agentjet-doorbell", daemon=True)
        # pydevd must not trace this thread once debugpy runs.
        t.pydev_do_not_trace = True
        t.start()
        shown = "[%s]" % host if ":" in host else host
        print(
            "Ray debugger is listening on %s:%d %s" % (shown, port, "(agentjet: editor breakpoints, doorbell)"),
            file=_sys.stderr,
            flush=True,
        )
    except Exception as e:  # never break the worker
        print("AgentJet: editor breakpoints: no doorbell in this worker: %r" % (e,), file=_sys.stderr, flush=True)
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
