"""The C3D header and parameter section, checked in Python before ezc3d sees the file.

ezc3d (1.7) trusts the parameter section: a dimension count or description length of 0x80 or more (read
as a negative byte), a group number 0, a text parameter without dimensions or an empty ``POINT:USED``
make it index an empty vector (a segfault, which inside Blender takes the whole session down); a product
of dimensions or a frame count in the billions makes it loop or allocate for hours. ``check_c3d`` walks
the records exactly as ezc3d will (C3D User Guide, ch. 3 "The parameter section": 4-byte section header,
then records of name length, group number, name, offset to the next record, and for parameters element
size, dimension count, dimensions, data and description) and checks, before ezc3d reads a byte:

- the header: key byte 0x50, parameter section inside the file, a known processor (Intel, DEC, MIPS);
- every record: inside the section, group number not 0, element size -1/1/2/4, 0 to 7 dimensions (text:
  at least one), description length 0 to 127, the offset pointing at the next record;
- what ezc3d reads unchecked: the scalars it takes the first value of (``POINT:USED``, ``FRAMES``,
  ``RATE``, ``ANALOG:USED``, ``RATE``, ``ROTATION:*``) present and in range, ``ANALOG:SCALE``/``OFFSET``
  one per channel, a first and last frame in order, a positive marker rate, the data section after the
  parameters, and frames that fit in the file (a shorter file is cut: one message, no read);
- what the reader takes as text (``POINT:LABELS``, ``UNITS``, ``X_SCREEN``, ``Y_SCREEN``) is text;
- separately (``plate_problem``), what the force-platform filter indexes: ``TYPE``, ``CHANNEL``,
  ``CORNERS``, ``ORIGIN``, ``CAL_MATRIX`` and ``FPCOPPOLY`` long enough for every plate, channels that
  exist. A file whose plates fail is read without them.

It reads only the header block and the parameter section: under a millisecond on the CMU file.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError

BLOCK = 512
PROCESSORS = {84: "Intel", 85: "DEC", 86: "MIPS"}
ELEMENT_BYTES = {-1: 1, 1: 1, 2: 2, 4: 4}
MAX_DIMENSIONS = 7
#: Force-platform types ezc3d converts, and their channel counts.
PLATE_CHANNELS = {1: 6, 2: 6, 3: 8, 4: 6}
#: ``POINT`` parameters the reader takes as text (and LABELS2, LABELS3, ...).
TEXT = ("LABELS", "UNITS", "X_SCREEN", "Y_SCREEN")
#: A rotation sample: a 4x4 matrix and a residual, 32-bit floats.
ROTATION_BYTES = 17 * 4


class CorruptC3D(InputError):
    """The header or parameter section would make ezc3d read out of bounds or loop: the file is not read."""


@dataclass(frozen=True)
class Parameter:
    """One parameter record: element size (-1 text, 1 byte, 2 int, 4 float), dimensions, raw data."""

    element: int
    dims: tuple[int, ...]
    data: bytes

    @property
    def count(self) -> int:
        """Number of values (strings count as one value per column of characters)."""
        return math.prod(self.dims[1:] if self.element == -1 else self.dims)


@dataclass
class C3DLayout:
    """What the header and parameters promise: processor, frames, rates, data start, and the parameters."""

    processor: int
    frames: int  # what the header promises (0 without points and analogs)
    points: int
    rate: float
    analog_channels: int
    analog_per_frame: int
    float_data: bool
    data_start: int  # byte offset
    groups: dict[str, dict[str, Parameter]] = field(default_factory=dict)

    def numbers(self, group: str, name: str) -> np.ndarray | None:
        """A numeric parameter's values (flat, file order), or None when absent or text."""
        p = self.groups.get(group, {}).get(name)
        if p is None or p.element == -1:
            return None
        return _decode(p, self.processor)

    @property
    def frame_bytes(self) -> int:
        size = 4 if self.float_data else 2
        return size * (4 * self.points + self.analog_channels * self.analog_per_frame)


