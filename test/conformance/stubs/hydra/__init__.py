"""Stub of Hydra (hydra-core is not installable here): just the composition AgentJet uses.

AgentJet calls `initialize(config_path=...)` + `compose(config_name=...)` (ajet/utils/config_utils.py)
and `@hydra.main(...)` with `--config-path DIR --config-name FILE` (ajet/backbone/main_*.py). Its
configs use a flat `defaults:` list of names (`verl_default`, `ajet_default`, `_self_`) found in
the primary config's folder or in `hydra.searchpath` (`file://` folders relative to the working
directory). This composes exactly that with the real OmegaConf; no groups, no overrides.
"""
import functools
import os
import sys

import yaml
from omegaconf import OmegaConf

__version__ = "0.0.0-agentjet-vscode-stub"

_config_dir = [None]


def _find(name, folders):
    for folder in folders:
        for candidate in (name, name + ".yaml"):
            p = os.path.join(folder, candidate)
            if os.path.isfile(p):
                return p
    from hydra.errors import MissingConfigException

    raise MissingConfigException("hydra stub: cannot find config '%s' in %s" % (name, folders), name)


def _compose_file(path):
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    searchpath = []
    for entry in (raw.get("hydra") or {}).get("searchpath") or []:
        folder = entry[len("file://"):] if entry.startswith("file://") else entry
        searchpath.append(os.path.abspath(folder))
    folders = [os.path.dirname(path)] + searchpath
    defaults = raw.pop("defaults", None) or []
    raw.pop("hydra", None)
    merged = OmegaConf.create()
    own = OmegaConf.create(raw)
    placed_self = False
    for entry in defaults:
        if entry == "_self_":
            merged = OmegaConf.merge(merged, own)
            placed_self = True
            continue
        if not isinstance(entry, str):
            raise NotImplementedError("hydra stub: only plain names in defaults lists, got %r" % (entry,))
        merged = OmegaConf.merge(merged, _compose_file(_find(entry, folders)))
    if not placed_self:
        merged = OmegaConf.merge(merged, own)
    return merged


class initialize:
    """Context manager: config_path is relative to the calling module, as in Hydra."""

    def __init__(self, config_path=None, version_base=None, job_name=None):
        caller = sys._getframe(1).f_globals.get("__file__") or os.getcwd()
        base = os.path.dirname(os.path.abspath(caller))
        self._dir = os.path.normpath(os.path.join(base, config_path or "."))
        self._previous = None

    def __enter__(self):
        self._previous = _config_dir[0]
        _config_dir[0] = self._dir
        return self

    def __exit__(self, *exc):
        _config_dir[0] = self._previous
        return False


def compose(config_name=None, overrides=None, return_hydra_config=False):
    if overrides:
        raise NotImplementedError("hydra stub: overrides are not supported")
    if _config_dir[0] is None:
        raise RuntimeError("hydra stub: compose() outside initialize()")
    return _compose_file(_find(config_name, [_config_dir[0]]))


def main(config_path=None, config_name=None, version_base=None):
    """`@hydra.main`: reads `--config-path`/`--config-name` (or `=` forms) from sys.argv."""

    def decorate(fn):
        caller = sys.modules.get(fn.__module__)
        base = os.path.dirname(os.path.abspath(getattr(caller, "__file__", None) or "."))

        @functools.wraps(fn)
        def run():
            folder = os.path.join(base, config_path) if config_path else base
            name = config_name
            argv = sys.argv[1:]
            i = 0
            while i < len(argv):
                arg = argv[i]
                for flag in ("--config-path", "--config-name"):
                    value = None
                    if arg == flag and i + 1 < len(argv):
                        value = argv[i + 1]
                        i += 1
                    elif arg.startswith(flag + "="):
                        value = arg[len(flag) + 1:]
                    if value is not None:
                        if flag == "--config-path":
                            folder = value
                        else:
                            name = value
                i += 1
            return fn(_compose_file(_find(name, [os.path.abspath(folder)])))

        return run

    return decorate
