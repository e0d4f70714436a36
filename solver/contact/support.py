"""Support surfaces found from where and when body points rest: the floor, a box, a step, a chair seat.

An extension of Brubaker, Sigal & Fleet (2009), whose §4.2 fits one plane by eq. 10 (``estimate.py``). A
body point that carries load does not move: so a cluster of contact points resting at one height is a
candidate surface. Here, on a whole trial:

1. *Resting samples*: a contact point (``ContactPoints``: the paper's rings and soles, and the seat points
   of ``model.contact_points``) is resting in a frame when it moves slower than ``REST_SPEED`` or, when
   the body travels fast, than ``REST_FRACTION`` of the centre of mass's horizontal speed (a sprinter's
   foot rolls and its markers shake at a good fraction of a metre per second, against 9 m/s of the body),
   faces down (its outward direction from its segment's axis points below ``FACING_DOWN``) and stays so for
   at least ``REST_TIME`` (a running stance lasts a tenth of a second, and a sprinter's foot points are that
   slow for 45-70 ms of it, the less the lower the motion's cutoff: the sprint at 10-33 Hz). The pelvis's
   points rest only while a thigh lies within ``PELVIS_THIGH`` of level (seated, lying, kneeling back on the
   heels): a subject standing still holds the pelvis still and its seat points face down, but the legs bear it
   (DJ3 with its markers drifting 1-2 cm at 2 Hz, as video markers do, found a "seat" at 1.10 m under the
   standing subject's pelvis in 4 of 6 variants, loaded with up to 53 % of the body weight; a chair's sitter
   has her thighs level, a standing subject 85 degrees below it). And nothing rests while the body falls
   freely: a point rests only in frames whose centre of mass is held up by at least ``SUPPORTED`` of the body's
   weight (a body thrown up and holding its pose moves slower than ``REST_SPEED`` everywhere for 40 ms at the
   top of its flight, and 1 m/s up found a floor there before this rule; a trampolinist's, a high jumper's).
   Where no point rests so, in the dynamics' motion nor in the one filtered at Winter's cutoff, the soles' points
   are judged with their foot (``rolling_speeds``; ``estimate._first_found``): a sprinter's forefoot rolls
   through its stance, and no point of it may stay still for long (the sprint asked to rest 0.08 s instead of
   0.04, or below 0.05 of its body's speed instead of 0.1, found no support: 147 % BW from its plates; with its
   soles it finds its floor 0.2-0.9 cm lower than as built, 21.9-22.8 % BW; asked to rest its whole 0.1 s
   stance, still none).
2. *Heights*: resting heights sorted and split where consecutive ones are more than ``HEIGHT_GAP`` apart;
   a cluster resting less than ``MIN_RESTING`` point-seconds is noise.
   The lowest cluster is the floor, wherever on it the subject stood; each cluster above it is split into
   the groups of samples that are horizontally connected (a chain of samples each within ``LINK`` of the
   next): the box a subject stood on and the spot where she squats after jumping off it are two
   candidates. Distances, not grid cells: a grid's cells depend on where the lab's axes point, and one
   turned by 90° or 180° split the two feet on a box, or the pelvis and thighs on a chair, into separate
   patches (the video drop jump's box kept one foot; STS1's chair the pelvis alone, its vertical GRF 9.3 ->
   10.0 % BW). ``LINK`` reaches as far as the 10 cm cells' neighbours did (up to 28 cm).
3. *Planes*: each cluster's plane is the least-squares plane through its lowest samples (within
   ``BAND`` of the 5th percentile of their heights above a first plane through all: points resting on a
   surface, not the ones resting above it). It slopes
   only along a horizontal direction in which the samples spread at least ``SPREAD`` (RMS; else a few
   centimetres of sole-model error over a foot's length would tilt it by degrees), and only if it then rises
   at least ``MIN_RISE`` across them (a heel's and a toe's resting points 1-2 cm off the floor either way,
   stop 43, tilted walking1 cut to 0.3 s by 2.0° over its two footprints 0.6 m apart; the whole walks by
   0.15-0.27°, the lab's floor being level): level for a standing or landing subject and for a level lab's
   walks, sloped along the walk on an incline rising 3 cm or more over the walked stretch.
4. *The floor* is the lowest cluster (a half-space). The others are *raised patches*: slabs of thickness
   ``SLAB`` over the oriented bounding rectangle of their resting samples, grown by ``MARGIN``. A patch
   within ``HEIGHT_GAP`` of the floor, or whose top is not at least ``BELOW_CM`` under the centre of mass
   while its points rest (crossed arms, hands in the lap rest *on the body*), is not a support.

Whether a raised patch carries load is decided by the forces (``estimate.estimate_contact``): it is kept
only where the root wrench needs it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from .model import ContactPoints, Plane, Surface
from .sliding import sliding_speeds

#: A contact point rests below this speed [m/s] ...
REST_SPEED = 0.2
#: ... or than this fraction of the centre of mass's horizontal speed ...
REST_FRACTION = 0.1
#: ... facing down: its outward direction's vertical component below this ...
FACING_DOWN = -0.5
#: ... while the body's centre of mass accelerates up at more than this fraction of gravity's pull, relative to free
#: fall (m (a - g) along the vertical, over m |g|: 0 in flight, 1 standing still; in the frames where a point rests
#: by the other rules, ten real trials here need 0.34 (the sit-to-stand) to 2.2 (the sprint) at least, the squat
#: 0.45; in flight, where the truth is 0, kinematic noise takes it down to -0.16 to -0.54, 2026-12-07) ...
SUPPORTED = 0.25
#: ... for at least this long [s].
REST_TIME = 0.04
#: Resting heights farther apart than this [m] belong to different surfaces.
HEIGHT_GAP = 0.04
#: A surface needs at least this many point-seconds of resting.
MIN_RESTING = 0.2
#: A plane is fitted through a cluster's samples within this [m] of its 5th percentile height.
BAND = 0.03
#: A plane slopes only along horizontal directions in which its samples spread at least this [m] (RMS).
SPREAD = 0.25
#: ... and only if it rises at least this much [m] across its samples.
MIN_RISE = 0.03
#: Resting samples horizontally closer than this [m] are connected (one surface) ...
LINK = 0.3
#: ... measured between their positions rounded to this [m] (fewer distinct positions to link).
RESOLUTION = 0.01
#: A raised patch: a slab this thick [m], over its resting samples' rectangle grown by ``MARGIN`` [m].
SLAB, MARGIN = 0.05, 0.05
#: A raised patch's top is at least this far [m] below the centre of mass while its points rest.
BELOW_CM = 0.15
#: The pelvis's points rest only while a thigh lies within this angle [deg] of level.
PELVIS_THIGH = 60.0


@dataclass(frozen=True)
class Patch:
    """A support surface found from resting points: its ``surface`` (a half-space for the floor, a slab for
    a raised patch), ``kind`` ("floor" or "raised"), ``centre`` (3,) of its resting samples on the plane,
    ``corners`` (4, 3) of its extent (None for the floor), the frames (T,) in which its points rest, the
    segments whose points rest on it, the cutoff [Hz] of the motion they were found resting in when it is not
    the dynamics' own, and whether they were found only with the soles judged with their foot
    (``estimate.detected_surfaces``)."""

    surface: Surface
    kind: str
    centre: np.ndarray
    corners: np.ndarray | None
    resting: np.ndarray
    segments: tuple[str, ...]
    found_at_hz: float | None = None
    found_rolling: bool = False

    @property
    def height(self) -> float:
        """Height [m] of the top at ``centre``."""
        return self.surface.top.height_at(*self.centre[:2])

    @property
    def tilt(self) -> float:
        """Angle [deg] between the top and the lab floor."""
        return self.surface.top.angle

    def summary(self) -> dict:
        extent = None if self.corners is None else [float(np.linalg.norm(self.corners[1] - self.corners[0])),
                                                     float(np.linalg.norm(self.corners[3] - self.corners[0]))]
        return {"kind": self.kind, "height_m": self.height, "tilt_deg": self.tilt,
                "centre_m": self.centre.tolist(), "extent_m": extent, "segments": list(self.segments)}


def outward_directions(model, points: ContactPoints) -> np.ndarray:
    """Each contact point's outward direction (K, 3) in its segment frame: from the nearest point of the
    segment's axis (origin to tip) to the contact point."""
    tips = np.array([model.segments[i].tip for i in points.segments])
    along = np.clip(np.einsum("ki,ki->k", points.local, tips) / np.einsum("ki,ki->k", tips, tips), 0.0, 1.0)
    out = points.local - along[:, None] * tips
    norm = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norm, out=np.zeros_like(out), where=norm > 0)


