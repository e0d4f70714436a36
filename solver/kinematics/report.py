"""How a reconstruction went, in the figures Ausejo et al. report: convergence rate and time per
frame (Tables 1-4), and the distribution of marker distance errors per marker (the boxplot of Fig. 2).

Marker distance error: the distance between a measured marker and its model marker in one frame
(``Motion.marker_errors``); frames where the marker is missing do not count. Boxplot numbers are
Tukey's: quartiles, whiskers at the most extreme errors within 1.5 interquartile ranges of the box.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SolverError
from ..plots import new_figure, save_figure, subplots
from ..report_schema import ReconstructionSummary
from .motion import Motion


@dataclass(frozen=True)
class ConvergenceSummary:
    """Frames converged (count and %), QP / Newton steps per frame (mean, max), the largest ||Φ||₂,
    frames without data, wall time per frame [s] and the RMS marker distance error [m]."""

    frames: int
    converged: int
    rate_percent: float
    iterations_mean: float
    iterations_max: int
    constraint_norm_max: float
    no_data_frames: int
    seconds_per_frame: float
    marker_rms: float


@dataclass(frozen=True)
class MarkerErrorStats:
    """Per marker (``labels`` order) [m]: samples counted, median, quartiles, Tukey whiskers, maximum."""

    labels: tuple[str, ...]
    samples: np.ndarray
    median: np.ndarray
    lower_quartile: np.ndarray
    upper_quartile: np.ndarray
    lower_whisker: np.ndarray
    upper_whisker: np.ndarray
    maximum: np.ndarray

    def rows(self) -> list[tuple]:
        """(label, samples, median, Q1, Q3, whiskers, max) per marker, distances in mm."""
        mm = [1000 * a for a in (self.median, self.lower_quartile, self.upper_quartile, self.lower_whisker,
                                 self.upper_whisker, self.maximum)]
        return [(label, int(n), *(float(a[i]) for a in mm)) for i, (label, n) in enumerate(zip(self.labels,
                                                                                                 self.samples))]


def _errors(motion: Motion) -> np.ndarray:
    if motion.marker_errors is None:
        raise SolverError(f"This motion ({motion.method}) carries no marker errors",
                          "report a motion from solver.kinematics.reconstruct")
    return motion.marker_errors


def marker_rms(motion: Motion) -> float:
    """RMS marker distance error [m] over every present marker sample."""
    errors = _errors(motion)
    return float(np.sqrt(np.nanmean(errors ** 2))) if np.isfinite(errors).any() else float("nan")


def convergence_summary(motion: Motion) -> ConvergenceSummary:
    """Convergence rate, steps, ||Φ||, time per frame and marker RMS of a reconstruction."""
    if motion.converged is None:
        raise SolverError(f"This motion ({motion.method}) carries no convergence record",
                          "report a motion from solver.kinematics.reconstruct")
    frames = motion.n_frames
    converged = int(np.count_nonzero(motion.converged))
    return ConvergenceSummary(
        frames=frames, converged=converged, rate_percent=100.0 * converged / frames if frames else 0.0,
        iterations_mean=float(np.mean(motion.iterations)) if frames else 0.0,
        iterations_max=int(np.max(motion.iterations)) if frames else 0,
        constraint_norm_max=float(np.nanmax(motion.constraint_norm)) if frames else 0.0,
        no_data_frames=int(motion.info.get("no_data_frames", 0)),
        seconds_per_frame=float(motion.info.get("seconds_per_frame", float("nan"))), marker_rms=marker_rms(motion))


def marker_error_stats(motion: Motion) -> MarkerErrorStats:
    """The Fig. 2 boxplot as numbers, per marker."""
    errors = _errors(motion)
    stats = [_box(column[np.isfinite(column)]) for column in errors.T]
    columns = np.array(stats).reshape(len(stats), 7).T if stats else np.zeros((7, 0))
    return MarkerErrorStats(tuple(motion.marker_labels), columns[0].astype(int), *columns[1:])


def reconstruction_summary(motion: Motion) -> ReconstructionSummary:
    """``Motion.summary()``: the convergence summary and the five markers with the largest median error."""
    summary = convergence_summary(motion)
    stats = marker_error_stats(motion)
    worst = np.argsort(-stats.median)[:5]
    return {
        "method": motion.method,
        "frames": summary.frames,
        "frames_converged": summary.converged,
        "converged_percent": summary.rate_percent,
        "frames_without_data": summary.no_data_frames,
        "frames_held": dict(motion.info.get("prior_frames", {})),
        "samples_down_weighted": dict(motion.info.get("down_weighted", {})),
        "iterations_mean": summary.iterations_mean,
        "iterations_max": summary.iterations_max,
        "constraint_norm_max": summary.constraint_norm_max,
        "seconds_per_frame": summary.seconds_per_frame,
        "marker_rms_m": summary.marker_rms,
        "worst_markers_median_m": {stats.labels[i]: float(stats.median[i]) for i in worst},
    }


def _box(values: np.ndarray) -> tuple:
    """(samples, median, Q1, Q3, lower whisker, upper whisker, max) of one marker's errors."""
    if not len(values):
        return (0,) + (np.nan,) * 6
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    inside = values[(values >= q1 - reach) & (values <= q3 + reach)]
    return len(values), median, q1, q3, inside.min(), inside.max(), values.max()


