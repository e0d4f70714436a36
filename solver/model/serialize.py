"""Save and load a ``BodyModel`` as JSON; the round trip is exact (floats are written by ``repr``).

The file holds every segment field, the mass source and the metadata, with
the calibration report (``Calibration``) as a plain object. Writing goes
through a temporary file and a rename (``io.atomic``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..io.atomic import write_text
from ..io.documents import parse_document
from .body import BodyModel, Segment
from .calibrate import Calibration

FORMAT = "mocap_dynamics.body_model"
VERSION = 1
_ARRAYS = ("joint_offset", "axes", "tip", "com", "inertia", "marker_offsets", "contact_points")


def model_to_dict(model: BodyModel) -> dict:
    """Plain-data form of ``model`` (lists, numbers, strings)."""
    metadata = dict(model.metadata)
    if isinstance(metadata.get("calibration"), Calibration):
        metadata["calibration"] = metadata["calibration"].to_dict()
    segments = [{"name": s.name, "parent": s.parent, "joint": s.joint, "mass": s.mass, "markers": list(s.markers),
                 "held": s.held, **{k: getattr(s, k).tolist() for k in _ARRAYS}} for s in model.segments]
    return {"format": FORMAT, "version": VERSION, "mass_source": model.mass_source, "segments": segments,
            "metadata": metadata}


def _held(segment: dict) -> str:
    """A segment's ``held`` rule; files written before the HAT could be held say ``held_level`` (a head)."""
    return segment.get("held", "level" if segment.get("held_level") else "")


def model_from_dict(data: dict) -> BodyModel:
    """Inverse of ``model_to_dict``."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError("Not a body model: the JSON lacks format = " + repr(FORMAT),
                         "load a file written by save_model")
    if data.get("version") != VERSION:
        raise ModelError(f"Body model file version {data.get('version')!r} is not supported (expected {VERSION})",
                         "re-create the model with this version of Mocap Dynamics")
    metadata = dict(data.get("metadata", {}))
    if isinstance(metadata.get("calibration"), dict):
        metadata["calibration"] = Calibration.from_dict(metadata["calibration"])
    try:
        segments = tuple(Segment(name=s["name"], parent=s["parent"], joint=s["joint"], mass=s["mass"],
                                 markers=tuple(s["markers"]), held=_held(s),
                                 **{k: np.array(s[k], dtype=float) for k in _ARRAYS}) for s in data["segments"])
    except (KeyError, TypeError, ValueError) as error:
        raise ModelError(f"Body model file is damaged: {error}", "re-create it with save_model") from None
    return BodyModel(segments, mass_source=data["mass_source"], metadata=metadata)


def save_model(model: BodyModel, path: str | Path) -> Path:
    """Write ``model`` as JSON (atomically)."""
    return write_text(path, json.dumps(model_to_dict(model), indent=1))


def load_model(path: str | Path) -> BodyModel:
    """Read a model written by ``save_model``."""
    data = parse_document(path, json.loads, "Body model file", "JSON", "re-create it with save_model", ModelError)
    return model_from_dict(data)