def resting_mask(model, points: ContactPoints, rotations: np.ndarray, positions: np.ndarray, velocities: np.ndarray,
                 centre_of_mass: np.ndarray, rate: float, gravity: np.ndarray, soles: np.ndarray | None = None
                 ) -> np.ndarray:
    """(T, K) True where a contact point rests (module docstring, step 1); ``rotations`` (T, S, 3, 3) the
    segments' world rotations; ``soles`` (K,) the sole each point is on (-1: none; ``sliding.sole_of``) to judge
    the soles' points with their foot (``rolling_speeds``), None to judge each point by its own speed."""
    moving = np.gradient(centre_of_mass, 1.0 / rate, axis=0) if len(positions) > 1 else np.zeros((len(positions), 3))
    threshold = np.maximum(REST_SPEED, REST_FRACTION * np.nan_to_num(np.linalg.norm(moving[:, :2], axis=1)))[:, None]
    down = np.einsum("tkj,kj->tk", rotations[:, points.segments, 2], outward_directions(model, points))
    speed = np.linalg.norm(velocities, axis=-1) if soles is None else rolling_speeds(velocities, soles)
    with np.errstate(invalid="ignore"):
        still = (speed < threshold) & (down < FACING_DOWN)
    pelvis = np.array([model.segments[i].name == "pelvis" for i in points.segments], dtype=bool)
    still[:, pelvis] &= ~thighs_upright(model, rotations)[:, None]
    still &= needs_support(moving, rate, gravity)[:, None]
    return _sustained(still, max(1, int(round(REST_TIME * rate))))


