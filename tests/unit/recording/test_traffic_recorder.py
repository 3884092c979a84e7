"""`TrafficRecorder`: whole lines under many threads and processes, rotation, redaction."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import InvalidArgumentError, TrafficRecorder

from ._writer_worker import entry, write_entries

THREADS = 8
PROCESSES = 2
PER_WRITER = 1_000
# Small enough that the 10,000 entries (~170 bytes each) rotate some fifty times.
SMALL = 32 * 1024


def traffic_files(folder: Path) -> list[Path]:
    return [*sorted(folder.glob("traffic-*.jsonl")), folder / "traffic.jsonl"]


def lines_of(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in traffic_files(folder)
        for line in path.read_text(encoding="ascii").split("\n")
        if line
    ]


def test_threads_and_processes_leave_every_entry_whole_across_rotations(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(PROCESSES + 1)
    processes = [
        context.Process(
            target=write_entries, args=(tmp_path, SMALL, f"process-{n}", PER_WRITER, start)
        )
        for n in range(PROCESSES)
    ]
    for process in processes:
        process.start()
    # Half the threads share one recorder (one client's), half have one each (one client
    # each on the same folder); all start with the processes.
    shared = TrafficRecorder(tmp_path, max_bytes=SMALL)
    go = threading.Barrier(THREADS)

    def shared_writer(writer: str) -> None:
        go.wait()
        for number in range(PER_WRITER):
            shared.record(entry(writer, number))

    threads = [
        threading.Thread(target=shared_writer, args=(f"thread-{n}",))
        if n % 2
        else threading.Thread(
            target=write_entries, args=(tmp_path, SMALL, f"thread-{n}", PER_WRITER, go)
        )
        for n in range(THREADS)
    ]
    start.wait(timeout=120)  # the processes have imported the recorder: all write at once
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0

    files = traffic_files(tmp_path)
    texts = [path.read_bytes() for path in files]
    assert len(files) > 10  # it rotated, while everyone wrote
    assert all(text.endswith(b"\n") for text in texts)  # no file ends in half a line
    assert all(len(text) <= SMALL for text in texts)
    written = lines_of(tmp_path)
    assert len(written) == (THREADS + PROCESSES) * PER_WRITER == 10_000
    assert {(item["writer"], item["number"]) for item in written} == {
        (writer, number)
        for writer in [f"thread-{n}" for n in range(THREADS)]
        + [f"process-{n}" for n in range(PROCESSES)]
        for number in range(PER_WRITER)
    }
    # Each writer's entries are in its own order, across the rotated files.
    for writer in {item["writer"] for item in written}:
        numbers = [item["number"] for item in written if item["writer"] == writer]
        assert numbers == sorted(numbers), writer


def test_rotated_files_are_named_by_utc_time_and_count(tmp_path: Path) -> None:
    recorder = TrafficRecorder(tmp_path, max_bytes=400)

    for number in range(9):
        recorder.record(entry("one", number))  # ~170 bytes: two entries a file

    rotated = sorted(tmp_path.glob("traffic-*.jsonl"))
    assert len(rotated) == 4
    for path in rotated:
        stamp, count = path.stem.removeprefix("traffic-").rsplit("-", 1)
        assert len(stamp) == len("20260601T120000Z")
        assert stamp.endswith("Z")
        assert stamp[8] == "T"
        assert len(count) == 4
        assert int(count) >= 1
    assert rotated == sorted(rotated, key=lambda path: path.stat().st_mtime_ns)
    assert [len(path.read_text().splitlines()) for path in rotated] == [2, 2, 2, 2]
    assert len(recorder.path.read_text().splitlines()) == 1
    assert recorder.path == tmp_path / "traffic.jsonl"


def test_an_entry_larger_than_max_bytes_gets_a_file_of_its_own(tmp_path: Path) -> None:
    recorder = TrafficRecorder(tmp_path, max_bytes=100)

    recorder.record(entry("big", 1))
    recorder.record(entry("big", 2))

    assert [len(path.read_text().splitlines()) for path in traffic_files(tmp_path)] == [1, 1]


def test_lines_are_ascii_so_no_reader_splits_an_entry(tmp_path: Path) -> None:
    recorder = TrafficRecorder(tmp_path)
    tricky = "Hà Nội\u2028next\u2029para\x85nel\x1crecord\r\nend"

    recorder.record({"content": tricky})

    raw = recorder.path.read_bytes()
    assert raw.isascii()
    assert len(raw.decode().splitlines()) == 1  # str.splitlines breaks on \u2028, \x85, \x1c
    assert json.loads(raw) == {"content": tricky}


def test_values_json_lacks_are_written_as_text(tmp_path: Path) -> None:
    from datetime import date

    recorder = TrafficRecorder(tmp_path)

    recorder.record({"due": date(2026, 6, 1), "tags": {"a"}, "blob": b"\x00\x01"})

    assert lines_of(tmp_path) == [{"due": "2026-06-01", "tags": ["a"], "blob": "<2 bytes>"}]


def test_redact_edits_or_drops_each_entry(tmp_path: Path) -> None:
    def redact(item: dict[str, Any]) -> dict[str, Any] | None:
        if item["number"] == 1:
            return None
        item["padding"] = "[redacted]"
        return item

    recorder = TrafficRecorder(tmp_path, redact=redact)

    for number in range(3):
        recorder.record(entry("r", number))

    assert [(item["number"], item["padding"]) for item in lines_of(tmp_path)] == [
        (0, "[redacted]"),
        (2, "[redacted]"),
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_files_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    recorder = TrafficRecorder(tmp_path / "new" / "folder")

    recorder.record({"a": 1})

    for name in ("traffic.jsonl", "traffic.lock"):
        mode = stat.S_IMODE(os.stat(recorder.folder / name).st_mode)
        assert mode & 0o077 == 0, name


def test_a_failed_write_raises_to_whoever_called_record(tmp_path: Path) -> None:
    recorder = TrafficRecorder(tmp_path / "gone")
    (tmp_path / "gone").rmdir()

    with pytest.raises(FileNotFoundError):
        recorder.record({"a": 1})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_bytes": 0}, "max_bytes must be a positive int"),
        ({"max_bytes": True}, "max_bytes must be a positive int"),
        ({"redact": "names"}, "redact must be a function"),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        TrafficRecorder(tmp_path, **options)


def test_a_folder_that_cannot_be_made_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")

    with pytest.raises(InvalidArgumentError, match="cannot be created"):
        TrafficRecorder(tmp_path / "file" / "traffic")
