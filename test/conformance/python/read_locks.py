"""Asks the real beast-logger which process each lock text names: for every sample (hex bytes on
stdin, a JSON list), writes it as <dir>/.logger_lock and runs beast_logger.register.install_lock_file,
with os.kill replaced by a recorder (so nothing is signalled): the pid it would check, or None when it
reads none (empty text, or int() refused it). Prints READ <json list>.

usage: read_locks.py <beast_logger_dir> <dir>
"""
import json
import os
import sys

bl_dir, lock_dir = sys.argv[1:3]
sys.path.insert(0, bl_dir)
import beast_logger.register as reg  # noqa: E402

asked = []


def recorder(pid, sig):
    asked.append(pid)
    raise OSError("not signalled by the test")


reg.os.kill = recorder
reg.LoggerConfig.register_kwargs = {"base_log_path": lock_dir}
out = []
lock = os.path.join(lock_dir, ".logger_lock")
for h in json.load(sys.stdin):
    with open(lock, "wb") as f:
        f.write(bytes.fromhex(h))
    asked.clear()
    try:
        reg.install_lock_file()
        out.append(asked[0] if asked else None)
    except (ValueError, UnicodeDecodeError):
        out.append(None)
print("READ " + json.dumps(out))