def rolling_speeds(velocities: np.ndarray, soles: np.ndarray) -> np.ndarray:
    """(T, K) the speeds [m/s] at which points with velocities (T, K, 3) are judged to move, the soles' points
    with their foot (``soles`` (K,), -1 off any sole): ``sliding.sliding_speeds`` (a sole turning about a
    point or a line within it is judged by how fast that moves), and no slower than the sole's slowest vertical
    speed (zero where its points' vertical velocities take both signs: a forefoot rolling on the floor; not a
    sole carried up or down as a whole, as on a trampoline's bed)."""
    speed = sliding_speeds(velocities, soles)
    for sole in np.unique(soles[soles >= 0]):
        mine = soles == sole
        vertical = velocities[:, mine, 2]
        with np.errstate(invalid="ignore"):
            either_way = (np.fmin.reduce(vertical, axis=1) <= 0.0) & (np.fmax.reduce(vertical, axis=1) >= 0.0)
        lifted = np.where(either_way, 0.0, np.fmin.reduce(np.abs(vertical), axis=1))
        speed[:, mine] = np.fmax(speed[:, mine], lifted[:, None])
    return speed


def needs_support(centre_of_mass_velocity: np.ndarray, rate: float, gravity: np.ndarray) -> np.ndarray:
    """(T,) False where the body falls freely, or nearly: its centre of mass, moving at ``centre_of_mass_velocity``
    (T, 3) [m/s], accelerates, relative to free fall under ``gravity`` (3,) [m/s²], by less than ``SUPPORTED`` of
    |g| upward; True where that is unknown (gaps, fewer than three frames)."""
    pull = float(np.linalg.norm(gravity))
    if len(centre_of_mass_velocity) < 3 or pull == 0.0:
        return np.ones(len(centre_of_mass_velocity), bool)
    acceleration = np.gradient(centre_of_mass_velocity, 1.0 / rate, axis=0)
    with np.errstate(invalid="ignore"):
        return ~((acceleration - gravity) @ (-gravity / pull) < SUPPORTED * pull)


