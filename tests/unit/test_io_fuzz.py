"""Seeded fuzz test of the C3D reader: structured mutants of a real file never crash, hang or leak an exception.

Mutants of ``cmu_dribble_shoot_basketball.c3d`` change one field (or, past the structured set, several):
every parameter record's name-length, group-number, offset, element-size, dimension-count, dimension and
description-length bytes, the parameter section's own header bytes, and the file header's pointers and
counts (parameter block, points, analog measurements, first and last frame, scale, data start, analog
samples per frame, rate), with boundary values (0, 1, 0x7F, 0x80, 0xFF, ...) and random ones. Each is read
by ``load_trial`` in a worker process; a read must end, within ``LIMIT_S``, in a trial or an ``InputError``
(any ``MocapError``): no signal, no hang, no other exception.

The CI run reads ``COUNT`` mutants drawn with ``SEED``; a longer local run raises both:

    MOCAP_FUZZ_SEED=7 MOCAP_FUZZ_COUNT=20000 .venv/bin/python -m pytest tests/unit/test_io_fuzz.py
    MOCAP_FUZZ_FILE=../shared/data/sprint_forceplates_JA1Gait35.c3d ...   (another file to mutate)
"""

from __future__ import annotations

import os
import select
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

SEED = int(os.environ.get("MOCAP_FUZZ_SEED", "0"))
COUNT = int(os.environ.get("MOCAP_FUZZ_COUNT", "5000"))
LIMIT_S = 20.0
BYTE_VALUES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0x81, 0xFE, 0xFF)
WORD_VALUES = (0x0000, 0x0001, 0x7FFF, 0x8000, 0xFFFF)
FLOAT_VALUES = (0.0, -0.0, 1.0, -1.0, 1e30, -1e30, float("inf"), float("nan"), 1e-30)

WORKER = """
import sys
sys.path[:0] = [sys.argv[1]]
from bootstrap import load_package
load_package()
from mocap_dynamics.solver.errors import MocapError
from mocap_dynamics.solver.io import load_trial
print("ready", flush=True)
for line in sys.stdin:
    try:
        trial = load_trial(line.strip())
        print(f"ok {trial.n_frames} frames", flush=True)
    except MocapError as error:
        print("error " + error.one_line().replace(chr(10), " "), flush=True)
    except BaseException as error:
        print(f"other {type(error).__name__}: {error}".replace(chr(10), " "), flush=True)
"""


def records(data: bytes) -> list[dict]:
    """The parameter records of a valid Intel/DEC C3D: byte offsets of each field (an independent walker)."""
    start = (data[0] - 1) * 512
    pos, found = start + 4, []
    while True:
        length, group = struct.unpack_from("bb", data, pos)
        if length == 0:
            return found
        name_end = pos + 2 + abs(length)
        (offset,) = struct.unpack_from("<H", data, name_end)
        fields = {"name length": pos, "group": pos + 1, "offset low": name_end, "offset high": name_end + 1}
        cursor = name_end + 2
        if group > 0:
            n_dims = data[cursor + 1]
            fields |= {"element size": cursor, "dimension count": cursor + 1}
            fields |= {f"dimension {i + 1}": cursor + 2 + i for i in range(n_dims)}
            cursor += 2 + n_dims
            element = {-1: 1, 1: 1, 2: 2, 4: 4}[struct.unpack_from("b", data, cursor - 2 - n_dims)[0]]
            cursor += element * int(np.prod([data[fields[f"dimension {i + 1}"]] for i in range(n_dims)]))
        fields["description length"] = cursor
        found.append({"name": data[pos + 2:name_end].decode("latin-1"), "fields": fields})
        if offset == 0:
            return found
        pos = name_end + offset


def structured_mutants(data: bytes) -> list[tuple[str, int, bytes]]:
    """Every (what, byte offset, new bytes) of the structured set."""
    out = []
    for record in records(data):
        for field, at in record["fields"].items():
            out += [(f"{record['name']} {field} = {v:#04x}", at, bytes([v])) for v in BYTE_VALUES if v != data[at]]
    section = (data[0] - 1) * 512
    out += [(f"parameter section byte {i} = {v:#04x}", section + i, bytes([v]))
            for i in range(4) for v in BYTE_VALUES if v != data[section + i]]
    out += [(f"header parameter block = {v:#04x}", 0, bytes([v])) for v in BYTE_VALUES if v != data[0]]
    for word, what in ((1, "points"), (2, "analog measurements"), (3, "first frame"), (4, "last frame"),
                       (8, "data start"), (9, "analog samples per frame")):
        out += [(f"header {what} = {v:#06x}", 2 * word, struct.pack("<H", v)) for v in WORD_VALUES]
    for word, what in ((6, "scale"), (10, "rate")):
        out += [(f"header {what} = {v:g}", 2 * word, struct.pack("<f", v)) for v in FLOAT_VALUES]
    return out


