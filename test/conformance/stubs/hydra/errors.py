"""`hydra.errors` as far as AgentJet uses it: 0.0.4's config_utils.py does `import hydra.errors` and
catches `MissingConfigException` around `compose` (a defaults entry that is on no search path)."""


class HydraException(Exception):
    pass


class MissingConfigException(IOError, HydraException):
    def __init__(self, message, missing_cfg_file=None, options=None):
        super().__init__(message)
        self.missing_cfg_file = missing_cfg_file
        self.options = options
