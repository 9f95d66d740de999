"""Stand-in for Hugging Face `datasets` (not installable here), for "Debug this task" tests only.

load_dataset(path, split=...) reads `<path>/<split>.jsonl`, one row a line, and returns the rows as a
list of dicts (indexable like a Dataset). Used only by the extension's row export
(core/debugTask/prepare.ts); the AgentJet run itself reads the derived JSONL task file.
"""
import json
import os


def load_dataset(path, split=None, name=None, data_files=None, **_):
    folder = path if data_files is None else os.path.dirname(data_files)
    with open(os.path.join(folder, "%s.jsonl" % split), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
