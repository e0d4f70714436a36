"""The pipeline's options: their schema (``PipelineOptions``), which stage reads each one, and their one parser.

``options_from_dict`` is the only way from plain values (a TOML file, the CLI's flags, the options a Blender
trial stored on its collection) to ``PipelineOptions``; ``options_to_dict`` is its inverse, the shape the
report stores and a TOML options file takes.
"""

from __future__ import annotations

import tomllib
from difflib import get_close_matches
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from .contact import FORCE_MODELS, SURFACE_MODELS
from .dynamics import SCHEMES
from .errors import InputError, option
from .io import ImportOptions
from .io.documents import parse_document
from .kinematics.gap_fill import GapFillOptions
from .kinematics.marker_weights import MARKER_WEIGHTS
from .model.inertia import SEGMENT_MASS_SOURCES, SHOE_MASS, SHOE_MASS_FIX, TORSO_CENTRE_SOURCES
from .model.level_head import HEADS
from .plausibility import check_mass_range
from .zerog import ZeroGravityOptions

STAGES = ("import", "calibrate", "reconstruct", "dynamics", "contact", "zero_gravity")
#: ``markerset`` value that finds the segments from the motion even when the labels are known.
DISCOVER = "discover"
#: Loosest OTM tolerance on the constraints' norm ||Φ(q)||: looser, the joints come apart (5 flipped walking1's
#: feet between frames); the sidebar's field stops there too.
MAX_TOLERANCE = 1e-2
#: Options given as tables (TOML) or dotted names: the nested option objects of ``PipelineOptions``.
NESTED = {"import": ("import_options", ImportOptions), "gap_fill": ("gap_fill", GapFillOptions),
          "zero_gravity": ("zero_gravity", ZeroGravityOptions)}
#: The pipeline step (``stages.STEPS``) that reads each option: a change recomputes that step and the steps after
#: it that depend on it. An option missing here is taken as read by the first step (a change recomputes every
#: step); None: no step reads it.
READ_BY = {"import_options": "import", "grf": "import", "template": "calibrate", "mass": "calibrate",
           "static": "calibrate", "markerset": "calibrate", "sex": "calibrate", "head": "calibrate",
           "shoe_mass": "calibrate", "torso_centre": "calibrate", "segment_masses": "calibrate",
           "opensim_model": "calibrate",
           "gap_fill": "gap_fill",
           "method": "reconstruct", "otm_mode": "reconstruct", "tolerance": "reconstruct",
           "marker_weights": "reconstruct", "cutoff": "dynamics",
           "derivatives": "dynamics", "contact_forces": "contact", "surfaces": "contact",
           "zero_gravity": "zero_gravity", "until": None, "opensim": None, "plots": None}
#: Options that name files, taken from an options file's folder when relative.
PATHS = ("static", "markerset", "grf", "opensim_model")