def check_c3d(path: Path) -> C3DLayout:
    """The file's layout; ``CorruptC3D`` when ezc3d must not read it, ``InputError`` when it is cut short."""
    source = path.name
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            header = f.read(BLOCK)
            if len(header) < BLOCK or header[1] != 0x50 or header[0] < 2:
                raise InputError(f"{source} is not a readable C3D file (its first block is not a C3D header)",
                                 "choose a .c3d recording, or export the trial again")
            start = (header[0] - 1) * BLOCK
            f.seek(start)
            section_head = f.read(4)
            n_blocks = section_head[2] if len(section_head) == 4 else 0
            if start + n_blocks * BLOCK > size or n_blocks == 0:
                raise InputError(f"{source} is not a readable C3D file (it ends inside its parameter section, "
                                 f"blocks {header[0]} to {header[0] + max(n_blocks, 1) - 1}: cut short?)",
                                 "export or copy the file again")
            section = section_head + f.read(max(0, n_blocks * BLOCK - 4))
    except OSError as error:
        raise InputError(f"Cannot read {path}: {error.strerror or error}", "check the path and permissions") from None
    processor = section_head[3]
    if processor not in PROCESSORS:
        raise _corrupt(source, f"processor type {processor} is none of 84 Intel, 85 DEC, 86 MIPS")
    groups, records_end = _walk(section, processor, source)
    for name, p in groups.get("POINT", {}).items():
        if (name in TEXT or (name.startswith("LABELS") and name[6:].isdigit())) and p.element != -1:
            raise _corrupt(source, f"POINT:{name} is not text")
    return _layout(header, groups, processor, start + records_end, size, source)


def plate_problem(layout: C3DLayout) -> str | None:
    """Why ezc3d's force-platform filter must not run on this file, or None when it may."""
    plates = layout.groups.get("FORCE_PLATFORM")
    if plates is None or "USED" not in plates:
        return None
    used = layout.numbers("FORCE_PLATFORM", "USED")
    if used is None or used.size == 0 or not 0 <= used[0] <= 255:
        return "FORCE_PLATFORM:USED is not a plate count"
    n = int(used[0])
    if n == 0:
        return None
    types = layout.numbers("FORCE_PLATFORM", "TYPE")
    if types is None or types.size < n:
        return f"FORCE_PLATFORM:TYPE does not give the type of all {n} plates"
    unknown = sorted({int(t) for t in types[:n]} - set(PLATE_CHANNELS))
    if unknown:
        return f"force platform type {unknown[0]} is not one ezc3d converts (1 to 4)"
    channel = plates.get("CHANNEL")
    need = max(PLATE_CHANNELS[int(t)] for t in types[:n])
    if channel is None or channel.element == -1 or len(channel.dims) != 2 or channel.dims[0] < need \
            or channel.dims[1] < n:
        return f"FORCE_PLATFORM:CHANNEL does not list {need} channels for each of the {n} plates"
    channels = _decode(channel, layout.processor).reshape(channel.dims[::-1])
    used_channels = [channels[i, :PLATE_CHANNELS[int(t)]] for i, t in enumerate(types[:n])]
    if any(((c < 1) | (c > layout.analog_channels)).any() for c in used_channels):
        return f"FORCE_PLATFORM:CHANNEL names analog channels the file does not have ({layout.analog_channels})"
    for name, per_plate in (("CORNERS", 12), ("ORIGIN", 3)):
        values = layout.numbers("FORCE_PLATFORM", name)
        if values is None or values.size < per_plate * n or not np.isfinite(values[:per_plate * n]).all():
            return f"FORCE_PLATFORM:{name} does not give {per_plate} numbers for each of the {n} plates"
    calibration = plates.get("CAL_MATRIX")
    if calibration is not None and calibration.element != -1 and len(calibration.dims) >= 3 \
            and calibration.count:
        per_plate = calibration.dims[0] * calibration.dims[1]
        if any(per_plate * i + 35 >= calibration.count for i in range(min(n, calibration.dims[2]))):
            return "FORCE_PLATFORM:CAL_MATRIX is smaller than 6 x 6 per plate"
    elif 4 in types[:n] and (calibration is None or calibration.element == -1 or len(calibration.dims) < 3):
        return "type-4 force platforms need FORCE_PLATFORM:CAL_MATRIX"
    polynomial = layout.numbers("FORCE_PLATFORM", "FPCOPPOLY")
    if 3 in types[:n] and polynomial is not None and 0 < polynomial.size < 12 * n:
        return "FORCE_PLATFORM:FPCOPPOLY does not give 12 numbers for each type-3 plate"
    for group in ("POINT", "FORCE_PLATFORM"):
        units = layout.groups.get(group, {}).get("UNITS")
        if units is not None and (units.element != -1 or 0 in units.dims):
            return f"{group}:UNITS is not text"
    return None


