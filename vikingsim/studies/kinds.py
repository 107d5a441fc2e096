"""Kinds of generated study: which command made a study (``kind`` in its file and manifest)
and the module that reads its cells for ``vikingsim report``.

Each module named here defines, for a :class:`vikingsim.studies.dataset.StudyData` ``data``
of its kind (everything read from the stored counts, never re-played):

- ``report_tables(data) -> dict[str, pandas.DataFrame]``: the kind's tidy tables, by title;
- ``report_findings(data) -> list[str]``: its findings in words, one sentence each;
- ``report_figures(data, folder) -> list[pathlib.Path]``: its figures, written into ``folder``.

and optionally, for a study file of that kind run by ``vikingsim experiment``:

- ``expand_study(study)``: the file's values made into the kind's cells;
- ``write_results(root) -> list[pathlib.Path]``: the files the kind's own command writes
  beside the finished study folder ``root`` (the tournament's tables).

A plain study file has kind "" and gets the generic page only.
"""
#: kind -> module (imported only when a study of that kind is reported).
KINDS: dict[str, str] = {
    "importance": "vikingsim.studies.importance",
    "tournament": "vikingsim.studies.tournament",
    "balance": "vikingsim.studies.balance",
    "sensitivity": "vikingsim.studies.sensitivity",
    "ladder": "vikingsim.studies.ladder",
}


def expand(study):
    """A study file of a kind whose module defines ``expand_study(study)`` (its cells made
    from the file's values, e.g. restricted play's elements x seats) made into those cells;
    any other study as it is."""
    import importlib

    if not study.kind:
        return study
    module = importlib.import_module(KINDS[study.kind])
    return module.expand_study(study) if hasattr(module, "expand_study") else study


def write_results(study, root) -> list:
    """The files the kind's own command writes beside the finished study ``root`` (the
    module's ``write_results``), for a study file of that kind; none for the others."""
    import importlib

    if not study.kind:
        return []
    module = importlib.import_module(KINDS[study.kind])
    return module.write_results(root) if hasattr(module, "write_results") else []
