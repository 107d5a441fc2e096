"""Files a run reads because an option or a policy names them (a warband ``.toml``, ``--params``,
``--catalog``, a policy ``.toml``): their paths and the sha256 of their bytes.

A value names a file when it is a string ending in ``.toml`` (the one convention of every game's
path options and of ``core.policies.parse``). The records enter the results manifest (key
``files``), the rules hash and the study hash, so a run whose input file was edited never
shares a hash with one played before the edit; a run that names no file has no ``files`` key
and keeps the hash it always had.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from vikingsim.core.errors import InputError


def names_file(value) -> bool:
    """Whether an option value or policy text names a file (a string ending in ``.toml``)."""
    return isinstance(value, str) and value.strip().lower().endswith(".toml")


def file_sha256(path) -> str:
    """sha256 (hex) of the file's bytes; InputError naming the file if it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise InputError(f"cannot read {str(path)!r}: {e.strerror or e}") from None


def file_records(options: dict, policies=(), *, read=None) -> dict:
    """``{"option.<name>" | "policy.<seat>": {"path": value as given, "sha256": ...}}`` for each
    option value and policy text that names a file (empty when none does).

    ``read`` maps a value as given to the path actually read (a study resolves paths against
    its file's folder); by default the value itself, relative to the working folder."""
    read = read or (lambda v: v)
    named = [(f"option.{k}", v) for k, v in options.items()]
    named += [(f"policy.{seat}", p) for seat, p in enumerate(policies or ())]
    return {key: {"path": v.strip(), "sha256": file_sha256(read(v).strip())}
            for key, v in named if names_file(v)}


def changed_file(old: dict, new: dict) -> str | None:
    """One sentence naming the first file whose recorded bytes differ between two ``files``
    records (same keys), or None."""
    for key, rec in new.items():
        was = old.get(key)
        if was is not None and was.get("path") == rec["path"] and was["sha256"] != rec["sha256"]:
            return (f"{rec['path']} ({key}) has changed since the run started (sha256 "
                    f"{was['sha256'][:12]}..., now {rec['sha256'][:12]}...)")
    return None


# ---- copies of an input file with entries overridden ------------------------------------------
#: One step of a dotted path: ``key``, ``[3]`` (list entry) or ``["Funeral Pyre"]`` (the table
#: of an array of tables whose ``name`` is that string).
_STEP = re.compile(r'\.?([A-Za-z_][\w-]*)|\[(\d+)\]|\["([^"\]]+)"\]')


def parse_path(text: str) -> tuple:
    """``"economy.draft_size[0]"`` -> ``("economy", "draft_size", 0)``;
    ``'card["Hacksilver"].cost'`` -> ``("card", ("name", "Hacksilver"), "cost")``. InputError
    (one line) when the text is no such path."""
    steps, at = [], 0
    while at < len(text):
        m = _STEP.match(text, at)
        if m is None or (m.group(1) is not None and text.startswith(".", at) != bool(steps)):
            raise InputError(f"{text!r} is no dotted path (write key.key[0] or "
                             f'key["name"].key); stuck at {text[at:]!r}')
        key, index, name = m.groups()
        steps.append(key if key is not None else int(index) if index is not None
                     else ("name", name))
        at = m.end()
    if not steps or not isinstance(steps[0], str):
        raise InputError(f"{text!r} is no dotted path: it must start with a key")
    return tuple(steps)


def _show(steps: tuple) -> str:
    out = ""
    for s in steps:
        out += (f".{s}" if out else s) if isinstance(s, str) else \
            f"[{s}]" if isinstance(s, int) else f'["{s[1]}"]'
    return out


def _step(node, step, where: str):
    """The child of ``node`` at ``step``; InputError naming ``where`` when it has none."""
    if isinstance(step, str):
        if not isinstance(node, dict) or step not in node:
            keys = ", ".join(node) if isinstance(node, dict) else "none (not a table)"
            raise InputError(f"{where}: no key {step!r} there; keys: {keys}")
        return step
    if isinstance(step, int):
        if not isinstance(node, list) or not 0 <= step < len(node):
            size = f"a list of {len(node)}" if isinstance(node, list) else "not a list"
            raise InputError(f"{where}: no entry [{step}] ({size})")
        return step
    hits = [i for i, t in enumerate(node if isinstance(node, list) else [])
            if isinstance(t, dict) and t.get(step[0]) == step[1]]
    if len(hits) != 1:
        raise InputError(f'{where}: {len(hits) or "no"} tables with {step[0]} = {step[1]!r} '
                         f"there (one is needed)")
    return hits[0]


def get_path(data, steps: tuple, where: str):
    """The value at ``steps`` (from :func:`parse_path`) in the TOML data ``data``."""
    node = data
    for k, step in enumerate(steps):
        node = node[_step(node, step, f"{where}: {_show(steps[:k + 1])}")]
    return node


def fitted(old, new, where: str):
    """``new`` as the type of the value ``old`` it replaces (a float entry takes an integer
    as a float; a list takes a list of as many entries, each fitted); InputError when it
    does not fit, or ``old`` is a table or a list and ``new`` no such list."""
    number = isinstance(new, (int, float)) and not isinstance(new, bool)
    if isinstance(old, list) and isinstance(new, list) and len(new) == len(old):
        return [fitted(a, b, f"{where}[{i}]") for i, (a, b) in enumerate(zip(old, new))]
    if isinstance(old, bool):
        ok = isinstance(new, bool)
    elif isinstance(old, int):
        ok = number and float(new).is_integer()
        new = int(new) if ok else new
    elif isinstance(old, float):
        ok, new = number, float(new) if number else new
    elif isinstance(old, str):
        ok = isinstance(new, str)
    else:
        raise InputError(f"{where} is a {'list' if isinstance(old, list) else 'table'} in the "
                         f"base file: name one entry (e.g. {where}[0] or {where}.key)")
    if not ok:
        raise InputError(f"{where} = {new!r} does not fit the base file's {type(old).__name__} "
                         f"{old!r}")
    return new


def overridden(base, overrides: dict):
    """``(data, text)``: the TOML file ``base`` read, each ``{dotted path: value}`` of
    ``overrides`` set (every path must exist and every value fit, :func:`fitted`), and the
    result as TOML text (tomli-w: comments are not kept)."""
    import copy
    import tomllib

    import tomli_w

    where = f"base file {str(base)!r}"
    try:
        data = tomllib.loads(Path(base).read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"cannot read {where}: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{where} is not valid TOML: {str(e).splitlines()[0]}") from None
    data = copy.deepcopy(data)
    for text, value in overrides.items():
        steps = parse_path(text)
        parent = get_path(data, steps[:-1], where) if len(steps) > 1 else data
        key = _step(parent, steps[-1], f"{where}: {text}")
        parent[key] = fitted(parent[key], value, text)
    return data, tomli_w.dumps(data)


def write_overridden(base, overrides: dict, folder) -> Path:
    """A copy of the TOML file ``base`` with ``overrides`` (:func:`overridden`) in ``folder``,
    named by its content: ``<base stem>-<first 16 hex digits of its sha256>.toml``, so the
    same overrides always give the same file (written once, atomically) and the copy is an
    ordinary input file (hashed by :func:`file_records` like any other)."""
    from vikingsim.core.atomic import atomic_write

    _, text = overridden(base, overrides)
    data = text.encode("utf-8")
    path = Path(folder) / f"{Path(base).stem}-{hashlib.sha256(data).hexdigest()[:16]}.toml"
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda p: Path(p).write_bytes(data))
    return path
