"""Names in words: a cell, a knob and a knob's value as the report writes them, from the
study's manifest (its cell labels, grid and ``[report.labels]`` table)."""
from __future__ import annotations

import json


def raw_label(cell: dict) -> str:
    """The cell as study.json names it ("variant=ends-of-earth players=3")."""
    return cell.get("label") or f"cell {cell['cell']}"


def cell_label(cell: dict) -> str:
    """The cell in words ("Ends of the Earth, 3 players"; see ``cell_title``)."""
    return cell.get("title") or raw_label(cell)


def labels_of(manifest: dict) -> dict:
    """The study file's ``[report.labels]`` table (knob or value -> words), as texts."""
    labels = (manifest.get("report") or {}).get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def knob_words(manifest: dict, knob: str) -> str:
    """A knob in words: the study file's ``[report.labels]`` entry, else its name with
    spaces ("start_gold" -> "start gold")."""
    return labels_of(manifest).get(knob) or knob.replace("_", " ").replace(".", " ")


def value_words(manifest: dict, knob: str, value) -> str:
    """A knob's value in words: "3 players", the ``[report.labels]`` entry of the value
    ("ends-of-earth" = "Ends of the Earth"), "start gold 20", "lookahead" (``policy``),
    "random in seat 1" (``policy.1``)."""
    v = scalar(value)
    labels = labels_of(manifest)
    if str(v) in labels:
        return labels[str(v)]
    if knob == "players":
        return f"{v} players"
    if isinstance(v, str) and v.endswith(".toml"):
        v = v.rsplit("/", 1)[-1][:-len(".toml")]
    parts = knob.split(".")
    if isinstance(v, str) and knob == "policy":
        return v
    if isinstance(v, str) and len(parts) == 2 and parts[0] == "policy" and parts[1].isdigit():
        return f"{v} in seat {parts[1]}"
    return f"{knob_words(manifest, knob)} {v}"


def cell_title(manifest: dict, cell: dict) -> str:
    """The cell's knob values in words, joined ("Ends of the Earth, 3 players")."""
    words = [value_words(manifest, k, v) for k, v in (cell.get("grid") or {}).items()]
    text = ", ".join(words) or raw_label(cell)
    return text[0].upper() + text[1:]


def scalar(v):
    """A knob value as the cell labels write it: true/false, numbers, texts, else JSON."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if v is None or isinstance(v, (int, float, str)) else json.dumps(v)
