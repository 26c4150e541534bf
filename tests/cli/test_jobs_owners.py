"""How ``sanitizer check --jobs`` deals chunks out (``_jobs.owners``): every chunk to one
existing process, each process's share in order, the parent a little less at the end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sanitizer.cli import _jobs


@given(st.integers(0, 500), st.integers(1, 16))
def test_every_chunk_has_one_existing_owner(chunks: int, jobs: int) -> None:
    owner = _jobs.owners(chunks, jobs)
    assert len(owner) == chunks
    procs = min(jobs, chunks)
    assert all(0 <= w < max(procs, 1) for w in owner)
    if chunks:  # the workers forked are 1..max(owner): each has work
        assert set(owner) == set(range(max(owner) + 1))
    if chunks and chunks >= 10 * procs:
        assert max(owner) == procs - 1


@given(st.integers(20, 500), st.integers(2, 16))
def test_the_parent_takes_no_more_than_its_round_robin_share(chunks: int, jobs: int) -> None:
    owner = _jobs.owners(chunks, jobs)
    procs = min(jobs, chunks)
    parent = owner.count(0)
    assert parent <= -(-chunks // procs)
    assert owner[-1] != 0  # the last chunks are the workers' alone
    assert owner[: chunks - chunks // 10] == [k % procs for k in range(chunks - chunks // 10)]


def test_two_jobs_on_the_standard_library() -> None:
    owner = _jobs.owners(112, 2)  # 1,790 files in chunks of 16
    assert (owner.count(0), owner.count(1)) == (51, 61)
