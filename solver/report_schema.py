"""The report's one schema: what ``pipeline.run``'s report holds, section by section, as ``TypedDict`` s.

Every reader goes through these types: the text summary (``report.summary``), the JSON report (``python -m
solver``, ``process_trial.py``), batch's ``summary.csv`` (``batch.report_figures``), the sidebar's panels and
the metadata stored on a trial's collection in Blender (``TrialMetadata``). Each section is written by the
``summary()`` of the result object it describes (``Trial``, ``BodyModel``, ``GapFill``, ``Motion``,
``Dynamics``, ``Contact``, ``PlateComparison``, ``ZeroGravity``, ``Discovery``); ``report.build_report``
assembles them.

Conventions: plain JSON values (dicts, lists, str, int, float, bool); lengths in m, angles in degrees, forces in
N, torques in N·m unless the key says otherwise (``_mm``, ``_percent_bw``, ``_cm``). A figure that does not
exist is None in the JSON (never NaN); Blender's ID properties cannot hold None, so the collection metadata
leaves such keys out: read optional keys with ``.get``.

(No ``from __future__ import annotations`` here: ``NotRequired`` must be seen when the classes are made.)
"""

from typing import Any, NotRequired, TypedDict


class MarkerGapsSummary(TypedDict):
    missing: int
    gaps: int
    longest: int


class TrialSummary(TypedDict):
    """``Trial.summary()``: what was read and converted."""

    frames: int
    rate_hz: float
    start_time_s: float
    duration_s: float
    markers: int
    force_plates: int
    missing_samples_percent: float
    markers_with_gaps: dict[str, MarkerGapsSummary]
    body_weight_n: float | None  # quiet standing on the plates
    body_mass_kg_from_plates: float | None
    conversions: list[str]
    warnings: list[str]


class ModelSummary(TypedDict):
    """``BodyModel.summary()``: the calibrated model."""

    template: str
    segments: int
    dof: int
    mass_kg: float
    mass_source: str
    mass_assumed: bool
    inertia_table: str
    shoes_kg: dict[str, float]  # segment -> the mass of the shoe it wears, part of mass_kg
    torso_centre: str  # where the torso's CM comes from: "dumas" (Dumas et al. 2007) or "table" (model.inertia)
    segment_masses: str  # how the body mass is shared out: "dumas" (Dumas et al. 2007) or "table" (model.inertia)
    markerset: str
    static: str | None
    segment_lengths_m: dict[str, float]
    cluster_residuals_m: dict[str, float]
    worst_markers_m: dict[str, float]
    joint_centres: dict[str, Any]
    welded: list[str]
    held: dict[str, str]  # segment -> the rule its joint is set by, not measured (model.held: "level", "follow")
    initial_marker_rms_m: float
    markers: dict[str, dict[str, Any]]  # label -> segment, landmarks
    ignored_markers: dict[str, str]  # label -> why
    markers_moving_with: dict[str, dict[str, Any]]  # unnamed ignored label -> segment, spread_m (a hint)
    notes: list[str]
    warnings: list[str]
    inertia_from_opensim_model: dict[str, Any] | None


class DiscoverySummary(TypedDict):
    """``Discovery.summary()``: segments found from the motion."""

    method: str
    rigid_clusters: list[list[str]]
    cluster_threshold_mm: float
    segments: dict[str, list[str]]
    confidence: dict[str, float]
    marker_methods: dict[str, str]
    joints: dict[str, Any]
    landmarks: dict[str, Any]
    ignored: list[str]
    notes: list[str]


class FilledMarkerSummary(TypedDict):
    frames_filled: int
    by_method: dict[str, int]
    gaps: list[dict[str, Any]]  # frames [first, last] (1-based), method