def plot_marker_errors(motion: Motion, path, title: str | None = None) -> Path:
    """Boxplot of the marker distance errors [mm] per marker (the paper's Fig. 2) as a PNG at ``path``: Tukey's
    boxes (``marker_error_stats``), the median orange, the errors beyond the whiskers as circles.

    Needs matplotlib (in the development environment, not in Blender's: ``SolverError`` without it); the
    file is written whole or not at all. Returns the path. All boxes are drawn as two line collections and
    one marker line (matplotlib's ``boxplot`` makes seven artists a marker, slow to draw)."""
    errors = 1000 * _errors(motion)
    stats = marker_error_stats(motion)
    x = np.arange(1, len(stats.labels) + 1, dtype=float)
    low, q1, median, q3, high = (1000 * a for a in (stats.lower_whisker, stats.lower_quartile, stats.median,
                                                    stats.upper_quartile, stats.upper_whisker))
    half, cap = 0.3, 0.15
    outline = np.stack([  # (segment, end, xy): box sides, top and bottom, whiskers and caps
        *[[[x + dx, q1], [x + dx, q3]] for dx in (-half, half)], [[x - half, q1], [x + half, q1]],
        [[x - half, q3], [x + half, q3]], [[x, q1], [x, low]], [[x, q3], [x, high]],
        [[x - cap, low], [x + cap, low]], [[x - cap, high], [x + cap, high]]]).transpose(0, 3, 1, 2)
    outline = outline.reshape(-1, 2, 2)
    outline = outline[np.isfinite(outline).all(axis=(1, 2))]
    medians = np.stack([[x - half, median], [x + half, median]]).transpose(2, 0, 1)
    outside = (errors < low) | (errors > high)
    columns = np.broadcast_to(x, errors.shape)
    figure = new_figure(max(6.0, 0.25 * len(x) + 1.5), 4.5, bottom=1.0, top=0.4)
    axes = subplots(figure)[0, 0]
    from matplotlib.collections import LineCollection  # matplotlib is there: new_figure checked

    axes.add_collection(LineCollection(outline, colors="black", linewidths=1.0))
    axes.add_collection(LineCollection(medians[np.isfinite(medians).all(axis=(1, 2))], colors="C1",
                                       linewidths=1.0))
    axes.plot(columns[outside], errors[outside], linestyle="none", marker="o", markersize=3,
              markerfacecolor="none", markeredgecolor="black", markeredgewidth=0.8)
    axes.set_xlim(0.5, len(x) + 0.5)
    axes.set_ylim(bottom=min(0.0, float(np.nanmin(low, initial=0.0))) - 1.0,
                  top=1.05 * float(np.nanmax(errors, initial=1.0)))
    axes.set_xticks(x, stats.labels, rotation=90, fontsize=7)
    axes.set_ylabel("marker distance error [mm]")
    axes.set_title(title or f"Marker distance errors ({motion.info.get('mode', motion.method)}, "
                            f"RMS {1000 * marker_rms(motion):.1f} mm)", y=1.0)
    axes.grid(axis="y", alpha=0.3)
    return save_figure(figure, path)
