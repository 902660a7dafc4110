"""Exceptions raised by the engine.

``InputError``   bad input: unknown model, out-of-range value (CLI exit code 2).
``DesignError``  a well-formed design that cannot be built (CLI exit code 3);
                 its message says why and what would work.
"""


class FabricPlannerError(Exception):
    """Base class of every error the engine raises on purpose."""


class InputError(FabricPlannerError, ValueError):
    """Input that is malformed or names something unknown."""


class DesignError(FabricPlannerError):
    """A design that cannot be built as asked.

    Parameters
    ----------
    message : str
        What is wrong, in one sentence.
    suggestion : str
        What would work instead (e.g. "set tiers to auto").
    """

    def __init__(self, message: str, suggestion: str = "") -> None:
        self.message = message
        self.suggestion = suggestion
        super().__init__(f"{message} {suggestion}".strip())
