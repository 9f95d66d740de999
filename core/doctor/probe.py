# AgentJet environment probe, the one Python check of the extension: "AgentJet: Check Environment",
# `agentjet doctor` and the preflight of every launch (F5, Ctrl+F5, tasks, CodeLens).
# Prints one line: AGENTJET_DOCTOR <json>. Imports nothing heavy: packages and launcher modules are
# found with importlib (find_spec + metadata), never imported, so a broken vLLM cannot hang the check
# (importing the ajet package runs its __init__: Ray, OpenAI, ... seconds).
# argv: <vLLM port, 0 = none> [<launcher modules to look for, comma-separated>]
import json
import os
import socket
import sys

try:
    from importlib import metadata as _md
except ImportError:  # Python < 3.8
    _md = None
import importlib.util as _u

# module name -> distribution names to ask for the version
PACKAGES = {
    "ajet": ["AgentJet", "ajet", "agentjet"],
    "astuner": ["AgentScope-Tuner", "astuner"],
    "astune": ["astune"],
    "debugpy": ["debugpy"],
    "vllm": ["vllm"],
    "verl": ["verl", "verl-bundle"],
    "trinity": ["trinity-rft"],
    "ray": ["ray"],
    "torch": ["torch"],
}


def version_of(dists):
    if _md is None:
        return None
    for name in dists:
        try:
            return _md.version(name)
        except Exception:
            continue
    return None


def package(mod, dists):
    found = {"module": mod, "found": False, "version": None, "location": None, "launcher": None, "error": None}
    try:
        spec = _u.find_spec(mod)
    except Exception as e:  # a broken package raises here
        found["error"] = "%s: %s" % (type(e).__name__, e)
        return found
    if spec is None:
        return found
    found["found"] = True
    found["location"] = spec.origin or (list(spec.submodule_search_locations or []) or [None])[0]
    found["version"] = version_of(dists)
    for folder in spec.submodule_search_locations or []:
        launcher = os.path.join(folder, "launcher.py")
        if os.path.isfile(launcher):
            found["launcher"] = launcher
    return found


def locate(name):
    """The module's file, found without importing anything (not even its parent packages)."""
    import importlib.machinery as _m
    parts = name.split(".")
    spec = _m.PathFinder.find_spec(parts[0])
    for part in parts[1:]:
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = _m.PathFinder.find_spec(part, list(spec.submodule_search_locations))
    return spec


def launchers(names):
    """{module: {"file": path or None, "error": why not or None}} for each candidate launcher module."""
    out = {}
    for name in names:
        try:
            spec = locate(name)
        except Exception as e:
            out[name] = {"file": None, "error": "%s: %s" % (type(e).__name__, e)}
            continue
        if spec is None:
            out[name] = {"file": None, "error": "No module named '%s'" % name}
        else:
            out[name] = {"file": spec.origin, "error": None}
    return out


def port_holder(port):
    """pid, process group and command line of the process listening on the port (Linux /proc), or Nones."""
    held = {"holderPid": None, "holderPgid": None, "holderArgs": None}
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add("socket:[%s]" % parts[9])
        except (OSError, StopIteration, IndexError, ValueError):
            pass
    if not inodes or not os.path.isdir("/proc"):
        return held
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) in inodes:
                    break
            except OSError:
                pass
        else:
            continue
        held["holderPid"] = int(pid)
        try:
            held["holderPgid"] = os.getpgid(int(pid))
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                held["holderArgs"] = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:300]
        except OSError:
            pass
        return held
    return held


def port_state(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.3)
    try:
        return s.connect_ex(("127.0.0.1", port)) == 0
    except OSError:
        return False
    finally:
        s.close()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18000
    candidates = [c for c in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if c]
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    out = {
        "python": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
        "packages": {mod: package(mod, dists) for mod, dists in PACKAGES.items()},
        "launchers": launchers(candidates),
        "port": {"port": port, "inUse": bool(port) and port_state(port)},
    }
    if out["port"]["inUse"]:
        out["port"].update(port_holder(port))
    sys.stdout.write("AGENTJET_DOCTOR " + json.dumps(out) + "\n")


main()
