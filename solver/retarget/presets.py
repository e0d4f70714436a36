"""Bone-mapping presets: a character's bone table as a small TOML file, written atomically.

    family = "Mixamo"
    [bones]
    "mixamorig:Hips" = "pelvis"
    "mixamorig:LeftUpLeg" = "thigh_l"
    [switches."thigh_parent.L"]
    IK_FK = 1.0
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from ..errors import InputError
from ..io.atomic import write_text
from ..io.documents import parse_document
from .bone_names import ROLES, Mapping


def _key(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's


def preset_text(mapping: Mapping) -> str:
    lines = [f"family = {_key(mapping.family)}", "", "[bones]"]
    lines += [f"{_key(bone)} = {_key(role)}" for bone, role in mapping.bones.items()]
    for bone, values in mapping.switches.items():
        lines += ["", f"[switches.{_key(bone)}]"] + [f"{_key(k)} = {float(v)!r}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def write_preset(path: str | Path, mapping: Mapping) -> Path:
    """Write ``mapping`` to the TOML file ``path`` (atomically)."""
    return write_text(path, preset_text(mapping))


def read_preset(path: str | Path) -> Mapping:
    """The mapping a preset file holds; unknown segments or malformed values are one clear error."""
    values = parse_document(path, tomllib.loads, "Bone-mapping preset", "TOML", "fix the file or save it again")
    bones, switches = values.get("bones", {}), values.get("switches", {})
    bad = sorted(f"{bone} = {role!r}" for bone, role in bones.items() if role not in ROLES)
    if not isinstance(bones, dict) or not isinstance(switches, dict) or bad:
        raise InputError(f"Bone-mapping preset {path} maps bones to unknown segments: {', '.join(bad)}"
                         if bad else f"Bone-mapping preset {path} has no [bones] table",
                         f"map bone names to one of {', '.join(ROLES)}")
    try:
        switches = {bone: {k: float(v) for k, v in props.items()} for bone, props in switches.items()}
    except (AttributeError, TypeError, ValueError):
        raise InputError(f"Bone-mapping preset {path}: [switches] must hold numbers per bone",
                         "write e.g. [switches.\"thigh_parent.L\"] IK_FK = 1.0") from None
    return Mapping(dict(bones), str(values.get("family", "preset")), switches)