def thighs_upright(model, rotations: np.ndarray) -> np.ndarray:
    """(T,) True where every thigh points down more steeply than ``PELVIS_THIGH`` below level (its origin-to-tip
    axis; ``rotations`` (T, S, 3, 3) the segments' world rotations); never for a model without thighs."""
    thighs = [k for k, s in enumerate(model.segments) if s.name.startswith("thigh")]
    if not thighs:
        return np.zeros(len(rotations), bool)
    axes = np.stack([rotations[:, k] @ (model.segments[k].tip / np.linalg.norm(model.segments[k].tip))
                     for k in thighs])  # (thighs, T, 3)
    with np.errstate(invalid="ignore"):
        return (-axes[..., 2] > np.sin(np.radians(PELVIS_THIGH))).all(axis=0)


def _sustained(flags: np.ndarray, length: int) -> np.ndarray:
    """``flags`` (T, K) kept only in runs of at least ``length`` frames along time."""
    padded = np.concatenate([np.zeros((1, flags.shape[1]), np.int8), flags.astype(np.int8),
                             np.zeros((1, flags.shape[1]), np.int8)])
    edges = np.diff(padded, axis=0)
    out = np.zeros_like(flags)
    for k in range(flags.shape[1]):
        for start, end in zip(np.flatnonzero(edges[:, k] == 1), np.flatnonzero(edges[:, k] == -1)):
            if end - start >= length:
                out[start:end, k] = True
    return out


def fit_plane(samples: np.ndarray) -> Plane:
    """Least-squares plane through the lowest of ``samples`` (N, 3) (module docstring, step 3): fitted to all,
    then again to those within ``BAND`` of the 5th percentile of their heights above the first plane."""
    plane = _least_squares_plane(samples)
    above = plane.distance(samples)
    return _least_squares_plane(samples[above <= np.percentile(above, 5) + BAND])


def _least_squares_plane(samples: np.ndarray) -> Plane:
    """The plane through ``samples`` (N, 3), sloping only along horizontal directions they spread along."""
    centre = samples.mean(0)
    horizontal = samples[:, :2] - centre[:2]
    spread, axes = np.linalg.eigh(horizontal.T @ horizontal / len(samples))
    sloped = axes[:, np.sqrt(np.maximum(spread, 0.0)) >= SPREAD]
    if sloped.shape[1] == 0:
        return Plane.through(centre, (0.0, 0.0, 1.0))
    slope, *_ = np.linalg.lstsq(horizontal @ sloped, samples[:, 2] - centre[2], rcond=None)
    gradient = sloped @ slope
    if np.ptp(horizontal @ gradient) < MIN_RISE:  # the plane would rise less than the soles' error across it
        return Plane.through(centre, (0.0, 0.0, 1.0))
    return Plane.through(centre, (-gradient[0], -gradient[1], 1.0))


def connected_groups(xy: np.ndarray) -> list[np.ndarray]:
    """Indices of ``xy`` (N, 2) split into groups of samples chained within ``LINK`` of each other (single
    linkage), in the order of each group's first sample."""
    spots, of_spot = np.unique(np.round(xy / RESOLUTION).astype(np.int64), axis=0, return_inverse=True)
    pairs = cKDTree(spots * RESOLUTION).query_pairs(LINK, output_type="ndarray")
    links = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(spots), len(spots)))
    _, labels = connected_components(links, directed=False)
    of_sample = labels[of_spot.ravel()]
    _, first = np.unique(of_sample, return_index=True)
    return [np.flatnonzero(of_sample == of_sample[i]) for i in np.sort(first)]


