"""Contact forces solved frame by frame at the contact points the estimated surface makes active.

An extension of Brubaker, Sigal & Fleet (2009), not in the paper. Its
spring model (eqs. 4-7) makes a point's force a function of the point's
height and velocity alone; a foot in stance hardly moves, so the spring
cannot follow the double hump of walking's vertical force nor produce the
fore-aft force that a static foot transmits (a tangential *damper* pushes
only a sliding foot). Here the surfaces are given (found from resting points,
``support``, or the paper's eq. 10 plane), and the forces are the unknowns of
each frame, as in Fluit et al. (2014) and Skals et al. (2017):

    f_k = W Σ_e c_ke e_ke,   min_{c >= 0}  Σ_i w_i (r_i/W - (A f/W)_i)²  +  λ Σ_k Σ_e c_ke² / h_k      (*)

where ``r`` is the frame's root wrench without contact (eq. 9), ``A`` maps
point forces to the root wrench they explain (``point_force_root_map``),
``w`` weighs the torque rows by ``torque_weight`` [m⁻²] as in eq. 10, ``W``
is the body weight, ``e_ke`` are the four edges ``n ± μ t₁``, ``n ± μ t₂``
(normalised) of the friction pyramid of point ``k`` on the surface nearest
to it (a pyramid inside the friction cone, so every force pushes and
``|f_t| <= μ f_n``; ``t₁`` along the way the subject faces, ``cone_edges``),
and ``h_k = h(-G_d d_S(p_k))`` is eq. 4's distance sigmoid: the Tikhonov
term makes a point far from the surface (small ``h_k``) expensive to load
and shares the load evenly among points equally close to it. (*) is a
non-negative least squares problem per frame, solved exactly by Lawson and
Hanson's active-set method (``nnls``: an iteration costs O(6² |P|) on the
free edges ``P`` however many points touch). Each frame starts from the edges
that were free in the frame before (consecutive frames share their contact
set). The frames go in order on one thread (numba), which is fast enough and
compiles in a fraction of a parallel kernel's time. The activations, the cone
edges and the edges' penalties are computed beforehand for all frames at once
(numpy), and the forces from the edges' coefficients after it, so the kernel
only assembles and solves (the less code it holds, the sooner numba compiles
it: the first run's compile 10-25 % shorter than with the penalties and forces
assembled in the kernel); the activations only of the points that
come near a surface's top (``activation.might_reach``: the feet, the buttocks, not the
head), which takes 5-12 % off the estimate's time.

Six more terms, also beyond the paper, each a field of ``PerFrameOptions``
(0 turns all but the root torque's at landings off, 1 that one), validated against force plates and OpenSim's inverse
dynamics with the plates on six real trials (README):

- *Effort* (``effort`` ε = 0.05). The root wrench fixes six numbers; how two
  feet, or a seat and the feet, share the load is left to the priors. The body
  shares it so as to spare its joints (Fluit et al. 2014 and Skals et al. 2017
  solve contact forces together with muscle recruitment); here the net joint
  torques stand for the muscles. Every joint ``j`` between the root and an
  active point adds three rows to (*):

      ε |τ_j⁰/W - Σ_{k distal to j} (p_k - o_j) × f_k/W|²                     (**)

  with ``τ_j⁰`` the joint's torque without contact (inverse dynamics) and
  ``o_j`` its centre: ``τ_j = τ_j⁰ - Σ (p_k - o_j) × f_k`` is the torque the
  joint needs once the contact forces act (eq. 9 per joint). Seated, it moves
  most of the load the even share put on the feet back onto the seat
  (sit-to-stand vertical RMSE 16.9 -> 11.6 % BW); the joint moments from motion
  alone follow OpenSim's at mean r 0.83 instead of 0.80 where the plates see
  all contact (six trials, README).

  Seated, the weight is ``seated_effort`` ε_s = 0.3 instead, blended by how far
  the subject sits (the largest activation of a padded point, the ischial
  tuberosities of ``ContactPoints.padding``, on a seat or the floor: ``seated``):
  ``ε_t = ε + (ε_s - ε) s_t``. A seated person's legs relax and rest their
  weight on the seat; a walker's do not, and there the stronger prior takes
  the share between the feet away from the root torque (ε = 0.1 / 0.2
  everywhere: the walks' moments from motion alone 0.934 / 0.925 -> 0.919 /
  0.913 or 0.897 / 0.894). Sit-to-stand's vertical GRF 9.3 -> 7.6 % BW (7.8
  -> 6.8 with its static trial), mostly as the subject sits down, where the
  feet kept 0.1 BW the plates do not see; its moments over the whole trial
  0.815 -> 0.826; other trials have no seat and are unchanged (README,
  2026-11-29; ε_s = ε is the earlier behaviour; 0.15 gave 8.2 / 7.0, 1.0
  gave 6.8 / 7.6).

  In the settling after a hard landing (``Dynamics.settling``: 0.4 s in which
  the soft tissue still shakes over the bones, ``dynamics.touchdowns``) the
  weight is ``settling_effort`` ε_l = 0.3, blended by that window's weight
  ``l_t`` (the larger blend where both apply): the shaking sets the root
  torque's roll swinging, which traded up to 300 N between the video drop
  jump's feet while its plates shared the load evenly. Where the settling
  weighs over a half and the plates see all, the left-right difference of the
  feet's vertical forces misses the plates' by 28.7 -> 19.5 % BW RMS (DJ3 9.9
  -> 7.3); over the whole trials the per-foot vertical RMSE 11.3 / 8.1 -> 10.3
  / 7.1 % BW (DJ3 7.8 / 6.9 -> 7.6 / 6.6), the moments
  from motion alone against OpenSim's 0.876 -> 0.881 (DJ3 0.897 -> 0.899; with
  its plates filtered 0.932 -> 0.936, 0.928 -> 0.929) and against ours with the
  plates 0.933 -> 0.941 (0.938 -> 0.942); against OpenSim, video DJ4 / DJ3, 0.1
  gave 0.879 / 0.898, 0.2 as 0.3, 0.5 0.880 / 0.898 (2026-12-06; ε_l = ε: off).
- *Sliding* (``sliding_speed`` v_s = 0.7 m/s): a point's activation is multiplied
  by ``exp(-(|v_t|/v_s)²)``, ``v_t`` its velocity along the surface (at Winter's
  cutoff where the motion is known: ``estimate``); a foot's sole points are
  judged with their foot, by the slowest point of its sole (``sliding``; since
  2026-12-07, the figures below before it). A loaded
  contact does not slide (static friction); a swing foot skimming the floor
  at 3 m/s would otherwise carry the noise of the root wrench, and with it
  spurious hip and knee moments in swing. A walk's heel comes down sliding
  forward and stops as the plate feels it: walking1's left heel points were
  1.5 cm above the floor at 2.2 m/s, 0.9 at 1.2 m/s, and under 0.2 m/s when its
  plate's load began (session measurement, 2026-12-06); at v_s = 1 m/s they
  took load 50-60 ms before the plate did, from the foot pushing off. At 0.7
  (2026-12-06): the walks' onsets 55 / 60 / 45 -> 45 / 50 / 35 ms (walking1,
  walking4, video walk), their centre of pressure in single support 1.3 / 1.5
  -> 1.2 / 1.4 cm, the moments from motion alone against ours with the plates
  0.975 / 0.978 -> 0.977 / 0.980 and against OpenSim's 0.959 / 0.957 -> 0.961 /
  0.959 (the video walk 0.924, the drop jumps -0.001 to 0), sit-to-stand's
  vertical GRF 7.1 -> 6.9 % BW, the sprint's 25.1 -> 24.1 (COP 4.5 -> 4.4 cm;
  75.3 % of its root force explained against 76.4). At 0.5 the onsets gain
  10 ms more but the sprint's root force is explained at 73.8 % and the video
  walk's moments fall to 0.922; at 0.3 the sprint's stances slide away (78 %
  BW vertical RMSE).
- *Lean toward the centre of mass* (``toward_centre_of_mass`` γ = 2): an
  edge's penalty is multiplied by ``1 + γ (|u_k| - s_e·u_k)`` with ``u_k`` the
  direction from the point to the body's centre of mass projected on the
  surface and ``s_e`` the edge's unit slant along the surface: edges leaning
  away from the centre of mass cost more. The equations fix only the total
  horizontal force, not how two feet share it; a foot's ground reaction leans
  toward the centre of mass (it brakes in front, propels behind).
- *Shear* (``shear`` β = 0.005): each contact body ``b`` (a foot, the pelvis
  on a seat) with an active point adds two rows to (*),

      β |Σ_{k on b} (t₁·f_k, t₂·f_k)/W|²                                        (****)

  ``t₁``, ``t₂`` its surface's tangents (``face_tangents``): the force the body
  needs to hold by friction costs, as the effort does. In double support the
  root wrench leaves the pair of opposite horizontal forces under the two feet
  free, and the effort (**) alone sets it where each force points along its
  leg, through the hip: the trailing foot kept pushing forward at 0.5-0.6 of
  its vertical load as it left the floor where the plates' pushed at 0.3, and
  the leading foot braked harder (video walk, session measurement,
  2026-12-06), and the hips' moments followed. Fluit et al. (2014) and Skals
  et al. (2017) recruit each contact point's friction with the muscles; here
  the friction is summed per body, so that the term leaves the centre of
  pressure within a foot to the others.
  Against OpenSim's moments with the plates where the plates see all (six
  trials, README, 2026-12-06): walking1, walking4, the video walk 0.961 /
  0.959 / 0.924 -> 0.965 / 0.962 / 0.930, the drop jumps and the
  sit-to-stand within 0.0005; against ours with the plates 0.977 / 0.980 /
  0.954 -> 0.983 / 0.984 / 0.963. The walks' horizontal force per foot
  nears the plates' (walking1 1.9 / 2.0 -> 1.7 / 1.8 % BW RMS, the video walk
  2.3 / 3.2 -> 2.0 / 3.0), the drop jumps' and the sit-to-stand's moves away
  by 0.1-0.2 (DJ3 3.9 / 4.4 -> 4.0 / 4.5: landing, the feet push apart
  sideways; along the subject's facing only, they stay, the moments within
  0.0001). At β = 0.003 / 0.007 / 0.01 /
  0.015 the walks gave 0.964 / 0.962 / 0.928 -- 0.964 / 0.961 / 0.931 --
  0.963 / 0.958 / 0.932 -- 0.958 / 0.952 / 0.931: a larger β shares the
  horizontal force between the feet evenly whatever their load.

- *Smoothing* (``smoothing`` τ = 2 ms): each frame adds to (*)

      s Σ_k Σ_e (c_ke - c_ke⁻)²                                               (***)

  with ``c⁻`` the previous frame's solution (zero for a point that was not loaded), ``s = τ f`` at ``f`` frames
  per second (0.2 per frame at 100 Hz: an exponential memory of a fixed time whatever the rate). The root wrench
  still fixes the total each frame; what the prior holds back is how it is shared between the points — the
  centre of pressure within a foot, the share between two feet — which (*) and (**) alone re-decide from each
  frame's noisy root torque, so that it jitters from heel to toe and from foot to foot. Causal on purpose: a
  foot reaching the floor takes load as the root wrench moves it there, and the trailing foot keeps its share
  until then. On six trials with plates (README, 2026-11-29) the hip, knee and ankle moments from motion alone
  follow OpenSim's, where the plates see all contact, at mean r 0.946 / 0.936 on the walks (0.934 / 0.925 at
  τ = 1 ms; walking1's knees 0.918 / 0.909 -> 0.953 / 0.935), 0.886 on the video walk (0.872), the drop jumps
  and the sit-to-stand +0.004-0.006; the centre of pressure in single support is 1.3 / 2.4 cm from
  the plates' on walking1 / the video walk (1.5 / 2.6 at 1 ms). The cost is sit-to-stand: the memory slows
  the load's passage from the feet to the seat, whose share the root torque pins only weakly (vertical RMSE
  9.1 -> 9.3 % BW, 7.4 -> 7.8 with the static trial; at 3 ms 9.6 and 8.2 for moments better by 0.002-0.006
  only). The first frame, and the first after a gap, have no prior. Written as a linear term,
  ``Σ_a (p_a + s) c_a² - 2 s c_a⁻ c_a``, it is the linear term ``g = s c⁻`` of ``nnls``.
- *The root torque at landings* (``landing_torque`` = 0.4): in a landing's window (``Dynamics.touchdown``, the
  frames that keep Winter's cutoff because the body comes down fast, ``dynamics.touchdowns``) the torque rows
  of (*) weigh ``1 - 0.6 d_t`` of eq. 10's, ``d_t`` the window's weight (1 after a hard landing, 0 at a walk's
  heel strike), so that the priors place the centre of pressure more than the root torque does. At an impact
  the soft tissue shaking over the bones makes the rigid segments' root torque wrong before their root force:
  the moment the motion needs about the plates' centre of pressure beyond the plates' own, 0.67 and 0.80
  N·m/kg RMS away from touch-downs on DJ3 and the video drop jump, is 1.46 and 1.63 from 0.03 s before to 0.1
  s after each touch-down (session measurement, 2026-12-06), some 90-150 N·m, which over a landing's 1000-2000
  N is 5-9 cm of centre of pressure: with eq. 10's weight DJ3's went to the heels, 6 cm behind the plates', at
  the force's peak, and its ankles' moments turned to dorsiflexion there. Where the plates see all, the hip,
  knee and ankle moments from motion alone against OpenSim's with the plates as recorded / filtered at 6 Hz
  like its coordinates, DJ3 then video DJ4 (README):

      landing_torque   1 (eq. 10)       0.6              0.4              0.2              0.1
      as recorded      0.880 / 0.863    0.891 / 0.871    0.898 / 0.876    0.901 / 0.881    0.897 / 0.882
      filtered         0.928 / 0.930    0.929 / 0.932    0.928 / 0.933    0.921 / 0.933    -

  (0: 0.877 / 0.881; lowering the torque rows for the 0.4 s of settling after a hard landing as well, at 0.2:
  0.894 / 0.881 as recorded). 0.4 gains against both references; 0.2 more as recorded, but it loses DJ3's
  hips against the filtered plates. Against ours with the plates, 0.932 -> 0.939 and 0.923 -> 0.933; the vertical
  GRF 11.8 -> 11.9 and 13.1 -> 13.1 % BW. The walks, the sit-to-stand and the sprint land softly and are
  unchanged; at a soft touch-down the root torque still tells (0.4 at every touch-down, a walk's heel strikes
  too: walking1, walking4 and the video walk 0.959 / 0.957 / 0.924 -> 0.953 / 0.950 / 0.918).

With effort and shear rows the free-set solve has ``6 + 3J + 2B`` rows, ``J``
the joints carrying an active point in the frame (six for two feet) and ``B``
the bodies with one (two).

Choices (each a field of ``PerFrameOptions``): ``friction`` μ = 0.8 (shoe on
a lab floor; walking needs about 0.2-0.3), ``regularisation`` λ = 1e-3 (a
fully active point pushing with a quarter of the body weight costs as much
as a root force of 0.5 % of it; heavier, the centre of pressure in single
support nears the plates', but a seated subject's feet keep load: README),
``min_activation`` 1e-3 (points less active than that — 5.8 cm off a
surface — carry nothing). The forces then cancel the
root wrench as far as the cones and the points near the surface allow, so
the fraction of the root force "explained" says little here (noise is
explained too); compare with force plates instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import SolverError
from .activation import activations
from .model import ContactConstants, SurfaceArrays
from .nnls import nnls_tikhonov, nnls_work_size
from .pyramids import cone_edges, edge_slants
from .sliding import sliding_factor, sole_of


@dataclass(frozen=True)
class PerFrameOptions:
    """Friction coefficient μ, Tikhonov weight λ (body-weight units), the activation below which a point
    carries nothing, the gain γ of the lean toward the centre of mass, the sliding speed v_s [m/s], the
    effort weight ε, ε_s while seated and ε_l while settling after a hard landing, the smoothing time τ [s],
    the root torque's weight at landings as a share of eq. 10's and the shear weight β (see the module
    docstring; γ, v_s, ε, ε_s, τ, that share and β may be 0: off; ε_l = ε and the share 1: eq. 10's
    throughout)."""

    friction: float = 0.8
    regularisation: float = 1e-3
    min_activation: float = 1e-3
    toward_centre_of_mass: float = 2.0
    sliding_speed: float = 0.7
    effort: float = 0.05
    seated_effort: float = 0.3
    settling_effort: float = 0.3
    smoothing: float = 0.002
    landing_torque: float = 0.4
    shear: float = 0.005

    def __post_init__(self):
        for name in ("friction", "regularisation", "min_activation", "toward_centre_of_mass", "sliding_speed",
                     "effort", "seated_effort", "settling_effort", "smoothing", "landing_torque", "shear"):
            value = getattr(self, name)
            may_be_off = name in ("toward_centre_of_mass", "sliding_speed", "effort", "seated_effort",
                                  "settling_effort", "smoothing", "landing_torque", "shear")
            if not (isinstance(value, (int, float)) and (value > 0 or may_be_off and value == 0)):
                raise SolverError(f"Per-frame contact option {name} = {value!r} is not a positive number",
                                  "e.g. friction=0.8, regularisation=1e-3")
        if self.landing_torque > 1:
            raise SolverError(f"Per-frame contact option landing_torque = {self.landing_torque!r} is above 1",
                              "give the root torque's weight at a landing as a share of eq. 10's, 0-1")


class JointLoads(NamedTuple):
    """The joints of (**): their torques without contact (T, J, 3) [N·m] and centres (T, J, 3) [m], world,
    and ``carries`` (K, J): joint ``j`` carries contact point ``k``'s force (``k`` is distal to it)."""

    torque: np.ndarray
    centre: np.ndarray
    carries: np.ndarray