def _corrupt(source: str, detail: str) -> CorruptC3D:
    return CorruptC3D(f"{source}: the file's parameter section is corrupt ({detail})",
                      "export the trial again from the capture software; the file cannot be read safely")


def _walk(section: bytes, processor: int, source: str) -> tuple[dict[str, dict[str, Parameter]], int]:
    """Every record of the parameter section, as ezc3d reads them (group name -> parameter name -> Parameter),
    and the byte of the section where the last record ends: the data may start in the next block even where the
    header counts more parameter blocks (Kistler plate-only exports, as in biomdp 0.11.2, count three, use two)."""
    order = ">" if processor == 86 else "<"
    end = len(section)
    if (section[0], section[1]) not in ((1, 0x50), (0, 0)):  # (0, 0): Qualisys' variant, which ezc3d accepts
        raise _corrupt(source, f"its first bytes {section[0]}, {section[1]} are not 1, 80")
    pos, names, members = 4, {}, {}
    while True:
        if pos + 2 > end:
            raise _corrupt(source, f"the records run past the end of the section at byte {pos}")
        length, group = struct.unpack_from("bb", section, pos)
        if length == 0:  # the closing record: its name-length byte alone
            pos += 1
            break
        where = f"record at byte {pos}"
        if group == 0:
            raise _corrupt(source, f"{where} belongs to group 0")
        name_end = pos + 2 + abs(length)
        if name_end + 2 > end:
            raise _corrupt(source, f"{where}: its name runs past the section")
        name = _printable(section[pos + 2:name_end])
        (offset,) = struct.unpack_from(order + "H", section, name_end)
        cursor = name_end + 2
        if group > 0:
            cursor, parameter = _parameter(section, cursor, processor, source, f"{where} ({name})")
            members.setdefault(group, {})[name] = parameter
        else:
            names[-group] = name
        if cursor >= end:
            raise _corrupt(source, f"{where} ({name}) runs past the section")
        description = struct.unpack_from("b", section, cursor)[0]
        if description < 0:
            raise _corrupt(source, f"{where} ({name}) has a description of {description + 256} characters, "
                                   "over 127")
        cursor += 1 + description
        if cursor > end:
            raise _corrupt(source, f"{where} ({name}): its description runs past the section")
        pos = cursor
        if offset == 0:
            break
        if name_end + offset != cursor:
            raise _corrupt(source, f"{where} ({name}) says the next record is at byte {name_end + offset}, "
                                   f"but it ends at byte {cursor}")
    return {names.get(g, f"GROUP{g}"): params for g, params in members.items()}, pos


def _printable(name: bytes) -> str:
    """A record name fit for a one-line message (a corrupt one may hold any bytes)."""
    text = name.split(b"\0", 1)[0].decode("latin-1").upper()
    clean = "".join(c if c.isprintable() and c.isascii() else "?" for c in text)
    return clean if len(clean) <= 32 else clean[:32] + "..."


