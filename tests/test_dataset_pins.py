"""Shipped datasets unchanged bit for bit (issue 19): small versions of five shipped study files
(``tests/pins/datasets.json``, made by ``tests/pins/make_dataset_pins.py`` from the code of
main before this test existed) played again give the same study hash, the same chunks, the
same tallies and the same rows, column by column. The datasets themselves (``results/``) are
git-ignored, regenerated from their files: this is what "unchanged" can mean for them. A
difference is a change of the dice, the rules, the policies or the runner's seeding, chunking
or hashing; the full-size pins of the summaries are tests/test_pins.py."""
import json
from pathlib import Path

import pytest

from tests.pins.make_dataset_pins import run

PINS = json.loads((Path(__file__).parent / "pins" / "datasets.json").read_text())


@pytest.mark.parametrize("pin", PINS, ids=[p["study"] for p in PINS])
def test_small_shipped_dataset_unchanged(pin, tmp_path):
    now = run(pin["study"], pin["games"], tmp_path)
    assert now["study_hash"] == pin["study_hash"]
    assert now["cells"] == pin["cells"] and len(now["chunks"]) == len(pin["chunks"])
    for old, new in zip(pin["chunks"], now["chunks"]):
        where = f"{pin['study']} cell {old['cell']} chunk {old['chunk']}"
        assert (new["cell"], new["chunk"]) == (old["cell"], old["chunk"]), where
        assert new["tally"] == old["tally"], where
        assert new["rows"] == old["rows"], where
