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
