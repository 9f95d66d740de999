"""transformers stub: AutoTokenizer for a model that does not exist here. A byte-level tokenizer
(id = byte + 2; 0 pad, 1 eos) with a plain chat template, enough for AgentJet's context tracker to
tokenize messages. The vLLM stub answers with the same ids. Other transformers names AgentJet
imports at module level come from the placeholders in ../sitecustomize.py."""
__version__ = "0.0.0-agentjet-vscode-stub"


class _Ids(list):
    """A row of ids that answers `.tolist()`, as a `return_tensors="pt"` row does."""

    def tolist(self):
        return list(self)


class _ByteTokenizer:
    pad_token_id = 0
    eos_token_id = 1
    pad_token = "<pad>"
    eos_token = "<eos>"

    def __init__(self, name):
        self.name_or_path = name

    def encode(self, text, add_special_tokens=False, **_):
        return [b + 2 for b in str(text).encode("utf-8")]

    def decode(self, ids, skip_special_tokens=False, **_):
        if isinstance(ids, int):
            ids = [ids]
        return bytes(int(i) - 2 for i in ids if int(i) >= 2).decode("utf-8", "replace")

    def __call__(self, text, return_tensors=None, **_):
        ids = self.encode(text)
        return {"input_ids": [_Ids(ids)] if return_tensors else ids}

    def apply_chat_template(self, conversation, tools=None, add_generation_prompt=False, tokenize=True, **_):
        text = "".join("<|%s|>%s\n" % (m.get("role", ""), m.get("content") or "") for m in conversation)
        if add_generation_prompt:
            text += "<|assistant|>"
        return self.encode(text) if tokenize else text


class AutoTokenizer:
    @staticmethod
    def from_pretrained(name, *args, **kwargs):
        return _ByteTokenizer(name)
