"""The harness cases shared with the Rust harness's test
(crates/core/tests/core/data/harness_cases.json): the Python Harness gives
exactly what the file expects, as the Rust harness does."""

import json

import pytest

from conftest import REPO
from lowwater import Event, Harness

CASES = json.loads((REPO / "crates/core/tests/core/data/harness_cases.json").read_text())["cases"]


def run(case):
    c = dict(case["config"])
    h = Harness(**c)
    for step in case["steps"]:
        if step[0] == "process":
            h.process(Event(step[1], step[2], partition=step[3], value=step[4] if len(step) > 4 else None))
        elif step[0] == "advance":
            h.advance_processing_time(step[1])
        else:
            raise AssertionError(step)
    held = h.held_by()
    return {
        "output": [[*row, row.emitted_at] for row in h.output()],
        "late": {str(p): n for p, n in h.late().items()},
        "held_by": None if held is None else [held.partition, held.subtask],
        "watermark": h.watermark,
    }


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_harness_equals_the_rust_harness(case):
    assert run(case) == case["expect"]