class GapFillSummary(TypedDict):
    """``GapFill.summary()``: what gap filling did."""

    options: dict[str, Any]
    samples_filled: int
    samples_filled_percent: float
    samples_by_method: dict[str, int]
    gaps_filled: int
    gaps_left: int
    samples_still_missing: int
    markers: dict[str, FilledMarkerSummary]
    left: dict[str, list[dict[str, Any]]]  # label -> frames, reason


class ReconstructionSummary(TypedDict):
    """``Motion.summary()``: convergence and marker errors (Ausejo et al. Tables 1-4, Fig. 2)."""

    method: str
    frames: int
    frames_converged: int
    converged_percent: float
    frames_without_data: int
    frames_held: dict[str, int]
    samples_down_weighted: dict[str, int]
    iterations_mean: float
    iterations_max: int
    constraint_norm_max: float
    seconds_per_frame: float
    marker_rms_m: float
    worst_markers_median_m: dict[str, float]


class ResidualSummary(TypedDict):
    """The root residual of one inverse-dynamics run (``Dynamics.residual_summary()``)."""

    root_force_mean_n: float
    root_force_mean_percent_bw: float
    root_force_max_n: float
    root_torque_mean_nm: float


class DynamicsSummary(TypedDict):
    """``Dynamics.summary(with_plates, shown)``: torques and root residuals without and with the measured plates,
    and with them and the contact estimated where no plate measures (``contact.unmeasured``); ``torques_with``
    names the forces of the torques shown and written; ``plates_applied`` says, a sentence per change, how the
    plates were changed to act on the body (``contact.apply_plates``; also among the plate comparison's warnings)."""

    frames: int
    derivatives: dict[str, Any]  # derivatives (scheme), cutoff_hz, cutoff_source, first_frame
    without_external_forces: ResidualSummary
    peak_joint_torque_nm: dict[str, float]
    torques_with: str
    with_measured_plates: NotRequired[ResidualSummary]
    root_force_ratio_with_to_without_plates: NotRequired[float]
    with_plates_and_estimated_support: NotRequired[ResidualSummary]
    plates_applied: NotRequired[list[str]]  # how the plates were changed to act on the body (``apply_plates``)


class SurfaceSummary(TypedDict, total=False):
    """One contact surface (``Contact.surface_summary``)."""

    name: str
    kind: str
    height_m: float
    height_above_floor_m: float  # raised surfaces only
    tilt_deg: float
    centre_m: list[float]
    extent_m: list[float] | None
    segments: list[str]  # the segments whose points rest on it
    normal: list[float]
    load_intervals_s: list[list[float]]
    mean_load_percent_bw: float
    peak_load_percent_bw: float


class FootComparisonSummary(TypedDict, total=False):
    rmse_vertical_bw_percent: float | None
    rmse_horizontal_bw_percent: float | None
    correlation_vertical: float | None
    correlation_anteroposterior: float | None
    correlation_mediolateral: float | None
    frames_loaded: int
    cop_error_single_support_cm: float | None
    single_support_frames: int
    onset_error_mean_abs_s: float | None
    offset_error_mean_abs_s: float | None


class PlatesSeeAllSummary(TypedDict, total=False):
    """The totals' figures over the frames in which the plates see all the contact (no box or seat loaded)."""

    frames_compared: int
    rmse_vertical_bw_percent: float | None
    rmse_horizontal_bw_percent: float | None
    correlation_vertical: float | None
    correlation_anteroposterior: float | None
    correlation_mediolateral: float | None


class MomentFigures(TypedDict):
    """One joint moment with the estimated contact against with the plates, over some frames."""

    r: float | None
    rmse_nm_per_kg: float | None
    frames: int


class MomentComparisonFigures(TypedDict):
    """``MomentComparison.figures``: per moment (``hip_l_flexion_moment``, ...) and their means."""

    mean_r: float | None
    mean_rmse_nm_per_kg: float | None
    moments: dict[str, MomentFigures]


class MomentComparisonSummary(MomentComparisonFigures):
    """``MomentComparison.summary()``: over every frame, and where the plates see all the contact."""

    where_plates_see_all: MomentComparisonFigures