def _parameter(section: bytes, cursor: int, processor: int, source: str, where: str) -> tuple[int, Parameter]:
    """Read one parameter's type, dimensions and data from ``cursor``; return where its description starts."""
    if cursor + 2 > len(section):
        raise _corrupt(source, f"{where} runs past the section")
    element, n_dims = struct.unpack_from("bb", section, cursor)
    if element not in ELEMENT_BYTES:
        raise _corrupt(source, f"{where} has element size {element}, none of -1, 1, 2, 4")
    if not 0 <= n_dims <= MAX_DIMENSIONS or (element == -1 and n_dims == 0):
        raise _corrupt(source, f"{where} has {n_dims} dimensions" + (" (text needs at least one)" if n_dims == 0
                                                                     else f", not 0 to {MAX_DIMENSIONS}"))
    dims = tuple(section[cursor + 2:cursor + 2 + n_dims])
    if len(dims) < n_dims:
        raise _corrupt(source, f"{where}: its dimensions run past the section")
    start = cursor + 2 + n_dims
    stop = start + ELEMENT_BYTES[element] * math.prod(dims)
    if stop > len(section):
        raise _corrupt(source, f"{where} has dimensions {'x'.join(map(str, dims))}, more data than the section holds")
    return stop, Parameter(element, dims, section[start:stop])


def _decode(p: Parameter, processor: int) -> np.ndarray:
    """A numeric parameter's values as float64 (DEC floats converted: words swapped, exponent less 2)."""
    order = ">" if processor == 86 else "<"
    if p.element == 4 and processor == 85:
        raw = np.frombuffer(p.data, dtype=np.uint8).reshape(-1, 4)[:, [2, 3, 0, 1]].copy()
        values = raw.view("<f4").ravel().astype(np.float64)
        return np.where(raw[:, 3] != 0, values / 4.0, values)
    dtype = {1: "i1", 2: order + "i2", 4: order + "f4"}[p.element]
    return np.frombuffer(p.data, dtype=dtype).astype(np.float64)


def _header_float(header: bytes, offset: int, processor: int) -> float:
    return float(_decode(Parameter(4, (1,), header[offset:offset + 4]), processor)[0])


def _scalar(layout_groups: dict, processor: int, group: str, name: str, source: str, low: float, high: float,
            default: float | None) -> float | None:
    """The first value of a numeric scalar parameter that ezc3d reads unchecked, in ``[low, high]``."""
    p = layout_groups.get(group, {}).get(name)
    if p is None:
        return default
    values = _decode(p, processor) if p.element != -1 else None
    if values is None or values.size == 0:
        raise _corrupt(source, f"{group}:{name} holds no number")
    value = float(values[0])
    if not (np.isfinite(value) and low <= value <= high):
        raise _corrupt(source, f"{group}:{name} is {value:g}, outside {low:g} to {high:g}")
    return value


