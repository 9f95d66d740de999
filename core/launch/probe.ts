// The preflight probe: one short Python process that reports, as one JSON line, the interpreter,
// its debugpy version, which of the launcher modules the installed package really has, and who
// holds the vLLM port. Kept as a string so the bundles carry it;
// argv: <candidate modules, comma-separated> <port, 0 = no check> <wantDebugpy 0|1>.
export const PROBE_SCRIPT = String.raw`
import json, os, socket, sys
out = {"python": sys.executable, "version": sys.version.split()[0], "debugpy": None, "debugpyError": None,
       "framework": {"module": None, "candidates": sys.argv[1].split(","), "ok": False, "file": None, "error": None},
       "port": {"port": int(sys.argv[2]), "inUse": False, "holderPid": None, "holderPgid": None, "holderArgs": None}}
if sys.argv[3] == "1":
    try:
        import importlib.util as _u
        spec = _u.find_spec("debugpy")
        if spec is None:
            out["debugpyError"] = "No module named 'debugpy'"
        else:
            import debugpy
            out["debugpy"] = getattr(debugpy, "__version__", "0")
    except Exception as e:
        out["debugpyError"] = "%s: %s" % (type(e).__name__, e)
if os.getcwd() not in sys.path:
    sys.path.insert(0, os.getcwd())
errors = []
import importlib.machinery as _m
def _locate(name):
    # Finds the module file without importing anything: importing the ajet package runs its __init__ (Ray,
    # OpenAI, ... seconds), and the launcher reports its own import errors anyway.
    parts = name.split(".")
    spec = _m.PathFinder.find_spec(parts[0])
    for part in parts[1:]:
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = _m.PathFinder.find_spec(part, list(spec.submodule_search_locations))
    return spec
for name in out["framework"]["candidates"]:
    try:
        spec = _locate(name)
    except Exception as e:
        errors.append("%s: %s" % (type(e).__name__, e))
        continue
    if spec is None:
        errors.append("No module named '%s'" % name)
        continue
    out["framework"].update({"module": name, "ok": True, "file": spec.origin})
    break
if not out["framework"]["ok"]:
    out["framework"]["error"] = "; ".join(dict.fromkeys(errors))
port = out["port"]["port"]
if port:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.3)
    try:
        out["port"]["inUse"] = s.connect_ex(("127.0.0.1", port)) == 0
    finally:
        s.close()
if out["port"]["inUse"]:
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
    if inodes and os.path.isdir("/proc"):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                fds = os.listdir("/proc/%s/fd" % pid)
            except OSError:
                continue
            hit = False
            for fd in fds:
                try:
                    if os.readlink("/proc/%s/fd/%s" % (pid, fd)) in inodes:
                        hit = True
                        break
                except OSError:
                    pass
            if hit:
                out["port"]["holderPid"] = int(pid)
                try:
                    out["port"]["holderPgid"] = os.getpgid(int(pid))
                    with open("/proc/%s/cmdline" % pid, "rb") as f:
                        out["port"]["holderArgs"] = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:300]
                except OSError:
                    pass
                break
print("AGENTJET_PROBE " + json.dumps(out))
`;