class PlateComparisonSummary(TypedDict, total=False):
    """``PlateComparison.summary()``: the estimate against the force plates."""

    frames_compared: int
    frames: int
    rmse_vertical_bw_percent: float | None
    rmse_horizontal_bw_percent: float | None
    correlation_vertical: float | None
    correlation_anteroposterior: float | None
    correlation_mediolateral: float | None
    where_plates_see_all: PlatesSeeAllSummary
    cop_error_single_support_cm: float | None
    contacts: int
    onset_error_mean_abs_s: float | None
    offset_error_mean_abs_s: float | None
    body_weight_n: float
    plate_surfaces: list[Any]
    feet: dict[str, FootComparisonSummary]
    warnings: list[str]
    joint_moments: NotRequired[MomentComparisonSummary]  # when the dynamics with the plates were computed


class FlightSummary(TypedDict):
    """``contact.flight.Flight.summary()``: the frames with no body point near a surface and the root force the
    motion needs in them (zero for exact kinematics); with ``Contact.summary``'s share of the root force explained
    over the frames in which some body point is within reach (where contact can act)."""

    seconds: float
    frames: int
    root_force_rms_percent_bw: float
    explained_force_in_reach: float


class ContactSummary(TypedDict, total=False):
    """``Contact.summary()`` (``plates`` added by the report when the trial has force plates); the plane and
    spring figures only where they exist."""

    forces: str
    surfaces_from: str
    warnings: list[str]
    surfaces: list[SurfaceSummary]
    explained_force: float
    explained_torque: float
    floor_height_m: float
    floor_tilt_deg: float
    floor_velocity_m_s: list[float]
    flight: FlightSummary
    plane_normal: list[float]
    plane_offset_m: float
    plane_height_m: float
    plane_angle_deg: float
    resting_height_m: float
    stiffness: float
    normal_damping: float
    tangential_damping: float
    normalisation: Any
    force_scale_kg: float
    starts: int
    iterations: int
    seconds: float
    plates: PlateComparisonSummary


class ZeroGravitySummary(TypedDict, total=False):
    """``ZeroGravity.summary()`` (and the variant's own figures: its ``info``)."""

    method: str
    frames: int
    duration_s: float
    torso_reorientation_deg: float
    torso_reorientation_axis: list[float]
    initial_momentum: list[float]
    momentum_drift_relative: float
    root_residual_max: dict[str, float]  # force_n, torque_nm
    peak_joint_torque_nm: dict[str, float]
    timings_s: dict[str, float]


class TablesSummary(TypedDict):
    """The files a command wrote beside the report, and what it did not write and why."""

    files: list[str]
    notes: list[str]


class Report(TypedDict):
    """``PipelineResult.report()``: a section per stage that ran."""

    source: str
    versions: dict[str, str | None]
    options: dict[str, Any]  # in the shape of an options file (``options.options_to_dict``)
    trial: TrialSummary
    discovery: NotRequired[DiscoverySummary]
    model: NotRequired[ModelSummary]
    gap_fill: NotRequired[GapFillSummary]
    reconstruction: NotRequired[ReconstructionSummary]
    dynamics: NotRequired[DynamicsSummary]
    contact: NotRequired[ContactSummary]
    zero_gravity: NotRequired[ZeroGravitySummary]
    timings_s: dict[str, float]  # the steps computed
    reused: list[str]  # the steps taken from the previous run
    tables: NotRequired[TablesSummary]  # added by the commands that write tables


class SceneSummary(TypedDict, total=False):
    """How a trial's times map onto the Blender scene's frames."""

    start_frame: int
    timing: str
    start_time_s: float
    keyed_rate_hz: float
    keyed_frames: int


class TrialMetadata(Report, total=False):
    """The report as stored on a trial's collection in Blender (``addon.trial_scene``), with the scene timing."""

    scene: SceneSummary