@dataclass(frozen=True)
class PipelineOptions:
    """Everything a run needs besides the input file.

    ``grf``: an OpenSim GRF .mot for the trial ("auto": use ``<name>_grf.mot``
    next to a TRC if there is one). ``until``: the last stage to run.
    Body model: ``template`` (full15, brubaker12), ``mass`` [kg] (None: from
    quiet standing on force plates, else an assumed 70 kg that every report
    flags), ``static`` (a static trial of the same subject; its GRF found the
    same way), ``markerset`` (a TOML mapping for unknown marker sets), ``sex``
    (de Leva table), ``shoe_mass`` (kg per foot, part of ``mass``; 0: barefoot; ``model.inertia``),
    ``torso_centre`` (the torso's CM: "dumas", Dumas et al. 2007's, or "table", de Leva's; ``model.inertia``),
    ``segment_masses`` (the segments' shares of the body mass: "dumas" or "table", likewise), ``head``
    (segments without markers held by their rules, "level", or "welded" to their
    parents: ``model.held``); with ``markerset=None`` and labels that match no known set, or ``markerset="discover"``,
    the segments are found from the motion (``model.discovery``). ``gap_fill``: how marker gaps are filled
    before reconstruction (``GapFillOptions``; on by default). ``marker_weights``: OTM's marker weights,
    "weighted" (the pelvis's markers weigh more, and a marker that leaves its segment on its own less:
    ``kinematics.marker_weights``) or "equal" (the paper's). Dynamics: ``cutoff`` of the zero-lag low-pass
    filter before differentiating, in Hz,
    ``"auto"`` (Winter's residual analysis, per trial, at the touch-downs of the feet, weighted by how fast the
    body comes down, and elsewhere at most 8 Hz or 1 / the feet's contact time: ``dynamics.touchdowns``),
    ``"winter"`` (Winter's throughout) or
    ``"none"`` (no filter, the paper's; None is taken as "none"); ``derivatives``
    ``"central"`` or ``"forward"`` (the paper's, consistent with Euler integration). Contact:
    ``contact_forces`` ``"per_frame"`` (solved frame by frame within friction cones) or ``"spring"``
    (Brubaker et al.'s eqs. 4-7); ``surfaces`` ``"detected"`` (the floor and raised surfaces found from
    resting points) or ``"plane"`` (the paper's eq. 10), None for the force model's own (detected for
    per-frame forces, the plane for springs). The defaults are the combination validated against force
    plates (README). ``zero_gravity``: which zero-gravity variant the last stage simulates.
    ``opensim``: the results also include the OpenSim model, coordinates, loads and moments
    (``solver.opensim.export``); ``plots``: and the PNG plots (``solver.plots``; needs matplotlib; off by
    default: drawing them takes longer than the steps of a short trial). ``opensim_model``: an OpenSim model
    (.osim) whose segment masses, CM and inertia replace the inertia table's where its bodies map onto ours
    (``solver.opensim.inertia``).
    """

    import_options: ImportOptions = ImportOptions()
    grf: str | None = "auto"
    until: str = STAGES[-1]
    template: str = "full15"
    mass: float | None = None
    static: str | None = None
    markerset: str | None = None
    sex: str = "male"
    shoe_mass: float = SHOE_MASS
    torso_centre: str = "dumas"
    segment_masses: str = "dumas"
    head: str = "level"
    gap_fill: GapFillOptions = GapFillOptions()
    method: str = "otm"
    otm_mode: str = "fast"
    tolerance: float = 1e-7
    marker_weights: str = "weighted"
    cutoff: float | str = "auto"
    derivatives: str = "central"
    contact_forces: str = "per_frame"
    surfaces: str | None = None
    zero_gravity: ZeroGravityOptions = ZeroGravityOptions()
    opensim: bool = False
    plots: bool = False
    opensim_model: str | None = None

    def __post_init__(self):
        if self.until not in STAGES:
            raise InputError(f"Unknown pipeline stage {option('until', self.until)}",
                             f"use one of {', '.join(STAGES)}")
        if self.torso_centre not in TORSO_CENTRE_SOURCES:
            raise InputError(f"Unknown torso centre {option('torso_centre', self.torso_centre)}",
                             f"use {' or '.join(TORSO_CENTRE_SOURCES)}")
        if self.segment_masses not in SEGMENT_MASS_SOURCES:
            raise InputError(f"Unknown segment masses {option('segment_masses', self.segment_masses)}",
                             f"use {' or '.join(SEGMENT_MASS_SOURCES)}")
        if self.head not in HEADS:
            raise InputError(f"Unknown head option {option('head', self.head)}", f"use {' or '.join(HEADS)}")
        if self.method not in ("otm", "lee"):
            raise InputError(f"Unknown reconstruction method {option('method', self.method)}", "use otm or lee")
        if self.otm_mode not in ("fast", "paper"):
            raise InputError(f"Unknown OTM mode {option('otm_mode', self.otm_mode)}", "use fast or paper")
        if self.marker_weights not in MARKER_WEIGHTS:
            raise InputError(f"Unknown marker weights {option('marker_weights', self.marker_weights)}",
                             f"use {' or '.join(MARKER_WEIGHTS)}")
        if self.contact_forces not in FORCE_MODELS:
            raise InputError(f"Unknown contact force model {option('contact_forces', self.contact_forces)}",
                             f"use {' or '.join(FORCE_MODELS)}")
        if self.surfaces is not None and self.surfaces not in SURFACE_MODELS:
            raise InputError(f"Unknown contact surfaces {option('surfaces', self.surfaces)}",
                             f"use {' or '.join(SURFACE_MODELS)}")
        if self.contact_forces == "spring" and self.surfaces == "detected":
            raise InputError(f"Conflicting contact options: {option('contact_forces', 'spring')} needs the paper's "
                             "plane (eq. 10), not surfaces detected from resting points",
                             f"use {option('surfaces', 'plane')} with spring forces, or per_frame forces on "
                             "detected surfaces")
        if self.derivatives not in SCHEMES:
            raise InputError(f"Unknown derivatives {option('derivatives', self.derivatives)}",
                             f"use {' or '.join(SCHEMES)}")
        if self.cutoff is None or self.cutoff == "None":
            object.__setattr__(self, "cutoff", "none")
        for name in ("opensim", "plots"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"Option {option(name, getattr(self, name))} is not true or false",
                                 "set it to true or false")
        for name, optional, unit in (("mass", True, "kg"), ("tolerance", False, ""), ("cutoff", True, "Hz")):
            if name == "cutoff" and self.cutoff in ("auto", "winter", "none"):
                continue
            value = getattr(self, name)
            if (value is None and not optional) or (value is not None and (
                    isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0)):
                raise InputError(f"{option(name, value)} is not a positive number",
                                 f"give {option(name, hint=unit or 'value')}, a number above 0"
                                 + (f" (in {unit})" if unit else ""))
        if self.tolerance > MAX_TOLERANCE:
            raise InputError(f"{option('tolerance', self.tolerance)} is too loose for the joints' constraints",
                             f"give {option('tolerance')} at most {MAX_TOLERANCE:g} (default "
                             f"{PipelineOptions.tolerance:g})")
        if self.mass is not None:
            check_mass_range(self.mass)
        if isinstance(self.shoe_mass, bool) or not isinstance(self.shoe_mass, (int, float)) \
                or not self.shoe_mass >= 0:
            raise InputError(f"{option('shoe_mass', self.shoe_mass)} is not a shoe's mass", SHOE_MASS_FIX)

    @property
    def filter_cutoff(self) -> float | str | None:
        """``cutoff`` as inverse dynamics takes it (None for no filter)."""
        return None if self.cutoff == "none" else self.cutoff

    def runs(self, stage: str) -> bool:
        return STAGES.index(stage) <= STAGES.index(self.until)


