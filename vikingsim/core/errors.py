"""Errors that reach the user as one line and exit code 2."""


class InputError(ValueError):
    """Bad user input: unknown game/option/policy, wrong type, out-of-range value, bad path."""


class PolicyError(RuntimeError):
    """A policy made an illegal choice (a bug in the policy, not in the input)."""


def warn(message: str) -> None:
    """One line on stderr, prefixed ``vikingsim: warning:`` (a run goes on; input errors stop)."""
    import sys

    print(f"vikingsim: warning: {message}", file=sys.stderr)
