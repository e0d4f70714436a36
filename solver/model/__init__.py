"""Body model: segments, joints, inertia, marker sets, calibration, export.

``calibrate(trial)`` turns a trial (or a static trial) into the subject's
``BodyModel``; its report is ``model.metadata["calibration"]``. Templates:
``full15`` (default) and ``brubaker12``. ``write_mjcf`` exports for MuJoCo and
Pinocchio; ``save_model``/``load_model`` keep a model as JSON.
"""

from .body import BodyModel, Segment
from .body_mass import with_body_mass
from .calibrate import Calibration, calibrate
from .contact_points import ContactConfig, with_contact_points
from .fit import SegmentFit, fit_segments
from .markersets import BUILTIN as MARKERSETS, MarkerSet, load_markerset, recognize
from .mjcf import mjcf_string, write_mjcf
from .serialize import load_model, model_from_dict, model_to_dict, save_model
from .templates import TEMPLATES, get_template

__all__ = [
    "BodyModel", "Segment", "calibrate", "Calibration", "ContactConfig", "with_body_mass", "with_contact_points",
    "fit_segments", "SegmentFit", "MarkerSet", "MARKERSETS", "load_markerset", "recognize",
    "write_mjcf", "mjcf_string", "save_model", "load_model", "model_to_dict", "model_from_dict",
    "TEMPLATES", "get_template",
]
