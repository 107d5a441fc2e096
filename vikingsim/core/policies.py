"""Policies as data: a policy is chosen by name with parameters, ``lookahead`` or
``lookahead(settle_value=10, miss_cost=4)`` on the command line, or a TOML file::

    # my_policy.toml
    name = "lookahead"
    settle_value = 10

Each game declares its policies as frozen dataclasses (parameters as fields, ideally made with
``core.options.rule`` so each has help and a range) in a registry ``{name: class}``
(``GameSpec.policy_types``). :func:`parse` turns a text into ``(name, {param: value})``,
:func:`build` validates it like options and returns the policy object, and :func:`label`
gives the canonical text recorded in summaries and manifests (just the name when every
parameter is at its default, so plain names read as before).
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from vikingsim.core.errors import InputError
from vikingsim.core.options import Option, option_of

_CALL = re.compile(r"^\s*([A-Za-z_][\w\-+]*)\s*(?:\((.*)\))?\s*$", re.S)   # wall+cautious


def parse(text) -> tuple[str, dict]:
    """``"name"``, ``"name(k=v, ...)"`` or a path ending in ``.toml`` -> (name, params)."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"policy must be a name, name(key=value, ...) or a .toml file, "
                         f"got {text!r}")
    if text.strip().endswith(".toml"):
        return _parse_toml(Path(text.strip()))
    m = _CALL.match(text)
    if m is None:
        raise InputError(f"policy {text!r}: expected name or name(key=value, ...)")
    params = {}
    for item in filter(None, (p.strip() for p in (m.group(2) or "").split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"policy {text!r}: parameter {item!r} is not key=value")
        if key.strip() in params:
            raise InputError(f"policy {text!r}: parameter {key.strip()!r} given twice")
        params[key.strip()] = value.strip()
    return m.group(1), params


def _parse_toml(path: Path) -> tuple[str, dict]:
    import tomllib

    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"cannot read policy file {str(path)!r}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"policy file {str(path)!r} is not valid TOML: {e}") from None
    name = data.pop("name", None)
    if not isinstance(name, str):
        raise InputError(f"policy file {str(path)!r}: needs name = \"<policy>\"")
    return name, data


def param_options(cls) -> dict[str, Option]:
    """The parameters of a policy dataclass as Options (plain fields get their type from
    the default and no range)."""
    out = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        o = option_of(f) or Option(f.name, _plain_kind(f.default), f.default)
        out[o.name] = o
    return out


def _plain_kind(default) -> str:
    if isinstance(default, bool):
        return "bool"
    return {int: "int", float: "float"}.get(type(default), "str")


def build(game: str, registry: dict, text):
    """A validated policy object from a policy text (InputError naming the problem)."""
    name, given = parse(text)
    if name not in registry:
        raise InputError(f"unknown policy {name!r} for {game}; allowed: {', '.join(registry)}")
    cls = registry[name]
    opts = param_options(cls)
    kw = {}
    for key, value in given.items():
        if key not in opts:
            raise InputError(f"policy {name} has no parameter {key!r}; parameters: "
                             f"{', '.join(opts) or 'none'}")
        o = opts[key]
        if o.kind == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        try:
            kw[key] = o.convert(value)
        except InputError as e:
            raise InputError(f"policy {name}: {e}".replace("option ", "parameter ")) from None
    try:
        return cls(**kw)
    except (TypeError, ValueError) as e:
        raise InputError(f"policy {text!r}: {e}") from None


def forbid_names(text, allowed, game: str, *, what: str = "element",
                 listed: str = "elements") -> tuple[str, ...]:
    """Restricted play's ``forbid`` parameter, shared by every game's policies: names joined
    by "+" ("" = nothing forbidden) -> the names in order; InputError (one line listing
    ``allowed``) for a name not in ``allowed``."""
    names = tuple(filter(None, (x.strip() for x in str(text).split("+"))))
    bad = [x for x in names if x not in allowed]
    if bad:
        raise InputError(f"forbid: unknown {what} {bad[0]!r} for {game}; {listed}: "
                         f"{', '.join(allowed)}")
    return names


def label(name: str, policy) -> str:
    """Canonical text of a policy: its name, plus the parameters that differ from defaults."""
    changed = [f"{f.name}={getattr(policy, f.name)!r}".replace("'", "")
               for f in dataclasses.fields(policy)
               if f.init and getattr(policy, f.name) != f.default]
    return f"{name}({', '.join(changed)})" if changed else name