def mutants(data: bytes, seed: int, count: int):
    """``count`` mutants: the structured set in a seeded order, then random multi-field ones."""
    rng = np.random.default_rng(seed)
    structured = structured_mutants(data)
    order = rng.permutation(len(structured))
    for i in order[:count]:
        what, at, new = structured[i]
        yield what, data[:at] + new + data[at + len(new):]
    for _ in range(max(0, count - len(structured))):
        mutant, whats = bytearray(data), []
        for j in rng.choice(len(structured), size=int(rng.integers(2, 5)), replace=False):
            what, at, new = structured[j]
            if rng.random() < 0.3:  # a random value instead of a boundary one
                new = bytes(rng.integers(0, 256, size=len(new), dtype=np.uint8))
                what = f"{what.split(' = ')[0]} = random {new.hex()}"
            mutant[at:at + len(new)] = new
            whats.append(what)
        yield "; ".join(whats), bytes(mutant)


class Worker:
    """A Python process reading one mutant at a time; restarted after a crash or a hang."""

    def __init__(self):
        self.process = None

    def start(self):
        scripts = Path(__file__).resolve().parents[2] / "scripts"
        self.process = subprocess.Popen([sys.executable, "-c", WORKER, str(scripts)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self._answer(120.0) == "ready"

    def _answer(self, limit: float) -> str | None:
        ready, _, _ = select.select([self.process.stdout], [], [], limit)
        return self.process.stdout.readline().strip() if ready else None

    def read(self, path: Path) -> str:
        """'ok ...', 'error ...', 'other ...', 'signal N' or 'hang'."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.process.stdin.write(f"{path}\n")
        self.process.stdin.flush()
        answer = self._answer(LIMIT_S)
        if answer:
            return answer
        if answer is None and self.process.poll() is None:
            self.stop()
            return "hang"
        code = self.process.wait()
        self.process = None
        return f"signal {-code}" if code < 0 else f"exit {code}"

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def fuzz(source: Path, folder: Path, seed: int, count: int) -> tuple[dict, list[str]]:
    """Read ``count`` mutants of ``source``; return the tally of outcomes and the failures."""
    data = source.read_bytes()
    worker, tally, failures = Worker(), {}, []
    try:
        for i, (what, mutant) in enumerate(mutants(data, seed, count)):
            path = folder / f"mutant{i % 8}.c3d"
            path.write_bytes(mutant)
            answer = worker.read(path)
            kind = answer.split(" ", 1)[0]
            tally[kind] = tally.get(kind, 0) + 1
            if kind not in ("ok", "error"):
                failures.append(f"{what}: {answer}")
    finally:
        worker.stop()
    return tally, failures


def test_c3d_mutants_end_in_a_trial_or_one_clear_error(shared_data, tmp_path):
    source = Path(os.environ.get("MOCAP_FUZZ_FILE", shared_data / "cmu_dribble_shoot_basketball.c3d"))
    tally, failures = fuzz(source, tmp_path, SEED, COUNT)
    print(f"\n{source.name}, seed {SEED}, {COUNT} mutants: {tally}")
    assert not failures, f"{len(failures)} mutants crashed, hung or raised another exception:\n" + "\n".join(
        failures[:40])
    assert tally.get("error", 0) > COUNT // 10 and tally.get("ok", 0) > 0  # both outcomes are exercised


def test_the_generator_covers_every_record_field(shared_data):
    data = (shared_data / "cmu_dribble_shoot_basketball.c3d").read_bytes()
    found = records(data)
    assert len(found) == 73 and found[16]["name"] == "USED" and "dimension count" in found[16]["fields"]
    structured = structured_mutants(data)
    assert sum("dimension count = 0x80" in what for what, _, _ in structured) == 65  # every parameter record
    first = [what for what, _ in mutants(data, 3, 5)]
    assert first == [what for what, _ in mutants(data, 3, 5)] and first != [what for what, _ in mutants(data, 4, 5)]