def slab(top: Plane, samples: np.ndarray) -> tuple[Surface, np.ndarray]:
    """A slab under ``top`` over the oriented rectangle of ``samples`` (N, 3) grown by ``MARGIN``: the surface
    (top face first) and the rectangle's corners on the top (4, 3)."""
    xy = samples[:, :2]
    middle = xy.mean(0)
    _, axes = np.linalg.eigh(np.cov((xy - middle).T) + 1e-12 * np.eye(2))
    local = (xy - middle) @ axes
    lo, hi = local.min(0) - MARGIN, local.max(0) + MARGIN
    faces = [top, Plane(-top.normal, -(top.offset - SLAB))]
    for k in range(2):
        for sign, bound in ((1.0, hi[k]), (-1.0, lo[k])):
            direction = sign * np.r_[axes[:, k], 0.0]
            faces.append(Plane(direction, sign * bound + direction[:2] @ middle))
    corners_xy = middle + np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]) @ axes.T
    corners = np.c_[corners_xy, [top.height_at(*c) for c in corners_xy]]
    return Surface(tuple(faces)), corners


def find_patches(model, points: ContactPoints, rotations: np.ndarray, positions: np.ndarray,
                 velocities: np.ndarray, centre_of_mass: np.ndarray, rate: float, gravity: np.ndarray,
                 soles: np.ndarray | None = None) -> list[Patch]:
    """Candidate support surfaces (module docstring), the floor first; empty when nothing rests. ``rotations``
    (T, S, 3, 3) the segments' world rotations (``forward_kinematics``), ``gravity`` (3,) [m/s²], ``soles`` as
    in ``resting_mask``."""
    resting = resting_mask(model, points, rotations, positions, velocities, centre_of_mass, rate, gravity, soles)
    names = np.array([model.segments[i].name for i in points.segments])
    return patches_of(resting, positions, names, centre_of_mass, rate)


def patches_of(resting: np.ndarray, positions: np.ndarray, names: np.ndarray, centre_of_mass: np.ndarray,
               rate: float) -> list[Patch]:
    """The patches (module docstring, steps 2-4) of the resting samples ``resting`` (T, K) of points at
    ``positions`` (T, K, 3) on segments named ``names`` (K,), the floor first."""
    frame, point = np.nonzero(resting)
    if len(frame) == 0:
        return []
    order = np.argsort(positions[frame, point, 2])
    frame, point = frame[order], point[order]
    heights = positions[frame, point, 2]
    splits = np.flatnonzero(np.diff(heights) > HEIGHT_GAP) + 1
    least = max(MIN_RESTING * rate, 3)  # and three samples at least: a plane needs them
    layers = [layer for layer in np.split(np.arange(len(heights)), splits) if len(layer) >= least]
    if not layers:
        return []
    clusters = layers[:1] + [layer[group] for layer in layers[1:]
                             for group in connected_groups(positions[frame[layer], point[layer], :2])]
    patches = []
    for members in clusters:
        if len(members) < least:
            continue
        f, k = frame[members], point[members]
        samples = positions[f, k]
        plane = fit_plane(samples)
        centre = samples.mean(0)
        centre[2] = plane.height_at(*centre[:2])
        when = np.zeros(len(positions), bool)
        when[f] = True
        segments = tuple(sorted(set(names[np.unique(k)])))
        if not patches:
            patches.append(Patch(Surface((plane,)), "floor", centre, None, when, segments))
            continue
        if centre[2] - patches[0].surface.top.height_at(*centre[:2]) <= HEIGHT_GAP:
            continue
        if np.nanmedian(centre_of_mass[when, 2]) - centre[2] < BELOW_CM:
            continue
        surface, corners = slab(plane, samples)
        patches.append(Patch(surface, "raised", centre, corners, when, segments))
    return patches