def seated(activation: np.ndarray, padding: np.ndarray | None) -> np.ndarray:
    """How far the subject sits in each frame (T,): the largest ``activation`` (T, K) of a padded point (``padding``
    (K,) > 0: the ischial tuberosities), on a chair or on the floor."""
    padded = np.zeros(activation.shape[1], bool) if padding is None else np.asarray(padding) > 0
    return np.nan_to_num(activation[:, padded]).max(axis=1) if padded.any() else np.zeros(len(activation))


def effort_weights(options: PerFrameOptions, seated_share: np.ndarray, settling: np.ndarray | None) -> np.ndarray:
    """ε_t (T,) of (**): ``effort`` blended toward ``seated_effort`` by how far the subject sits (``seated``) and
    toward ``settling_effort`` by the ``settling`` weight (T,; none: 0), the larger of the two."""
    weight = options.effort + (options.seated_effort - options.effort) * seated_share
    if settling is None:
        return weight
    return np.maximum(weight, options.effort + (options.settling_effort - options.effort) * np.nan_to_num(settling))


def row_weights(n_frames: int, torque_weight: float, landing_torque: float = 1.0,
                touchdown: np.ndarray | None = None) -> np.ndarray:
    """The weights ``w_i`` (T, 6) of (*)'s rows in each frame: 1 on the force rows and ``torque_weight`` on the
    torque rows (eq. 10), these times ``1 - (1 - landing_torque) d_t`` with ``d_t`` the frame's ``touchdown``
    weight (T,; none: 0)."""
    torque = np.full(n_frames, float(torque_weight))
    if touchdown is not None:
        torque *= 1.0 - (1.0 - landing_torque) * np.nan_to_num(np.asarray(touchdown, dtype=float))
    return np.column_stack([np.ones((n_frames, 3)), np.repeat(torque[:, None], 3, axis=1)])


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)  # from Python only: no C callback
def _solve_frames(wrench, solvable, active, face, edges, arms, rows, penalty_base, joint_torque, joint_arms, carries,
                  effort, bodies, n_bodies, edge_shear, smoothing, follows, coefficients, columns, floats, flags,
                  indices):
    """Each frame's (*) on its ``active`` (T, K) points, in order, each frame starting from the free edges of
    the one before; the cone edges' coefficients ``c`` (T, K, 4) per unit body weight go to ``coefficients``.
    ``solvable`` (T,) the frames with a root wrench and a pose, ``wrench`` (T, 6) the root wrench per body
    weight times ``rows`` (T, 6), the rows' weights √w_i per frame; ``edges`` (F, 4, 3) each face's cone edges, ``face``
    (T, K) the face pushing each point, ``arms`` (T, K, 3) the points relative to the root origin,
    ``penalty_base`` (T, K, 4) each edge's Tikhonov weight λ (1 + γ (|u_k| - s_e·u_k)) / h_k; ``joint_torque``
    (T, J, 3) the joints' torques without contact per body weight, ``joint_arms`` (T, J, 3) their centres
    relative to the root origin, ``carries`` (K, J) whether joint ``j`` carries point ``k``'s force (the point
    is on a segment distal to it), ``effort`` (T,) the weight √ε_t of (**), ``bodies`` (K,) each point's
    contact body (0 to ``n_bodies`` - 1; ``n_bodies`` 0: no shear term) and ``edge_shear`` (4, 2) each cone
    edge's force along its face times √β (the same on every face), the rows of (****), ``smoothing`` the weight ``s`` of
    the smoothing prior per frame and ``follows`` (T,) whether frame ``t`` follows ``t - 1``; the rest is
    ``Scratch``'s working memory."""
    n_frames, n_points = active.shape
    n_joints, n_edges = joint_torque.shape[1], 4 * n_points
    # per cone edge: this frame's penalty, solution, linear term (***) and free flag at 4 p + e (p-th active
    # point), the frame before's solution and free flag at 4 k + e (point k)
    penalty, c, linear = floats[:n_edges], floats[n_edges:2 * n_edges], floats[2 * n_edges:3 * n_edges]
    before, rest = floats[3 * n_edges:4 * n_edges], floats[4 * n_edges:]
    n_rows = 6 + 3 * n_joints + 2 * n_bodies
    b, nnls_work = rest[:n_rows], rest[n_rows:]
    was_free, passive = flags[:n_edges], flags[n_edges:]
    chosen, loaded = indices[:n_points], indices[n_points:n_points + n_joints]
    body_row = indices[n_points + n_joints:n_points + n_joints + n_bodies]
    was_free[:] = False
    before[:] = 0.0
    settled = False  # the frame before was solved: the smoothing prior (***) ties this one to it
    for t in range(n_frames):
        if not solvable[t]:
            was_free[:] = False
            settled = False
            continue
        n = 0
        for k in range(n_points):
            if active[t, k]:
                chosen[n] = k
                n += 1
        for i in range(6):
            b[i] = wrench[t, i]
        prior = smoothing if follows[t] and settled else 0.0
        m = 6  # the effort rows (**) of the joints that carry an active point
        for j in range(n_joints if effort[t] > 0 else 0):
            carried = False
            for p in range(n):
                carried = carried or carries[chosen[p], j]
            if carried and np.isfinite(joint_torque[t, j, 0] + joint_torque[t, j, 1] + joint_torque[t, j, 2]):
                loaded[(m - 6) // 3] = j
                for i in range(3):
                    b[m + i] = effort[t] * joint_torque[t, j, i]
                m += 3
        n_loaded = (m - 6) // 3
        body_row[:] = -1  # the shear rows (****) of the bodies with an active point
        for p in range(n if n_bodies else 0):
            body = bodies[chosen[p]]
            if body_row[body] < 0:
                body_row[body] = m
                b[m] = b[m + 1] = 0.0
                m += 2
        for p in range(n):  # each edge's root wrench [e; (p - o) × e] (point_force_root_map), weighted
            k = chosen[p]
            rx, ry, rz, f = arms[t, k, 0], arms[t, k, 1], arms[t, k, 2], face[t, k]
            for e in range(4):
                a = 4 * p + e
                ex, ey, ez = edges[f, e, 0], edges[f, e, 1], edges[f, e, 2]
                columns[0, a], columns[1, a], columns[2, a] = rows[t, 0] * ex, rows[t, 1] * ey, rows[t, 2] * ez
                columns[3, a] = rows[t, 3] * (ry * ez - rz * ey)
                columns[4, a] = rows[t, 4] * (rz * ex - rx * ez)
                columns[5, a] = rows[t, 5] * (rx * ey - ry * ex)
                for r in range(n_loaded):  # the torque it takes off each joint carrying it, (p - o_j) × e
                    j = loaded[r]
                    if carries[k, j]:
                        jx, jy, jz = rx - joint_arms[t, j, 0], ry - joint_arms[t, j, 1], rz - joint_arms[t, j, 2]
                        columns[6 + 3 * r, a] = effort[t] * (jy * ez - jz * ey)
                        columns[7 + 3 * r, a] = effort[t] * (jz * ex - jx * ez)
                        columns[8 + 3 * r, a] = effort[t] * (jx * ey - jy * ex)
                    else:
                        columns[6 + 3 * r, a] = columns[7 + 3 * r, a] = columns[8 + 3 * r, a] = 0.0
                for r in range(6 + 3 * n_loaded, m):  # its force along the surface, on its body's shear rows
                    columns[r, a] = 0.0
                if n_bodies:
                    r = body_row[bodies[k]]
                    columns[r, a], columns[r + 1, a] = edge_shear[e, 0], edge_shear[e, 1]
                penalty[a] = penalty_base[t, k, e] + prior
                linear[a] = prior * before[4 * k + e]
                passive[a] = was_free[4 * k + e]
        nnls_tikhonov(columns[:m, :4 * n], penalty[:4 * n], b[:m], passive[:4 * n], c[:4 * n], linear[:4 * n],
                      nnls_work)
        settled = True
        was_free[:] = False
        before[:] = 0.0
        for p in range(n):
            k = chosen[p]
            for e in range(4):
                was_free[4 * k + e] = passive[4 * p + e]
                before[4 * k + e] = coefficients[t, k, e] = c[4 * p + e]


class Scratch(NamedTuple):
    """``_solve_frames``' output and working memory, allocated here rather than in the kernel (numba would compile
    numpy's allocators for it: half a second of the first run's compile): the ``coefficients`` (T, K, 4), zero
    until solved; the ``columns`` of (*) (6 + 3J + 2B, 4K); the ``floats`` (each edge's penalty, solution, linear
    term and solution in the frame before, the right-hand side, then ``nnls_tikhonov``'s), the ``flags`` (the
    edges free in the frame before and now) and the ``indices`` (the active points, the loaded joints, each
    body's first shear row)."""

    coefficients: np.ndarray
    columns: np.ndarray
    floats: np.ndarray
    flags: np.ndarray
    indices: np.ndarray

    @classmethod
    def allocate(cls, n_frames: int, n_points: int, n_joints: int, n_bodies: int = 0) -> "Scratch":
        m, n = 6 + 3 * n_joints + 2 * n_bodies, 4 * n_points
        return cls(np.zeros((n_frames, n_points, 4)), np.zeros((m, n)),
                   np.empty(4 * n + m + nnls_work_size(m, n)), np.empty(2 * n, dtype=np.bool_),
                   np.empty(n_points + n_joints + n_bodies, dtype=np.int64))


def per_frame_forces(residual: np.ndarray, root_origin: np.ndarray, points: np.ndarray, surfaces, weight: float,
                     torque_weight: float = 1.0, options: PerFrameOptions = PerFrameOptions(),
                     constants: ContactConstants = ContactConstants(),
                     centre_of_mass: np.ndarray | None = None, velocities: np.ndarray | None = None,
                     joints: JointLoads | None = None, times: np.ndarray | None = None,
                     padding: np.ndarray | None = None, floor_only: np.ndarray | None = None,
                     facing: np.ndarray | None = None, touchdown: np.ndarray | None = None,
                     settling: np.ndarray | None = None, bodies: np.ndarray | None = None,
                     sole_bodies: list[int] | None = None) -> np.ndarray:
    """Point forces per surface (S, T, K, 3) [N] of (*) for root wrenches ``residual`` (T, 6) without
    contact, about ``root_origin`` (T, 3), at contact points ``points`` (T, K, 3) near ``surfaces`` (each
    point pushed by the surface that makes it most active; ``padding`` and ``floor_only`` (K,) as in
    ``activations``);
    ``weight`` [N] the body weight; ``joints`` the joint torques for (**) (none: no effort term); ``times``
    (T,) [s] the frames' times for the smoothing prior (none: no prior; a frame more than 1.5 frame steps after
    the one before starts afresh); ``facing`` (3,) the way the subject faces, which orients the friction
    pyramids (``cone_edges``; none: the lab's X); ``touchdown`` (T,) how much each frame lies in a landing's
    window (``Dynamics.touchdown``), where the torque rows weigh ``landing_torque`` of the rest, and ``settling``
    (T,) in the settling after a hard landing (``Dynamics.settling``), where the effort weighs ``settling_effort``
    (none: nowhere); ``bodies`` (K,) the body (segment) each point is on, for the shear term (****) (none: no
    shear term), and ``sole_bodies`` those of them whose points are a foot's sole, judged sliding together
    (``sliding.sliding_speeds``; none: each point on its own).
    NaN in frames without a root wrench or a pose. Only the points that come within reach of a surface in some
    frame enter the solve."""
    if not weight > 0:
        raise SolverError("Per-frame contact forces need a positive body weight", "check the body model's mass")
    arrays = SurfaceArrays(surfaces)
    points = np.asarray(points, dtype=float)
    activation, surface, face = activations(points, arrays, constants, padding, floor_only, options.min_activation)
    root_origin = np.asarray(root_origin, dtype=float)
    posed = np.isfinite(residual).all(axis=1) & np.isfinite(points - root_origin[:, None]).all(axis=(1, 2))
    if joints is None:
        joints = JointLoads(np.zeros((len(points), 0, 3)), np.zeros((len(points), 0, 3)),
                            np.zeros((points.shape[1], 0), dtype=np.bool_))
    reach = np.flatnonzero((np.nan_to_num(activation) > options.min_activation).any(axis=0))  # the rest carry nothing
    near, activation, near_face = points[:, reach], activation[:, reach], face[:, reach]
    if velocities is not None and options.sliding_speed > 0:
        soles = None if bodies is None or sole_bodies is None else sole_of(bodies, sole_bodies)[reach]
        activation = activation * sliding_factor(np.asarray(velocities)[:, reach], arrays.normals[near_face],
                                                 options.sliding_speed, soles)
    activation = np.nan_to_num(activation)
    rows = np.sqrt(row_weights(len(points), torque_weight, options.landing_torque, touchdown))
    edges = cone_edges(arrays.normals, options.friction, facing)
    toward = np.zeros_like(near)
    if centre_of_mass is not None and options.toward_centre_of_mass > 0:
        toward = np.asarray(centre_of_mass)[:, None] - near
        toward = np.nan_to_num(toward / np.linalg.norm(toward, axis=-1, keepdims=True))
        normal = arrays.normals[near_face]  # the part of that direction along the surface
        toward = toward - np.einsum("tki,tki->tk", toward, normal)[..., None] * normal
    slant = edges - np.einsum("fei,fi->fe", edges, arrays.normals)[..., None] * arrays.normals[:, None]
    slant /= np.linalg.norm(slant, axis=-1, keepdims=True)
    aligned = np.einsum("tkei,tki->tke", slant[near_face], toward)
    with np.errstate(divide="ignore", over="ignore"):  # inactive points (h_k = 0 or denormal) are never loaded
        penalty_base = options.regularisation * (1.0 + options.toward_centre_of_mass * (
            np.linalg.norm(toward, axis=-1)[..., None] - aligned)) / activation[..., None]
    step = np.diff(times) if times is not None and len(times) > 1 else np.zeros(0)
    rate = 1.0 / step.min() if len(step) and step.min() > 0 else 0.0
    follows = np.r_[False, step < 1.5 / rate] if rate > 0 else np.zeros(len(points), dtype=np.bool_)
    arms = np.ascontiguousarray(near - root_origin[:, None])
    solvable = np.isfinite(residual).all(axis=1) & np.isfinite(arms).all(axis=(1, 2))
    body, n_bodies = np.zeros(len(reach), dtype=np.int64), 0  # the shear term's bodies, numbered from 0
    if options.shear > 0 and bodies is not None:
        kinds, body = np.unique(np.asarray(bodies)[reach], return_inverse=True)
        n_bodies = len(kinds)
    edge_shear = np.sqrt(options.shear) * edge_slants(options.friction)
    scratch = Scratch.allocate(len(points), len(reach), joints.torque.shape[1], n_bodies)
    _solve_frames(
        np.ascontiguousarray(residual, dtype=float) / weight * rows, solvable,
        activation > options.min_activation, np.ascontiguousarray(near_face), edges, arms, rows,
        penalty_base,
        np.ascontiguousarray(joints.torque, dtype=float) / weight,
        np.ascontiguousarray(joints.centre - root_origin[:, None]),
        np.ascontiguousarray(joints.carries[reach], dtype=np.bool_),
        np.sqrt(effort_weights(options, seated(activation, None if padding is None else np.asarray(padding)[reach]),
                               settling)),
        np.ascontiguousarray(body, dtype=np.int64), n_bodies, edge_shear, float(options.smoothing * rate), follows,
        *scratch)
    forces = np.zeros_like(points)
    forces[:, reach] = weight * sum(scratch.coefficients[..., e, None] * edges[near_face, e] for e in range(4))
    forces[~posed] = np.nan
    return np.stack([np.where((surface == s)[..., None], forces, 0.0) for s in range(len(arrays.first_face) - 1)])
