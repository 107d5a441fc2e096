"""Ravenfeast warbands (rules notes ravenfeast.md §11, §12.6): lists of typed figures, by preset
name, inline list or a small TOML file, compiled to kernel rows with ``profiles.compile_profile``.

A warband spec (options ``a`` / ``b`` of modes warband and scenario) is one of

- a preset name from :data:`PRESETS` (``hirdmen10``, ``fight_for_honor``, ...);
- an inline list ``type[*count]+type[*count]...`` of profile keys (``jarl+huskarl*2+bondi*5``);
  a single profile key (``jarl``) is a one-figure warband;
- a path to a file whose name ends in ``.toml`` (only such a value is read as a path; anything
  else is a preset or an inline list, however long)::

      name = "Jarl's hird"           # optional
      [[figures]]
      type = "jarl"                  # a key of profiles.PROFILES
      count = 1                      # optional, default 1
      armor = 3                      # optional overrides: profiles.OVERRIDE_KEYS, plus
      thrall = false                 #   thrall (capturable, §10.6; default: type == "thrall")

TOML values must have the exact type: integers for ``count`` and the ratings (a float such as
``2.7`` and a bool are refused), ``true``/``false`` for the traits (a string ``"false"`` is
refused), strings for ``type``, ``weapon`` and ``name``; anything else is an InputError naming
the key and the file.

§9.3: every warband has exactly one Leader. A list without one makes its first figure the
Leader (DEFAULT reading for lists that name none); two or more is an InputError.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.games.ravenfeast.profiles import (N_STATS, OVERRIDE_KEYS, PROFILES,
                                                 apply_overrides, compile_profile, get_profile,
                                                 price)

#: Fixed state size of the warband kernel: figures per side (style: fixed-size state).
MAX_FIGURES = 32

#: Warband presets: name -> ((profile key, count, overrides or None), ...).
PRESETS: dict[str, tuple] = {
    "hirdmen10": (("hirdmen", 10, None),),
    "huskarls10": (("huskarl", 10, None),),
    "bondi10": (("bondi", 10, None),),
    "berserkers10": (("berserker", 10, None),),
    "thralls10": (("thrall", 10, None),),
    "archers10": (("bondi_archer", 10, None),),
    # ten figures led by a Jarl (bench and calibration mixes)
    "jarl_hird10": (("jarl", 1, None), ("huskarl", 2, None), ("hirdmen", 7, None)),
    # §10.7 Fight for Honor: ~300 points, a Jarl with at least two Huskarls (297 points)
    "fight_for_honor": (("jarl", 1, None), ("huskarl", 2, None), ("hirdmen", 5, None),
                        ("bondi", 5, None)),
    # §11.1 a 300-point raiding party with bows and thralls (for Thrall capture)
    "raiders300": (("jarl", 1, None), ("huskarl", 2, None), ("hirdmen", 4, None),
                   ("bondi_archer", 3, None), ("thrall", 2, None)),
    # §11.1 a 300-point levy: many cheap figures
    "levy300": (("hirdmen", 1, {"leader": True}), ("hirdmen", 6, None), ("bondi", 15, None)),
}

_EXTRA_KEYS = ("thrall",)

#: Exact TOML value types of a ``[[figures]]`` table (keys not listed are refused by
#: ``make_warband`` as unknown). Python's bool is an int subclass, so ints exclude bools.
_TOML_TYPES = {"type": str, "count": int, "weapon": str,
               **{k: int for k in ("attacks", "melee", "armor", "morale", "wounds", "tough",
                                   "missile", "move")},
               **{k: bool for k in ("mighty", "fearless", "fated", "leader", "hero", "thrall")}}
_TYPE_WORDS = {int: "an integer", bool: "true or false", str: "a string"}


@dataclass(frozen=True)
class Warband:
    """A named list of figures; ``figures[k] = (profile key, overrides dict)``, one per figure."""

    name: str
    figures: tuple

    def __len__(self) -> int:
        return len(self.figures)


def make_warband(name: str, entries) -> Warband:
    """A validated Warband from ``(profile key, count, overrides or None)`` entries."""
    figs = []
    for key, count, overrides in entries:
        get_profile(key)                                   # InputError for an unknown type
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_FIGURES:
            raise InputError(f"warband {name!r}: count={count!r} for {key!r} must be an integer "
                             f"in [1, {MAX_FIGURES}]")
        ov = dict(overrides or {})
        for k in ov:
            if k not in OVERRIDE_KEYS + _EXTRA_KEYS:
                raise InputError(f"warband {name!r}: unknown key {k!r} for {key!r}; allowed: "
                                 f"type, count, {', '.join(OVERRIDE_KEYS + _EXTRA_KEYS)}")
        figs.extend((str(key).strip().lower(), dict(ov)) for _ in range(count))
    if not 1 <= len(figs) <= MAX_FIGURES:
        raise InputError(f"warband {name!r} has {len(figs)} figures; allowed 1..{MAX_FIGURES}")
    # §9.3 exactly one Leader per warband
    leaders = [i for i, (k, ov) in enumerate(figs)
               if ov.get("leader", get_profile(k).leader)]
    if len(leaders) > 1:
        raise InputError(f"warband {name!r} has {len(leaders)} Leaders; §9.3 allows exactly one "
                         f"(set leader = false on the others)")
    if not leaders:
        figs[0] = (figs[0][0], {**figs[0][1], "leader": True})
    return Warband(name=name, figures=tuple(figs))


def _parse_inline(spec: str) -> Warband:
    entries = []
    for item in spec.split("+"):
        key, _, count = item.strip().partition("*")
        try:
            n = int(count) if count else 1
        except ValueError:
            raise InputError(f"warband {spec!r}: bad count {count!r} in {item!r} "
                             f"(write type*count, e.g. hirdmen*5)") from None
        entries.append((key.strip(), n, None))
    return make_warband(spec, entries)


def load_toml(path) -> Warband:
    """A warband from a TOML file (format in the module docstring); InputError when unreadable."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read warband file {str(p)!r}: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        msg = str(err).splitlines()[0]
        raise InputError(f"warband file {str(p)!r} is not valid TOML: {msg}") from None
    figures = data.get("figures")
    if not isinstance(figures, list) or not figures or not all(isinstance(f, dict) for f in figures):
        raise InputError(f"warband file {str(p)!r} needs at least one [[figures]] table with a type")
    entries = []
    for k, f in enumerate(figures):
        f = dict(f)
        if "type" not in f:
            raise InputError(f"warband file {str(p)!r}: a [[figures]] table has no type")
        _check_toml_types(p, k, f)
        key = f.pop("type")
        count = f.pop("count", 1)
        entries.append((key, count, f))
    name = data.get("name", p.stem)
    if not isinstance(name, str):
        raise InputError(f"warband file {str(p)!r}: name = {name!r} must be a string")
    try:
        return make_warband(str(name), entries)
    except (TypeError, ValueError) as err:
        if isinstance(err, InputError):
            raise
        raise InputError(f"warband file {str(p)!r}: {err}") from None


