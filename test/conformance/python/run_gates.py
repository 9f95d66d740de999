"""Runs a framework's own verify_python_env and check_debugpy_version, taken from its real files,
against stand-in verl / debugpy modules of given versions, and prints what each refuses (JSON).

stdin: {"files": [...], "verl": [...], "debugpy": [...], "backbones": [...], "root": "ajet"}
stdout: {"verify": {backbone: {version: bool}} or null, "debugpy": {version: bool} or null}
(true: the function let it through). Only the two functions are compiled, with their module's
logging and sleeps replaced by no-ops (refusal: the ImportError or
RuntimeError they raise); the decision is the real code's.
"""
import ast
import json
import os
import random
import sys
import types


class _Log:
    def __getattr__(self, _name):
        return lambda *a, **k: None


def _functions(files):
    found = {}
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in ("verify_python_env", "check_debugpy_version"):
                found.setdefault(node.name, (path, node))
    return found


def _compile(path, node):
    ns = {
        "os": os,
        "random": random,
        "sys": sys,
        "time": types.SimpleNamespace(sleep=lambda *_: None),
        "print_dict": lambda *a, **k: None,
        "logger": _Log(),
    }
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), ns)
    return ns[node.name]


def _passes(fn, *args):
    try:
        fn(*args)
        return True
    except (ImportError, RuntimeError):
        # what the launcher raises to refuse; anything else (NameError ...) is this driver's fault
        return False


def main():
    req = json.load(sys.stdin)
    fns = _functions(req["files"])
    out = {"verify": None, "debugpy": None}
    if "verify_python_env" in fns:
        path, node = fns["verify_python_env"]
        fn = _compile(path, node)
        exp_config = {req["root"]: {"trainer_common": {"logger": "tensorboard"}}}
        out["verify"] = {}
        for backbone in req["backbones"]:
            out["verify"][backbone] = {}
            for v in req["verl"]:
                sys.modules["verl"] = types.SimpleNamespace(__version__=v)
                args = types.SimpleNamespace(backbone=backbone)
                call = (args, exp_config) if len(node.args.args) > 1 else (args,)
                out["verify"][backbone][v] = _passes(fn, *call)
    if "check_debugpy_version" in fns:
        path, node = fns["check_debugpy_version"]
        fn = _compile(path, node)
        out["debugpy"] = {}
        for v in req["debugpy"]:
            sys.modules["debugpy"] = types.SimpleNamespace(__version__=v)
            out["debugpy"][v] = _passes(fn)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
