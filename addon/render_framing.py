"""Where the render camera stands and how much of the picture the subject fills.

The image is laid out left to right as a legend column, the 3D view and (with
plots) the plot panel (``Layout``). The camera looks at the subject from its
right (side), front or front-right (three-quarter), with a 50 mm lens; it is
placed by solving for its distance and lens shift in normalised image
coordinates (x, y in [-1, 1] across the frame; a point at camera-axis
coordinates (a, b, h) from the aim point, seen from distance D, is at
x = a / ((D − h) tan_x), y = b / ((D − h) tan_y)):

- **still** (``follow`` camera, one frame): the subject at that frame spans
  ``TARGET_HEIGHT`` of the image height; the arrows, disks (and the twin)
  must fit too, inside ``MARGIN``.
- **follow** (sequences and movies): the aim point is the centre of mass,
  low-passed by a zero-lag Gaussian (``FOLLOW_SIGMA_S``); the distance is
  fixed so that the subject's tallest frame spans ``FOLLOW_HEIGHT`` and every
  frame fits.
- **fixed**: one wide shot that holds everything over all the frames.

When long arrows would shrink the subject below ``MIN_SHARE`` of the height it
would have without them, the force scale is lowered to the largest 1-2-5
value that keeps it (the scale bar shows the scale used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import bpy
import numpy as np
from mathutils import Matrix

from .keying import key_channels, vector_channels
from .render_sampling import Sample

#: View -> (weight of the subject's forward direction, of its right, camera elevation [deg]) of the camera offset.
VIEWS = {"side": (0.0, 1.0, 6.0), "front": (1.0, 0.0, 6.0), "three_quarter": (1.0, 1.0, 15.0)}
CAMERAS = ("follow", "fixed")
LENS_MM, SENSOR_MM = 50.0, 36.0
TARGET_HEIGHT = 0.65  # a still: the subject's share of the image height
FOLLOW_HEIGHT = 0.68  # a follow camera: the subject's largest share over the frames
MIN_SHARE = 0.88  # arrows may shrink the subject to this fraction of its aimed size, then they are shortened
MARGIN = 0.04  # of the half-frame, kept free at every edge of the 3D view
FOLLOW_SIGMA_S = 0.25  # s: the follow camera's low-pass (Gaussian standard deviation)
TWIN_GAP = 0.35  # m between the subject and the zero-gravity twin, across the picture
LEGEND_WIDTH = 0.2  # of the image width, on the left
PANEL_WIDTH = 0.4  # of the image width, on the right, with plots


@dataclass(frozen=True)
class Layout:
    """The image split into a legend column, the 3D view and the plot panel (fractions of the width)."""

    width: int
    height: int
    panel: float = 0.0
    legend: float = LEGEND_WIDTH

    @property
    def view_x(self) -> tuple[float, float]:
        """The 3D view's left and right edges in normalised x."""
        return -1.0 + 2.0 * self.legend, 1.0 - 2.0 * self.panel


@dataclass
class Framing:
    """The camera as solved: its axes (columns; Z towards the camera), aim points ``(T, 3)``, distance [m],
    normalised window shift, the force scale to draw with [m/N], and the subject's share of the image
    height (at the still, or its largest over the frames)."""

    axes: np.ndarray
    aims: np.ndarray
    distance: float
    shift: tuple[float, float]
    force_scale: float
    subject_height: float
    tan: tuple[float, float]

    def metres_per_pixel(self, height: int) -> float:
        """Image scale at the aim point's depth."""
        return 2.0 * self.distance * self.tan[1] / height