def _layout(header: bytes, groups: dict, processor: int, section_end: int, size: int, source: str) -> C3DLayout:
    """The header and parameters as ezc3d combines them (``c3d::updateHeader``), checked against the file."""
    order = ">" if processor == 86 else "<"
    words = struct.unpack_from(order + "6H", header, 2)
    header_points, measurements, first, last_word = words[0], words[1], words[2], words[3]
    data_block, header_per_frame = struct.unpack_from(order + "2H", header, 16)
    header_rate, scale = _header_float(header, 20, processor), _header_float(header, 12, processor)
    first, last = max(first - 1, 0), max(last_word - 1, 0)  # 1-based in the file; ezc3d also accepts 0
    points = _scalar(groups, processor, "POINT", "USED", source, 0, 32767, header_points)
    rate = _scalar(groups, processor, "POINT", "RATE", source, 0, 1e6, None)
    if rate is None or rate == 0:
        rate = header_rate
    if not (np.isfinite(rate) and 0 < rate <= 1e6):
        raise InputError(f"{source}: the marker rate is {rate:g} Hz in the header and in POINT:RATE",
                         "the file does not say its frame rate; export it again with the rate")
    frames_parameter = _scalar(groups, processor, "POINT", "FRAMES", source, -32768, 2**31 - 1, 0)
    analog_rate = _scalar(groups, processor, "ANALOG", "RATE", source, 0, 1e7, 0.0)
    per_frame = int(analog_rate / rate) if rate >= 1 and int(analog_rate / rate) != header_per_frame \
        else header_per_frame
    channels = _scalar(groups, processor, "ANALOG", "USED", source, 0, 32767,
                       measurements // header_per_frame if header_per_frame else 0)
    channels = int(channels)
    if channels:
        for name in ("SCALE", "OFFSET"):
            values = [_decode(p, processor) for key, p in groups.get("ANALOG", {}).items()
                      if (key == name or (key.startswith(name) and key[len(name):].isdigit())) and p.element != -1]
            if sum(v.size for v in values) < channels:
                raise _corrupt(source, f"ANALOG:{name} has fewer values than the {channels} channels")
    _scalar(groups, processor, "ANALOG", "GEN_SCALE", source, -np.inf, np.inf, None)
    if last_word != 0xFFFF and last < first:
        raise _corrupt(source, f"the header's last frame {last + 1} is before its first frame {first + 1}")
    start_block = int(_scalar(groups, processor, "POINT", "DATA_START", source, 1, 65535, data_block))
    for block in {start_block, data_block}:
        if (block - 1) * BLOCK < section_end or (block - 1) * BLOCK > size:
            raise _corrupt(source, f"the data start at block {block} is not after the parameters and inside the file")
    layout = C3DLayout(processor=processor, frames=0, points=int(points), rate=rate,
                       analog_channels=channels, analog_per_frame=per_frame, float_data=scale < 0,
                       data_start=(data_block - 1) * BLOCK, groups=groups)
    available = (size - layout.data_start) // layout.frame_bytes if layout.frame_bytes else 0
    if points or (channels and per_frame):
        # The header's own count (ezc3d rewrites it to what it read, so a cut file looks whole there), else
        # POINT:FRAMES (over 65535 frames), else to the end of the file. ezc3d allocates POINT:FRAMES frames.
        layout.frames = last - first + 1 if last_word != 0xFFFF else int(frames_parameter) or available
        if layout.frames > available or frames_parameter > max(available, 65535):
            raise InputError(f"{source} ends after {available} of its {max(layout.frames, int(frames_parameter))} "
                             "frames: the file is truncated", "export or copy the file again")
    _check_rotations(layout, size, source)
    return layout


def _check_rotations(layout: C3DLayout, size: int, source: str) -> None:
    """ezc3d reads ``ROTATION`` data whenever the group exists: its scalars must be there and fit the file."""
    if "ROTATION" not in layout.groups:
        return
    groups, processor = layout.groups, layout.processor
    used = _scalar(groups, processor, "ROTATION", "USED", source, 0, 32767, None)
    block = _scalar(groups, processor, "ROTATION", "DATA_START", source, 1, 65535, None)
    ratio = _scalar(groups, processor, "ROTATION", "RATIO", source, 0, 1000, None)
    if ratio is None:
        rotation_rate = _scalar(groups, processor, "ROTATION", "RATE", source, 0, 1e6, None)
        ratio = None if rotation_rate is None else rotation_rate / layout.rate
    if used is None or block is None or ratio is None or ratio > 1000:
        raise _corrupt(source, "the ROTATION group lacks USED, DATA_START or RATIO")
    if (block - 1) * BLOCK > size or layout.frames * int(ratio) * used * ROTATION_BYTES > size:
        raise _corrupt(source, "the ROTATION data do not fit in the file")
