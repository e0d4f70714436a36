"""Inverse dynamics: joint torques and the root (residual) wrench from a motion.

Brubaker, Sigal & Fleet (2009) §4, eq. 8-9: the generalized forces explain the
motion with joint torques ``τ_int``, gravity ``f_g``, external (contact) forces
``f_s`` and a 6-D root force ``f_root`` on the free root:

    [τ_int; f_root] = M(q) q̈ - A(q, q̇) - F(q) [f_g + f_s]            (9)

computed, for every frame at once, by Featherstone's recursive Newton-Euler
algorithm (RNEA; Badler et al. §5) in the world frame.

Conventions (every output):

- A joint torque is the torque **applied by the parent on the child**, about
  the joint centre; the joint force likewise. ``joint_torque_world`` is in the
  world frame, ``joint_torque_parent`` in the parent segment's frame.
- Row 0 (the root) of the per-segment arrays holds the root wrench: the
  force/torque the world would have to apply on the root, about the root
  origin (world frame, which is the root's "parent" frame).
- ``root_wrench`` (T, 6) = (force [N], torque [N·m]), both in the **world**
  frame, the torque about the **root segment origin** ``q[:, 0:3]``. It is
  the total rate of change of momentum minus gravity minus the external
  wrenches, all about that point, so it is *linear* in the external forces:
  ``root_wrench(f) = root_wrench(0) - Σ_k A_k f_k`` with ``A_k`` from
  ``point_force_root_map`` (what contact estimation minimises, eq. 10).
- ``generalized_forces`` (T, nv) is dual to the velocity layout of
  ``solver.model.body``: root force (world), root torque (root frame, about
  the root origin), ball joint torques (child frame), and torques about each
  hinge/universal axis (``s_k · n``, Badler et al. §5 ``Q = Sᵀ f``).
  ``Σ τ v`` is power, so ``joint_power`` sums it joint by joint (row 0: the
  power of the root wrench).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from numba import njit

from ..errors import SolverError
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from ..report_schema import DynamicsSummary, ResidualSummary
from .derivatives import Derivatives, motion_derivatives
from ..algorithms.kinematics import make_data
from ..algorithms.rnea import frame_rnea
from ..constants import GRAVITY
from ..kernels import put, put2, row, row2, tmatvec


@dataclass(frozen=True)
class ExternalForces:
    """Known external forces (force plates, estimated contact) acting at points of segments.

    ``segments`` (K,) index the segment each force acts on; ``points`` (T, K, 3)
    are the points of application in world [m]; ``forces`` (T, K, 3) the forces
    on the subject in world [N]; ``moments`` (T, K, 3), optional, free moments
    in world [N·m] (e.g. a force plate's free moment about its COP). An entry
    with a NaN in its point, force or moment in a frame (an unloaded plate has
    no centre of pressure) contributes nothing in that frame.
    """

    segments: np.ndarray
    points: np.ndarray
    forces: np.ndarray
    moments: np.ndarray | None = None

    def __post_init__(self):
        segs = np.asarray(self.segments, dtype=np.int64).reshape(-1)
        pts = np.asarray(self.points, dtype=float)
        frc = np.asarray(self.forces, dtype=float)
        mom = np.zeros_like(frc) if self.moments is None else np.asarray(self.moments, dtype=float)
        if pts.ndim != 3 or pts.shape[1:] != (len(segs), 3) or frc.shape != pts.shape or mom.shape != pts.shape:
            raise SolverError(f"External forces for {len(segs)} segments need points, forces and moments of "
                              f"shape (T, {len(segs)}, 3); got {pts.shape}, {frc.shape}, {mom.shape}",
                              "pass one row per frame and one column per force")
        missing = np.isnan(pts).any(-1) | np.isnan(frc).any(-1) | np.isnan(mom).any(-1)
        for name, value in (("segments", segs), ("points", np.where(missing[..., None], 0.0, pts)),
                            ("forces", np.where(missing[..., None], 0.0, frc)),
                            ("moments", np.where(missing[..., None], 0.0, mom))):
            value = np.ascontiguousarray(value)  # one layout, so the kernels compile once
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @classmethod
    def none(cls, n_frames: int) -> "ExternalForces":
        return cls(np.zeros(0, dtype=np.int64), np.zeros((n_frames, 0, 3)), np.zeros((n_frames, 0, 3)))

    def on_frames(self, options: dict, n_frames: int) -> "ExternalForces":
        """These forces, sampled on a motion's frames, cut to the ``n_frames`` frames of its dynamics from
        ``options["first_frame"]`` (``Dynamics.options``); as they are if already on those."""
        if len(self.points) <= n_frames:
            return self
        frames = slice(options["first_frame"], options["first_frame"] + n_frames)
        return replace(self, points=self.points[frames], forces=self.forces[frames], moments=self.moments[frames])

    def check(self, model: BodyModel, n_frames: int) -> None:
        if len(self.points) != n_frames:
            raise SolverError(f"External forces have {len(self.points)} frames, the motion {n_frames}",
                              "sample the forces on the frames of the dynamics (Dynamics.times)")
        if len(self.segments) and not (0 <= self.segments.min() and self.segments.max() < len(model.segments)):
            raise SolverError("An external force acts on a segment the model does not have",
                              f"use segment indices 0..{len(model.segments) - 1}")


@dataclass(frozen=True)
class Dynamics:
    """Inverse-dynamics results, time first; see the module docstring for frames and signs.

    ``q``, ``v``, ``a`` are the generalized coordinates, velocities and
    accelerations the forces explain (frame ``t`` of ``times``); ``external``
    the forces that were given; ``options`` how derivatives were obtained.
    """

    model: BodyModel
    times: np.ndarray  # (T,)
    q: np.ndarray  # (T, nq)
    v: np.ndarray  # (T, nv)
    a: np.ndarray  # (T, nv)
    gravity: np.ndarray  # (3,)
    generalized_forces: np.ndarray  # (T, nv)
    root_wrench: np.ndarray  # (T, 6) world frame, about the root origin
    joint_force: np.ndarray  # (T, S, 3) world frame
    joint_torque_world: np.ndarray  # (T, S, 3)
    joint_torque_parent: np.ndarray  # (T, S, 3)
    joint_power: np.ndarray  # (T, S) [W]
    external: ExternalForces | None = None
    options: dict = field(default_factory=dict)
    touchdown: np.ndarray | None = None  # (T,) how much each frame lies in a landing's window (``Derivatives``)
    settling: np.ndarray | None = None  # (T,) how much each frame lies in the settling after a hard landing

    @cached_property
    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """World rotation (T, S, 3, 3) and origin (T, S, 3) of every segment frame (``forward_kinematics(q)``),
        computed once: contact, moments and the rig all need them."""
        return self.model.forward_kinematics(self.q)

    @property
    def root_origin(self) -> np.ndarray:
        """The point the root torque is taken about: the root segment origin (T, 3), world."""
        return self.q[:, 0:3]

    def residual_summary(self) -> ResidualSummary:
        """The root residual force (mean, in % body weight, max) and torque (mean) over the frames."""
        weight = self.model.total_mass * float(np.linalg.norm(self.gravity))
        force = np.linalg.norm(self.root_wrench[:, :3], axis=1)
        torque = np.linalg.norm(self.root_wrench[:, 3:], axis=1)
        return {"root_force_mean_n": float(np.nanmean(force)),
                "root_force_mean_percent_bw": float(100 * np.nanmean(force) / weight),
                "root_force_max_n": float(np.nanmax(force)), "root_torque_mean_nm": float(np.nanmean(torque))}

    def summary(self, with_plates: Dynamics | None = None, shown: Dynamics | None = None) -> DynamicsSummary:
        """The report's ``dynamics`` section: these dynamics (no external forces), those with the measured plate
        forces when given, and the torques ``shown`` and written (``PipelineResult.best_dynamics``: with the
        plates, the plates and the contact estimated where none measures, or the estimated contact), whose
        forces ``torques_with`` names (their ``options["external"]``) and whose joint torques' peaks it gives."""
        best = shown or with_plates or self
        peaks = np.nanmax(np.linalg.norm(best.joint_torque_world, axis=-1), axis=0)
        out: DynamicsSummary = {
            "frames": len(self.times),
            "derivatives": self.options,
            "without_external_forces": self.residual_summary(),
            "peak_joint_torque_nm": {s.name: float(peaks[k]) for k, s in enumerate(best.model.segments)
                                     if k > 0 and s.joint != "weld"},
            "torques_with": best.options.get("external", "no external forces"),
        }
        if with_plates is not None:
            out["with_measured_plates"] = with_plates.residual_summary()
            out["root_force_ratio_with_to_without_plates"] = (out["with_measured_plates"]["root_force_mean_n"]
                                                              / out["without_external_forces"]["root_force_mean_n"])
            if best is not with_plates:
                out["with_plates_and_estimated_support"] = best.residual_summary()
        return out

    @property
    def axis_torques(self) -> np.ndarray:
        """Torques about each hinge/universal joint axis (T, S, 2); NaN where a joint has no such axis."""
        out = np.full(self.q.shape[:1] + (len(self.model.segments), 2), np.nan)
        for k, (s, start) in enumerate(zip(self.model.segments, self.model.v_starts)):
            if s.joint in ("hinge", "universal"):
                out[:, k, :s.nv] = self.generalized_forces[:, start:start + s.nv]
        return out


def point_force_root_map(root_origin: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Linear map from point forces to the root wrench they explain: ``(T, K, 6, 3)``.

    A force ``f`` at world point ``p`` on any segment changes the root wrench
    by ``-A f`` with ``A = [I; [p - o]×]`` (``o`` the root origin): for a free
    floating tree the root wrench is the momentum rate minus gravity minus the
    external wrench, all about ``o`` (Brubaker eq. 8-9 with ``f_s`` of eq. 7).
    So ``root_wrench(forces) = root_wrench_without - einsum('tkij,tkj->ti', A, forces)``,
    and the gradient of ``Σ|root_wrench|²`` w.r.t. the forces is
    ``-2 einsum('tkij,ti->tkj', A, root_wrench)``.
    """
    d = np.asarray(points, dtype=float) - np.asarray(root_origin, dtype=float)[:, None, :]
    out = np.zeros(d.shape[:-1] + (6, 3))
    out[..., 0, 0] = out[..., 1, 1] = out[..., 2, 2] = 1.0
    out[..., 3, 1], out[..., 3, 2] = -d[..., 2], d[..., 1]
    out[..., 4, 0], out[..., 4, 2] = d[..., 2], -d[..., 0]
    out[..., 5, 0], out[..., 5, 1] = -d[..., 1], d[..., 0]
    return out


def external_root_wrench(root_origin: np.ndarray, external: ExternalForces) -> np.ndarray:
    """The external wrench about the root origin, world frame ``(T, 6)``: subtract it from a root wrench."""
    d = external.points - np.asarray(root_origin, dtype=float)[:, None, :]
    return np.concatenate([external.forces.sum(1), (np.cross(d, external.forces) + external.moments).sum(1)], -1)


@njit(cache=True, nogil=True)
def _rnea_frames(tree, q, v, a, gravity, ext_segments, ext_points, ext_forces, ext_moments):
    """RNEA over all frames, one after the other (a few microseconds a frame: threads would not pay for the
    seconds a ``prange`` kernel takes to compile); ``nogil``, so Blender's interface runs on meanwhile."""
    n_frames, n_seg, n_ext = q.shape[0], len(tree.parent), len(ext_segments)
    tau = np.empty((n_frames, tree.nv))
    force = np.empty((n_frames, n_seg, 3))
    torque_world = np.empty((n_frames, n_seg, 3))
    torque_parent = np.empty((n_frames, n_seg, 3))
    power = np.zeros((n_frames, n_seg))
    data, segments = make_data(tree), ext_segments.copy()  # writable, as ``zerog.free_floating`` passes its own
    q_t, v_t, a_t, tau_t = np.empty(tree.nq), np.empty(tree.nv), np.empty(tree.nv), np.empty(tree.nv)
    points, forces, moments = np.empty((n_ext, 3)), np.empty((n_ext, 3)), np.empty((n_ext, 3))
    force_t, torque_t = np.empty((n_seg, 3)), np.empty((n_seg, 3))
    for t in range(n_frames):
        for k in range(tree.nq):
            q_t[k] = q[t, k]
        for k in range(tree.nv):
            v_t[k], a_t[k] = v[t, k], a[t, k]
        for k in range(n_ext):
            put(points, k, row2(ext_points, t, k))
            put(forces, k, row2(ext_forces, t, k))
            put(moments, k, row2(ext_moments, t, k))
        frame_rnea(tree, q_t, v_t, a_t, gravity, segments, points, forces, moments, data, force_t, torque_t, tau_t)
        for k in range(tree.nv):
            tau[t, k] = tau_t[k]
        for i in range(n_seg):
            torque = row(torque_t, i)
            p = tree.parent[i]
            put2(force, t, i, row(force_t, i))
            put2(torque_world, t, i, torque)
            put2(torque_parent, t, i, torque if p < 0 else tmatvec(data.rot, p, torque))
            for k in range(tree.v_start[i], tree.v_start[i] + tree.n_dof[i]):
                power[t, i] += tau_t[k] * v_t[k]
    return tau, force, torque_world, torque_parent, power


def rnea(model: BodyModel, times: np.ndarray, q: np.ndarray, v: np.ndarray, a: np.ndarray, *,
         gravity: np.ndarray = GRAVITY, external: ExternalForces | None = None, options: dict | None = None,
         ) -> Dynamics:
    """Inverse dynamics of given coordinates, velocities and accelerations (layouts of ``solver.model.body``).

    Brubaker eq. 9 by the recursive Newton-Euler algorithm, all frames at once.
    """
    q, v, a = (np.ascontiguousarray(x, dtype=float) for x in (q, v, a))
    n_frames = len(q)
    if q.shape != (n_frames, model.nq) or v.shape != (n_frames, model.nv) or a.shape != (n_frames, model.nv):
        raise SolverError(f"q, v, a must have shapes (T, {model.nq}), (T, {model.nv}), (T, {model.nv}); "
                          f"got {q.shape}, {v.shape}, {a.shape}", "pass coordinates in the model's layout")
    ext = ExternalForces.none(n_frames) if external is None else external
    ext.check(model, n_frames)
    gravity = np.asarray(gravity, dtype=float).reshape(3)
    tau, force, torque_world, torque_parent, power = _rnea_frames(
        model.tree, q, v, a, gravity, ext.segments, ext.points, ext.forces, ext.moments)
    root_wrench = np.concatenate([force[:, 0], torque_world[:, 0]], axis=-1)
    return Dynamics(model=model, times=np.asarray(times, dtype=float), q=q, v=v, a=a, gravity=gravity,
                    generalized_forces=tau, root_wrench=root_wrench, joint_force=force,
                    joint_torque_world=torque_world, joint_torque_parent=torque_parent, joint_power=power,
                    external=external, options=dict(options or {}))


def inverse_dynamics(motion: Motion, *, cutoff: float | str | None = None, scheme: str = "forward",
                     gravity: np.ndarray = GRAVITY, external: ExternalForces | None = None,
                     derivatives: Derivatives | None = None) -> Dynamics:
    """Joint torques and root wrench of a ``Motion`` (Brubaker §4, eq. 8-9).

    Velocities and accelerations come from ``motion_derivatives`` (Lee's
    consistent estimates when the motion has them, else finite differences —
    the paper's forward ones, or ``scheme="central"`` — optionally after a
    zero-lag Butterworth filter at ``cutoff`` Hz, ``"auto"`` for Winter's
    residual analysis). Forward differences leave frames ``0 .. T-3``,
    central ones ``1 .. T-2`` (``Dynamics.times``); ``external`` forces are
    sampled on the motion's frames (or already on those) and cut to them. ``derivatives``: what
    ``motion_derivatives`` returned for this motion's coordinates with this ``cutoff`` and ``scheme``, to reuse
    (the dynamics with and without plates, or after a mass change, differentiate the same coordinates).
    """
    derived = derivatives or motion_derivatives(motion, cutoff=cutoff, scheme=scheme)
    external = None if external is None else external.on_frames(derived.options, len(derived.times))
    dynamics = rnea(motion.model, derived.times, derived.q, derived.v, derived.a, gravity=gravity,
                    external=external, options=derived.options)
    return replace(dynamics, touchdown=derived.touchdown, settling=derived.settling)