def _exact_type(value, want: type) -> bool:
    """``value`` is exactly of TOML type ``want`` (a bool is no int here)."""
    if want is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, want)


def _check_toml_types(path: Path, k: int, table: dict) -> None:
    """InputError naming the key and the file when a value has the wrong type."""
    for key, value in table.items():
        want = _TOML_TYPES.get(key)
        if want is not None and not _exact_type(value, want):
            raise InputError(f"warband file {str(path)!r}, [[figures]] table {k + 1}: "
                             f"{key} = {value!r} must be {_TYPE_WORDS[want]} "
                             f"(got {type(value).__name__})")


def load_warband(spec) -> Warband:
    """Preset name, inline list, TOML path or a :class:`Warband` → Warband (InputError if bad)."""
    if isinstance(spec, Warband):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"warband must be a preset ({', '.join(PRESETS)}), a type list like "
                         f"'jarl+hirdmen*5' or a .toml path; got {spec!r}")
    s = spec.strip()
    if s in PRESETS:
        return make_warband(s, PRESETS[s])
    if s.lower().endswith(".toml"):             # only a .toml name is a path (no stat of
        return load_toml(s)                     # inline lists: long ones are no file names)
    keys = [it.strip().partition("*")[0].strip().lower() for it in s.split("+")]
    if all(k.replace(" ", "_").replace("-", "_") in PROFILES for k in keys):
        return _parse_inline(s)
    raise InputError(f"unknown warband {spec!r}; allowed: a preset ({', '.join(PRESETS)}), a type "
                     f"list like 'jarl+hirdmen*5' (types: {', '.join(PROFILES)}) or a .toml path")


def compile_warband(wb: Warband, *, tough_reading: str = "total_wounds"):
    """Kernel rows of a warband.

    Returns
    -------
    rows : ndarray(int64, shape=(n, N_STATS))
        ``profiles.compile_profile`` rows, indexed by ``profiles.Stat``.
    thrall : ndarray(int64, shape=(n,))
        1 for capturable figures (§10.6 Thralls).
    points2 : ndarray(int64, shape=(n,))
        Twice the §12.3 model price (integer; used to break target-choice ties).
    """
    n = len(wb)
    rows = np.zeros((n, N_STATS), np.int64)
    thrall = np.zeros(n, np.int64)
    points2 = np.zeros(n, np.int64)
    for i, (key, ov) in enumerate(wb.figures):
        prof_ov = {k: v for k, v in ov.items() if k not in _EXTRA_KEYS}
        try:
            row = compile_profile(key, prof_ov, tough_reading=tough_reading)
            p, _ = apply_overrides(get_profile(key), prof_ov)
        except (TypeError, ValueError) as err:
            if isinstance(err, InputError):
                raise
            raise InputError(f"warband {wb.name!r}, figure {i} ({key}): {err}") from None
        rows[i] = row
        thrall[i] = int(bool(ov.get("thrall", key == "thrall")))
        points2[i] = int(round(2 * price(p, tough_reading=tough_reading)))
    return rows, thrall, points2


def describe_presets_and_format() -> str:
    """Text for ``vikingsim games``: every preset with its figures and points, and how to
    write an inline list or a TOML warband file."""
    lines = ["warbands (options a / b in modes warband and scenario):"]
    for name, parts in PRESETS.items():
        figs = " + ".join(f"{t}*{k}" if k > 1 else t for t, k, _ in parts)
        lines.append(f"  {name}: {figs}")
    lines += ["  or an inline list of unit types: jarl+huskarl*2+bondi*5 "
              f"(types: {', '.join(PROFILES)})",
              "  or a .toml file:",
              '    name = "Jarl\'s hird"          # optional',
              "    [[figures]]",
              '    type = "jarl"                 # a unit type',
              "    count = 1                     # optional, default 1",
              "    armor = 3                     # optional overrides: "
              + ", ".join(OVERRIDE_KEYS),
              "    thrall = false                # optional: capturable (default: type thrall)",
              "  TOML values must have the exact type (integers, true/false, strings)."]
    return "\n".join(lines)