def options_from_dict(values: dict, base: PipelineOptions = PipelineOptions()) -> PipelineOptions:
    """``base`` with the given fields replaced; the tables ``import``, ``gap_fill`` and ``zero_gravity`` set
    the fields of the nested ``ImportOptions``, ``GapFillOptions`` and ``ZeroGravityOptions``."""
    values = dict(values)
    tables = {name: values.pop(name, {}) for name in NESTED}
    known = {f.name for f in fields(PipelineOptions)} - {field for field, _ in NESTED.values()}
    unknown = sorted(set(values) - known)
    for name, (_, kind) in NESTED.items():
        unknown += [f"{name}.{k}" for k in sorted(set(tables[name]) - {f.name for f in fields(kind)})]
    if unknown:
        names = [*sorted(known), *NESTED] + [f"{name}.{f.name}" for name, (_, kind) in NESTED.items()
                                            for f in fields(kind)]
        guesses = [f"{name} (did you mean {close[0]}?)" if (close := get_close_matches(name, names, 1)) else name
                   for name in unknown]
        raise InputError(f"Unknown pipeline option(s): {', '.join(guesses)}",
                         f"use {', '.join(sorted(known))}, and "
                         + " and ".join(f"[{name}] {', '.join(f.name for f in fields(kind))}"
                                        for name, (_, kind) in NESTED.items()))
    try:
        nested = {field: replace(getattr(base, field), **tables[name]) for name, (field, _) in NESTED.items()}
        return replace(base, **nested, **values)
    except TypeError as error:
        raise InputError(f"Bad pipeline options: {error}", "check the option names and values") from None


def options_to_dict(options: PipelineOptions) -> dict:
    """``options`` as ``options_from_dict`` takes them (and an options file holds them): the nested options as
    the tables ``import``, ``gap_fill`` and ``zero_gravity``."""
    values = asdict(options)
    for name, (field, _) in NESTED.items():
        values[name] = values.pop(field)
    return values


def options_from_toml(path: str | Path, base: PipelineOptions = PipelineOptions()) -> PipelineOptions:
    """Pipeline options from a TOML file: top-level keys are ``PipelineOptions`` fields
    (e.g. ``until = "dynamics"``, ``mass = 61.5``), an ``[import]`` table holds ``units``, ``up_axis``,
    ``strip_prefix``, ``subject``, a ``[gap_fill]`` table ``method``, ``max_gap_s`` and the rest of
    ``GapFillOptions``, a ``[zero_gravity]`` table ``kind``, ``momentum``, ``angle_deg`` and the rest of
    ``ZeroGravityOptions``. Relative paths (``static``, ``markerset``, ``grf``, ``opensim_model``) are taken from
    the file's folder."""
    path = Path(path)
    values = parse_document(path, tomllib.loads, "Options file", "TOML", "fix the file")
    for key in PATHS:
        if (isinstance(values.get(key), str) and values[key] not in ("auto", DISCOVER)
                and not Path(values[key]).is_absolute()):
            values[key] = str(path.parent / values[key])
    return options_from_dict(values, base)
