"""Errors that end a command with exit code 2 and a one-line message instead of a traceback."""


class GpucompatError(Exception):
    """Base class: a problem the user can act on; its text is printed as one line."""

    def lines(self) -> list[str]:
        """The message as the command line prints it: one line, unless an error about several
        things (each of several devices) gives one line to each."""
        return [str(self)]


class ModelError(GpucompatError):
    """A model file that cannot be read or is not a valid TFLite model."""

    def __init__(self, path: str, problem: str):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class GraphError(GpucompatError):
    """A graph whose structure breaks an IR invariant (a cycle, a tensor produced twice, ...)."""