def camera_axes(forward: np.ndarray, view: str) -> np.ndarray:
    """Camera X, Y, Z (Z points from the subject to the camera) as columns."""
    along, right, elevation = VIEWS[view]
    up = np.array([0.0, 0.0, 1.0])
    horizontal = along * forward + right * np.cross(forward, up)
    horizontal /= np.linalg.norm(horizontal)
    z = math.cos(math.radians(elevation)) * horizontal + math.sin(math.radians(elevation)) * up
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _project(points: np.ndarray, aims: np.ndarray, axes: np.ndarray, distance: float,
             tan: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Normalised image x, y ``(T, N)`` of ``points`` ``(T, N, 3)`` seen from ``distance`` along Z of ``aims``."""
    a, b, h = np.moveaxis((points - aims[:, None, :]) @ axes, -1, 0)
    depth = np.maximum(distance - h, 1e-6)
    return a / (depth * tan[0]), b / (depth * tan[1])


def _smallest_distance(fits, near: float) -> float:
    """The smallest distance at least ``near`` for which ``fits(distance)`` holds (it holds from there on)."""
    low, high = near, max(2.0 * near, 1.0)
    while not fits(high):
        low, high = high, 2.0 * high
        if high > 1e5:
            return high
    if fits(low):
        return low
    for _ in range(40):
        middle = 0.5 * (low + high)
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high


def _spans(points, aims, axes, distance, tan) -> tuple[float, float]:
    """Width and height of what ``points`` cover (NaN points ignored)."""
    x, y = _project(points, aims, axes, distance, tan)
    return float(np.nanmax(x) - np.nanmin(x)), float(np.nanmax(y) - np.nanmin(y))


def _subject_share(subject, aims, axes, distance, tan) -> float:
    """The subject's largest height over the frames, as a share of the image height."""
    _, y = _project(subject, aims, axes, distance, tan)
    return float(np.ptp(y, axis=1).max()) / 2.0


def _smooth(path: np.ndarray, rate: float) -> np.ndarray:
    """A zero-lag Gaussian low-pass of ``path`` ``(T, 3)`` (edges padded with the end values)."""
    sigma = FOLLOW_SIGMA_S * rate
    if len(path) < 3 or sigma < 0.5:
        return path
    radius = int(3 * sigma)
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    kernel /= kernel.sum()
    padded = np.pad(path, ((radius, radius), (0, 0)), mode="edge")
    return np.column_stack([np.convolve(padded[:, i], kernel, mode="valid") for i in range(3)])


def _nice_below(value: float) -> list[float]:
    """1-2-5 values below ``value`` down to a tenth of it, largest first."""
    power = 10.0 ** math.floor(math.log10(value))
    return [m * p for p in (power, power / 10) for m in (5.0, 2.0, 1.0) if 0.0999 * value < m * p < 0.999 * value]


def place_twin(sampled: Sample, axes: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The offset [m] that puts the twin right of the subject across the picture, at the subject's depth."""
    subject, twin = sampled.subject[index] @ axes, sampled.twin[index] @ axes
    across = subject[..., 0].max() - twin[..., 0].min() + TWIN_GAP
    depth = subject[..., 2].mean() - twin[..., 2].mean()
    return axes @ np.array([across, 0.0, depth])


def solve(sampled: Sample, index: np.ndarray, axes: np.ndarray, layout: Layout, mode: str, force_scale: float,
          torque_scale: float, head_scale: float, centre_of_mass: np.ndarray | None, rate: float) -> Framing:
    """Solve the camera (``mode`` follow or fixed) for the frames ``sampled.frames[index]`` (one: a still)."""
    tan_x = 0.5 * SENSOR_MM / LENS_MM
    tan = (tan_x, tan_x * layout.height / layout.width)
    subject = sampled.subject[index]
    low, high = subject.min(axis=1), subject.max(axis=1)  # per frame
    if mode == "fixed":
        aims = np.repeat(0.5 * (low.min(axis=0) + high.max(axis=0))[None], len(index), axis=0)
    elif len(index) > 1:  # follow the centre of mass (the body's middle without masses), low-passed
        middles = 0.5 * (low + high)
        path = _smooth(centre_of_mass[index] if centre_of_mass is not None else middles, rate)
        aims = path + (middles - path).mean(axis=0)
    else:
        aims = 0.5 * (low + high)
    x0, x1 = layout.view_x
    room_x, room_y = (x1 - x0) - 2.0 * MARGIN, 2.0 - 2.0 * MARGIN
    twin = [sampled.twin[index]] if sampled.twin is not None else []
    right, up = axes[:, 0], axes[:, 1]
    rims = sampled.disk_rims(torque_scale, right, up)[index]
    largest = np.concatenate([subject, sampled.arrow_ends(force_scale, head_scale)[index], rims, *twin], axis=1)
    near = float(np.nanmax(((largest - aims[:, None]) @ axes)[..., 2])) + 0.5

    def fits(points):
        return lambda d: all(s <= r for s, r in zip(_spans(points, aims, axes, d, tan), (room_x, room_y)))

    aimed = _smallest_distance(fits(subject), near)
    if mode != "fixed":
        target = TARGET_HEIGHT if len(index) == 1 else FOLLOW_HEIGHT
        aimed = max(aimed, _smallest_distance(lambda d: _subject_share(subject, aims, axes, d, tan) <= target, near))
    candidates = []  # (distance, scale, points) per force scale tried, the scene's first
    for scale in [force_scale] + (_nice_below(force_scale) if force_scale > 0 else []):
        everything = np.concatenate([subject, sampled.arrow_ends(scale, head_scale)[index], rims, *twin], axis=1)
        candidates.append((max(aimed, _smallest_distance(fits(everything), near)), scale, everything))
        if candidates[-1][0] * MIN_SHARE <= aimed:
            break
    else:  # no scale keeps the subject large: keep the scene's, in a wider shot
        candidates.append(candidates[0])
    distance, scale, everything = candidates[-1]
    x, y = _project(everything, aims, axes, distance, tan)
    sx_, sy_ = _project(subject, aims, axes, distance, tan)
    centre_x = 0.5 * (sx_.min() + sx_.max()) - 0.5 * (x0 + x1)
    shift_x = np.clip(centre_x, np.nanmax(x) + MARGIN - x1, np.nanmin(x) - MARGIN - x0)
    shift_y = np.clip(0.5 * (sy_.min() + sy_.max()), np.nanmax(y) + MARGIN - 1.0, np.nanmin(y) - MARGIN + 1.0)
    return Framing(axes, aims, distance, (float(shift_x), float(shift_y)), scale,
                   _subject_share(subject, aims, axes, distance, tan), tan)


def build_camera(collection: bpy.types.Collection, framing: Framing, frames: np.ndarray,
                 layout: Layout) -> bpy.types.Object:
    """The camera object of ``framing`` in ``collection``; keyed on ``frames`` when its aim moves."""
    data = bpy.data.cameras.new("MocapDynamics render camera")
    data.lens, data.sensor_width, data.sensor_fit = LENS_MM, SENSOR_MM, "HORIZONTAL"
    data.shift_x = 0.5 * framing.shift[0]  # Blender's shifts are fractions of the frame's larger side (the width)
    data.shift_y = 0.5 * framing.shift[1] * layout.height / layout.width
    data.clip_start, data.clip_end = 0.05, 2.0 * framing.distance + 50.0
    camera = bpy.data.objects.new("render camera", data)
    locations = framing.aims + framing.distance * framing.axes[:, 2]
    matrix = Matrix(framing.axes.tolist()).to_4x4()
    matrix.translation = locations[0]
    camera.matrix_world = matrix
    collection.objects.link(camera)
    if len(locations) > 1 and np.ptp(locations, axis=0).max() > 1e-6:
        key_channels(camera, vector_channels("location", frames, locations, group="Camera"))
    return camera
