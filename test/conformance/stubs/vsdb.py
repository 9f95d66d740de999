"""Stand-in for ajet/utils/vsdb.py, which AgentJet's `ajet/__init__.py` imports
(`from ajet.utils.vsdb import vscode_conditional_breakpoint as bp`) but its .gitignore keeps out of
the repository (line `vsdb.py`), so a clean checkout of d20cce0 cannot `import ajet`. The test
workspace links this file in as ajet/utils/vsdb.py. `bp("TAG")` pauses in the debugger when TAG is
one of the launcher's `--debug` tags (DEBUG_TAGS), as its docs describe; nothing else."""
import os


def vscode_conditional_breakpoint(tag=None, once=True):
    tags = [t for t in os.environ.get("DEBUG_TAGS", "").split("|") if t]
    if tag is not None and tag in tags:
        try:
            import debugpy

            if debugpy.is_client_connected():
                debugpy.breakpoint()
        except ImportError:
            pass
