"""Import-time placeholders for GPU / heavy packages that cannot be installed here.

Python imports `sitecustomize` at start-up when this folder is on PYTHONPATH, so the launcher, its
child `python -m ajet.backbone.main_vllm` and the companions all get it. For the top-level
packages in PLACEHOLDERS (and only those), a missing import yields a module whose every attribute
is an inert placeholder class: AgentJet's modules import names from them at module level (type
hints, base classes) that the debug path never uses. Anything the debug path really calls has a
real stub module in this folder instead (see README.md), which takes precedence.
"""
import importlib.abc
import importlib.machinery
import sys
import types

PLACEHOLDERS = {
    "transformers", "torch", "tensordict", "verl", "vllm", "agentscope", "trinity", "datasets",
    "swanlab", "wandb", "tensorboard", "codetiming", "peft", "accelerate", "flash_attn",
}


class _Placeholder(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make(name)

    def __call__(cls, *args, **kwargs):
        return cls

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__


def _any_schema(cls, source, handler):
    # pydantic models declare fields with these types (e.g. vLLM's ChatCompletionRequest).
    from pydantic_core import core_schema
    return core_schema.any_schema()


def _make(name):
    return _Placeholder(name, (), {"__get_pydantic_core_schema__": classmethod(_any_schema)})


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make(name)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _PlaceholderModule(spec.name)
        module.__path__ = []  # a package: submodules resolve through this finder too
        module.__agentjet_vscode_placeholder__ = True
        return module

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in PLACEHOLDERS:
            return None
        # A real installation or a real stub in this folder wins.
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                spec = finder.find_spec(fullname, path, target)
            except Exception:
                spec = None
            if spec is not None:
                return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


sys.meta_path.append(_Finder())


# beast-logger shim. AgentJet 0.0.4 imports `register_console` from beast_logger
# (ajet/utils/launch_utils.py:10, called at :76 to set up the console sink), which only beast-logger
# >= 0.1.8 (May 2026) has; the tests load beast-logger 6ba1ca5 (the newest tree reachable here).
# When the real package lacks it, it is added as a function that keeps loguru's default console
# sink (stderr), so the launcher's lines reach its output as before. Everything else is the real
# beast-logger. A beast-logger that has register_console is left as it is.
class _BeastLoggerShim(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "beast_logger":
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                spec = finder.find_spec(fullname, path, target)
            except Exception:
                spec = None
            if spec is not None and spec.loader is not None:
                spec.loader = _AddRegisterConsole(spec.loader)
                return spec
        return None


class _AddRegisterConsole(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        if not hasattr(module, "register_console"):
            module.register_console = lambda *args, **kwargs: None


sys.meta_path.insert(0, _BeastLoggerShim())
