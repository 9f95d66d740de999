# AgentJet environment probe (agentjet-vscode: "AgentJet: Check Environment", `agentjet doctor`).
# Prints one line: AGENTJET_DOCTOR <json>. Imports nothing heavy: packages are found with
# importlib (find_spec + metadata), never imported, so a broken vLLM cannot hang the check.
# argv: <vLLM port>
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
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    out = {
        "python": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
        "packages": {mod: package(mod, dists) for mod, dists in PACKAGES.items()},
        "port": {"port": port, "inUse": port_state(port)},
    }
    sys.stdout.write("AGENTJET_DOCTOR " + json.dumps(out) + "\n")


main()
