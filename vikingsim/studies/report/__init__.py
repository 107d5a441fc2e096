"""HTML report of a study folder (``vikingsim report results/NAME``), by layer:

- ``counts``: what the report counts of a study, read only through ``studies.dataset``
  (``load_study``, ``count_games``);
- ``labels``: cells, knobs and values in words;
- ``tables``: tidy frames of the counts (``build_tables``);
- ``words``: the opening answer and the findings, sentences from the tables;
- ``figures``: matplotlib figures of the tables;
- ``skill``: the answers by skill level, for a study with ``[report] skill``;
- ``page``: the self-contained HTML page and its atomic writing (``render``,
  ``write_report``), with the tables, findings and figures of the study's kind.

The names below are re-exported so that ``from vikingsim.studies.report import ...`` works.
"""
from vikingsim.studies.report.counts import (SOURCES, CellCount, StudyView, Unsummarized,
                                             check_layout, count_games, count_rows,
                                             count_tallies, length_column, load_study,
                                             view_of)
from vikingsim.studies.report.figures import (bars_figure, data_uri, heatmap_figure,
                                              length_grid_figure, length_hist_figure,
                                              lines_figure, min_font_px, rate_figure)
from vikingsim.studies.report.labels import (cell_label, cell_title, knob_words, raw_label,
                                             value_words)
from vikingsim.studies.report.page import kind_parts, render, write_report
from vikingsim.studies.report.skill import (skill_figure, skill_frame, skill_knob,
                                            skill_parts, skill_tests)
from vikingsim.studies.report.tables import (build_tables, cell_tests, contender_frame,
                                             heatmap_axes, knob_frame, length_frame,
                                             outcome_frame, policy_frame)
from vikingsim.studies.report.words import (ci_text, contender_sentence, findings, p_text,
                                            pct, points_text, summary)

__all__ = ["SOURCES", "CellCount", "StudyView", "Unsummarized", "bars_figure", "build_tables",
           "cell_label", "cell_tests", "cell_title", "check_layout", "ci_text",
           "contender_frame", "contender_sentence", "count_games", "count_rows",
           "count_tallies", "data_uri", "findings", "heatmap_axes", "heatmap_figure",
           "kind_parts", "knob_frame", "knob_words", "length_column", "length_frame",
           "length_grid_figure", "length_hist_figure", "lines_figure", "load_study",
           "min_font_px", "outcome_frame", "p_text", "pct", "points_text", "policy_frame",
           "rate_figure", "raw_label", "render", "summary", "value_words", "view_of",
           "write_report", "skill_figure", "skill_frame", "skill_knob", "skill_parts",
           "skill_tests"]
