"""One of the pytest processes test_parallel.py runs at once against one server (not collected alone).

Each process is job $VOXSIM_JOB; every test makes assistants named after it in its own sandbox
and checks that it sees only those, numbered from 1, on a clock only it moves.
"""
from __future__ import annotations

import os
from datetime import timedelta

from helpers import assistant_names, create_assistant
from voxsim import Sandbox

JOB = int(os.environ["VOXSIM_JOB"])


def _fill(voxsim: Sandbox, test: str, count: int) -> None:
    voxsim.phone_numbers.add("+14155550100")
    for n in range(count):
        create_assistant(voxsim, f"job{JOB}-{test}-{n}")
    assert assistant_names(voxsim) == [(n + 1, f"job{JOB}-{test}-{n}") for n in range(count)]


def test_first(voxsim: Sandbox) -> None:
    _fill(voxsim, "first", JOB + 2)


def test_second(voxsim: Sandbox) -> None:
    start = voxsim.clock.now()
    _fill(voxsim, "second", 3)
    voxsim.clock.advance(f"{JOB + 1}h")
    assert voxsim.clock.now() - start == timedelta(hours=JOB + 1)
    assert [name for _, name in assistant_names(voxsim)] == [f"job{JOB}-second-{n}" for n in range(3)]


def test_third(voxsim: Sandbox) -> None:
    voxsim.outcomes.for_number(f"+1555123000{JOB}", ["human"])
    _fill(voxsim, "third", 4)
    assert voxsim.outcomes.list() == [{"match": {"phone_number": f"+1555123000{JOB}"}, "outcomes": ["human"]}]
    assert [a["id"] for a in voxsim.accounts.list()] == [1]
