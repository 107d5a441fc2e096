"""The repository is self-contained: its docs link only to files it has, nothing points at
the team's shared folder, and every rules-notes citation (``878 §4.6``, ``raidboard §6.4``,
a bare ``§x.y`` in a game's own files, ``SEED §x.y`` for the 878 rulebook) names a section
that exists in ``docs/rules/<game>.md`` (index: ``docs/rules/README.md``)."""
from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"

#: Text that only makes sense next to the team's shared folder, never inside the repository.
FORBIDDEN = ("../shared", "shared/seeds", "handbook/", "/work/shared")
#: Where the forbidden text must not appear.
SCANNED = ("README.md", "docs", "vikingsim", "notebooks", "experiments")
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints"}

#: Citation prefix -> rules-notes file (docs/rules/README.md §1).
NOTE_OF_PREFIX = {"raidboard": "raidboard.md", "878": "battle878.md", "battle878": "battle878.md",
                  "ravenfeast": "ravenfeast.md", "raid-and-conquer": "raidconquer.md",
                  "tev-ragnarok": "tevragnarok.md"}
#: Game package / test-file stem -> the note a bare § cites there (docs/rules/README.md §2.3).
NOTE_OF_GAME = {"raidboard": "raidboard.md", "battle878": "battle878.md",
                "ravenfeast": "ravenfeast.md", "tevragnarok": "tevragnarok.md",
                "raidconquer": "raidconquer.md"}
#: A part of docs/rules-coverage.md (its "## " heading starts with the key) -> its note.
NOTE_OF_COVERAGE_PART = {"Raid board": "raidboard.md", "878": "battle878.md",
                         "Ravenfeast": "ravenfeast.md",
                         "Tiny Epic Vikings: Ragnarok": "tevragnarok.md",
                         "Vikings: Raid & Conquer": "raidconquer.md"}

_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_CITE = re.compile(r"(?:\b(SEED|878|battle878|raidboard|ravenfeast|raid-and-conquer|tev-ragnarok)"
                   r"\s)?§\s?(\d+(?:\.\d+)*)")
_SECTION = re.compile(r"^(?:#{2,4}\s+(\d+(?:\.\d+)*)\.?\s|(\d+\.\d+(?:\.\d+)*)\s)")


def _text_files(top: Path):
    paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
    for p in paths:
        if SKIP_DIRS & set(p.relative_to(ROOT).parts):
            continue
        data = p.read_bytes()
        if b"\0" in data[:8192]:
            continue                      # binary (numba caches, images, Parquet)
        yield p, data.decode("utf-8", errors="replace")


def _markdown_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(md: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _FENCE.sub("", md.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = _slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def _links(md: Path) -> list[str]:
    text = _INLINE_CODE.sub("", _FENCE.sub("", md.read_text(encoding="utf-8")))
    return _LINK.findall(text) + _REF_LINK.findall(text)


def test_markdown_files_exist_to_check():
    assert (RULES / "README.md").is_file() and len(_markdown_files()) > 5


@pytest.mark.parametrize("md", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve_inside_the_repository(md):
    bad = []
    for target in _links(md):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue                      # http:, https:, mailto: ...
        path, _, anchor = target.partition("#")
        dest = (md.parent / path).resolve() if path else md
        if not dest.is_relative_to(ROOT) or not dest.exists():
            bad.append(f"{target}: no such file in the repository")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not bad, f"{md.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


def test_nothing_points_at_the_shared_folder():
    hits = []
    for top in SCANNED:
        for p, text in _text_files(ROOT / top):
            for i, line in enumerate(text.splitlines(), 1):
                for needle in FORBIDDEN:
                    if needle in line:
                        hits.append(f"{p.relative_to(ROOT)}:{i}: {needle!r}: {line.strip()[:100]}")
    assert not hits, ("the repository must be self-contained; cite docs/rules/<game>.md instead:\n  "
                      + "\n  ".join(hits))


@functools.lru_cache(maxsize=None)
def _note_text(note: str) -> str:
    return (RULES / note).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def _sections(note: str) -> frozenset:
    out = set()
    for line in _note_text(note).splitlines():
        m = _SECTION.match(line)
        if m:
            out.add(m.group(1) or m.group(2))
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def _seed878_sections() -> frozenset:
    """Rulebook sections mapped in battle878.md §3: every § in a table row opening "| SEED"."""
    out = set()
    for line in _note_text("battle878.md").splitlines():
        if line.startswith("| SEED"):
            out.update(re.findall(r"§(\d+(?:\.\d+)*)", line.split("|")[1]))
    return frozenset(out)


def _check(text: str, where: str, bare_note: str | None, bad: list, first_line: int = 1) -> None:
    """Append to ``bad`` every citation in ``text`` whose section does not exist."""
    for i, line in enumerate(text.splitlines(), first_line):
        for prefix, num in _CITE.findall(line):
            if prefix == "SEED":
                if bare_note == "battle878.md" or "878" in where:
                    if num not in _seed878_sections():
                        bad.append(f"{where}:{i}: SEED §{num} is not mapped in battle878.md §3")
                continue
            note = NOTE_OF_PREFIX.get(prefix) if prefix else bare_note
            if note is None:
                continue                  # a bare § outside a game's files: not attributable
            ok = num in _sections(note) or (
                not prefix and note == "battle878.md" and num in _seed878_sections())
            if not ok:
                bad.append(f"{where}:{i}: {prefix + ' ' if prefix else ''}§{num} has no section "
                           f"in docs/rules/{note}")


def test_rules_notes_citations_resolve():
    bad: list[str] = []
    for game, note in NOTE_OF_GAME.items():
        files = list((ROOT / "vikingsim" / "games" / game).rglob("*.py"))
        files += sorted((ROOT / "tests").glob(f"test_{game}*.py"))
        for p in files:
            _check(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)), note, bad)
    others = [p for top in ("vikingsim/core", "vikingsim/questions", "vikingsim/cli.py",
                            "notebooks", "experiments", "README.md", "docs/rules")
              for p, _ in _text_files(ROOT / top)]
    for p in others:
        _check(p.read_text(encoding="utf-8", errors="replace"), str(p.relative_to(ROOT)), None, bad)
    cov = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")
    first = 1
    for part in re.split(r"^(?=## )", cov, flags=re.M):
        head = part.splitlines()[0][3:] if part.startswith("## ") else ""
        note = next((n for k, n in NOTE_OF_COVERAGE_PART.items() if head.startswith(k)), None)
        _check(part, "docs/rules-coverage.md", note, bad, first)
        first += part.count("\n")
    assert not bad, "citations that do not resolve:\n  " + "\n  ".join(bad)


def test_readme_says_how_to_get_the_browser_ci_installs():
    """Issue 22: on a fresh machine the README's test command skipped the report's Chromium
    test, which only ``.ci/run`` got (it installs the package); the README says how, with the
    package and command names that ``.ci/run`` and ``tests/test_report.py`` use."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install -y -qq chromium" in ci and "shutil.which(\"chromium\")" in (
        ROOT / "tests" / "test_report.py").read_text()
    quick = readme.split("## Quickstart")[1].split("\n## ")[0]
    assert "`sudo apt-get install chromium`" in quick and "tests/test_report.py" in quick
    assert ".venv/bin/python -m pytest -n 2 -q" in quick       # the command itself unchanged
