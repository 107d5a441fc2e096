"""Flat, typed game options (``--set key=value``): one declaration gives parsing, validation,
defaults and the ``vikingsim games`` listing.

A rule is declared once, as a field of the game's frozen ``Rules`` dataclass made with
:func:`rule` (default, help, rules-notes section, range or choices in the field's metadata);
:func:`options_of` derives the ``Option`` entries from those fields, so no default is written
twice. Options that are not rules (a mode, a warband spec) are plain ``Option(...)`` entries.
Policy parameters are declared the same way on the policy dataclasses.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from vikingsim.core.errors import InputError

_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f"}


@dataclass(frozen=True)
class Option:
    """One named option of a game.

    ``kind`` is ``"int"``, ``"float"``, ``"bool"``, ``"choice"`` or ``"str"``; ``lo``/``hi`` bound
    numbers (inclusive); ``choices`` lists the allowed values of a choice.
    """

    name: str
    kind: str
    default: Any
    help: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple = field(default=())

    def allowed(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.kind == "bool":
            return "true or false"
        lo = "-inf" if self.lo is None else self.lo
        hi = "inf" if self.hi is None else self.hi
        return f"{'an integer' if self.kind == 'int' else 'a number'} in [{lo}, {hi}]"

    def convert(self, value: Any) -> Any:
        """Parse (strings from the CLI) or check (Python values) one value; raise InputError."""
        bad = f"option {self.name}={value!r}: must be {self.allowed()}"
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, (int,)) and value in (0, 1):
                return bool(value)
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise InputError(bad)
        if self.kind == "choice":
            v = value.strip() if isinstance(value, str) else value
            if v not in self.choices:
                raise InputError(bad)
            return v
        if self.kind == "str":
            if not isinstance(value, str):
                raise InputError(bad)
            return value
        if isinstance(value, bool):
            raise InputError(bad)
        try:
            if self.kind == "int":
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                v = int(value) if not isinstance(value, str) else int(value.strip(), 10)
            else:
                v = float(value)
        except (TypeError, ValueError):
            raise InputError(bad) from None
        if v != v or (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            raise InputError(bad)
        return v

    def describe(self) -> dict:
        d = {"name": self.name, "type": self.kind, "default": self.default, "help": self.help}
        if self.kind == "choice":
            d["choices"] = list(self.choices)
        elif self.kind in ("int", "float"):
            d["range"] = [self.lo, self.hi]
        return d


def resolve(game: str, options: tuple[Option, ...], given: dict | None) -> dict:
    """Defaults filled in, every given value converted; unknown names raise InputError."""
    known = {o.name: o for o in options}
    out = {o.name: o.default for o in options}
    for key, value in (given or {}).items():
        if key not in known:
            raise InputError(
                f"unknown option {key!r} for {game}; allowed: {', '.join(sorted(known)) or 'none'}"
            )
        out[key] = known[key].convert(value)
    return out


def parse_assignments(items: list[str] | None) -> dict:
    """``["a=1", "b=x"]`` → ``{"a": "1", "b": "x"}``; a malformed item raises InputError."""
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set expects key=value, got {item!r}")
        if key.strip() in out:
            raise InputError(f"--set {key.strip()} given twice ({out[key.strip()]!r} and "
                             f"{value!r}); give each option once")
        out[key.strip()] = value
    return out


def rule(default, help: str, *, section: str = "", lo=None, hi=None, choices=(),
         option: bool = True, name: str | None = None):
    """A dataclass field declaring one rule (or policy parameter) once.

    Parameters
    ----------
    default : bool, int, float or str
        The rules notes' DEFAULT reading; its type is the option's type (a str with
        ``choices`` is a choice).
    help : str
        One line for ``vikingsim games``.
    section : str
        Where the rule is in the rules notes (``"§6.4"``, ``"SEED §1.4"``); appended to help.
    lo, hi : number, optional
        Inclusive bounds of a number.
    choices : tuple of str
        Allowed values of a choice.
    option : bool
        False for a rule constant that is not exposed as a ``--set`` option.
    name : str, optional
        Option name when it differs from the field name.
    """
    meta = {"help": help, "section": section, "lo": lo, "hi": hi, "choices": tuple(choices),
            "option": option, "name": name}
    return field(default=default, metadata={"vikingsim": meta})


def _kind(default, choices) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    return "choice" if choices else "str"


def option_of(f: dataclasses.Field) -> Option | None:
    """The Option a :func:`rule` field declares (None for plain fields and option=False)."""
    meta = f.metadata.get("vikingsim")
    if meta is None or not meta["option"]:
        return None
    help = meta["help"]
    if meta["section"] and meta["section"] not in help:
        help = f"{help} ({meta['section']})"
    return Option(meta["name"] or f.name, _kind(f.default, meta["choices"]), f.default, help,
                  meta["lo"], meta["hi"], meta["choices"])


def options_of(cls) -> tuple[Option, ...]:
    """One Option per :func:`rule` field of the dataclass ``cls``, in field order."""
    opts = (option_of(f) for f in dataclasses.fields(cls))
    return tuple(o for o in opts if o is not None)


def field_names(cls) -> dict[str, str]:
    """Option name -> field name for the :func:`rule` fields of ``cls`` that are options."""
    out = {}
    for f in dataclasses.fields(cls):
        o = option_of(f)
        if o is not None:
            out[o.name] = f.name
    return out
