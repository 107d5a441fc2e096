"""Kinds of generated study: which command made a study (``kind`` in its file and manifest)
and the module that reads its cells for ``vikingsim report``.

Each module named here defines, for a :class:`vikingsim.studies.dataset.StudyData` ``data``
of its kind (everything read from the stored counts, never re-played):

- ``report_tables(data) -> dict[str, pandas.DataFrame]``: the kind's tidy tables, by title;
- ``report_findings(data) -> list[str]``: its findings in words, one sentence each;
- ``report_figures(data, folder) -> list[pathlib.Path]``: its figures, written into ``folder``.

A plain study file has kind "" and gets the generic page only.
"""
#: kind -> module (imported only when a study of that kind is reported).
KINDS: dict[str, str] = {
    "ladder": "vikingsim.studies.ladder",
}
