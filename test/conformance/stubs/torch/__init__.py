"""torch stub: no CUDA here. Only what the debug backbone calls before the rollout; every other
torch name AgentJet imports comes from the placeholders in ../sitecustomize.py."""
__version__ = "0.0.0-agentjet-vscode-stub"


class cuda:  # noqa: N801 (mirrors torch.cuda)
    @staticmethod
    def device_count():
        return 0

    @staticmethod
    def is_available():
        return False
