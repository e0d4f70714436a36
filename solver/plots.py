"""Figures written next to a report: ground reaction forces, joint torques, reconstruction convergence, and
the root residual force across a batch of trials (Brubaker et al. 2009, Fig. 6).

Colours match the Blender visuals (``addon/materials.py``, linear RGB there, sRGB here): measured forces
orange, estimated ones green, root residuals red. Figures are drawn by matplotlib's Agg canvas without
pyplot (no global state, so worker threads may draw at once) and written atomically. They are made to draw
quickly (a warm ``python -m solver`` spent more time on its plots than on its physics): fixed margins instead
of a layout engine, at most ``TICKS`` ticks an axis, few artists (the boxplot is three), fast PNG
compression. matplotlib is imported only when a plot is drawn, and is not
bundled with the Blender extension: every function raises ``SolverError`` when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import SolverError
from .io.atomic import atomic_path

#: Linear RGB, as ``addon/materials.py`` COLOURS.
LINEAR_COLOURS = {"force_measured": (1.0, 0.35, 0.02), "force_estimated": (0.1, 0.8, 0.1),
                  "force_residual": (0.85, 0.05, 0.1), "contact_raised": (0.35, 0.2, 0.9)}
#: A surface without plates is drawn in the GRF plot when it ever carries this much of the body weight.
OFF_PLATES_SHOWN = 0.02
#: Main joints for the torque plot (``_l``/``_r`` appended).
MAIN_JOINTS = ("hip", "knee", "ankle", "shoulder", "elbow")
SIDES = (("l", "left", "tab:blue"), ("r", "right", "tab:purple"))
DPI = 100
#: zlib level of the PNGs (1 fastest, 9 smallest).
PNG_COMPRESSION = 1
#: Most major ticks on an axis.
TICKS = 6
#: Bin width of the batch histograms [%].
HISTOGRAM_BIN = 5.0


def srgb(kind: str) -> tuple[float, float, float]:
    """The sRGB colour matplotlib needs to show what Blender shows for the linear colour of ``kind``."""
    linear = np.asarray(LINEAR_COLOURS[kind])
    encoded = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    return tuple(float(c) for c in encoded)


def check_matplotlib() -> None:
    """Raise ``SolverError`` when matplotlib is not installed (as inside Blender)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise SolverError("Plotting needs matplotlib, which is not installed here (the Blender extension does "
                          "not bundle it)", "install matplotlib (pip install matplotlib); the tables and the "
                                            "JSON report carry the numbers") from error


def new_figure(width: float, height: float, *, left: float = 0.8, right: float = 0.25, bottom: float = 0.5,
               top: float = 0.55, wspace: float = 0.1, hspace: float = 0.1):
    """An empty matplotlib ``Figure`` ``width`` x ``height`` inches on the Agg canvas, its subplots placed by
    fixed margins in inches (``left`` ... ``top``; ``wspace``, ``hspace`` between subplots, as a fraction of
    their size): a layout engine (constrained, tight) costs more than all the drawing. ``SolverError`` without
    matplotlib."""
    check_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height,
                           top=1 - top / height, wspace=wspace, hspace=hspace)
    return figure


def subplots(figure, rows: int = 1, columns: int = 1, **share):
    """``figure.subplots(rows, columns, squeeze=False, **share)`` with at most ``TICKS`` major ticks an axis:
    every tick is a few artists to make and draw, the most expensive part of a figure."""
    from matplotlib.ticker import MaxNLocator

    axes = figure.subplots(rows, columns, squeeze=False, **share)
    for ax in axes.flat:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "linear":
                axis.set_major_locator(MaxNLocator(TICKS, steps=[1, 2, 2.5, 5, 10]))
    return axes


def save_figure(figure, path: str | Path) -> Path:
    """Write ``figure`` as a PNG at ``path``, whole or not at all (fast zlib level: the files are a little larger,
    the writing several times quicker)."""
    with atomic_path(path, suffix=".png") as temporary:
        figure.savefig(temporary, format="png", pil_kwargs={"compress_level": PNG_COMPRESSION})
    return Path(path)


def _percent_axis(axes, weight: float) -> None:
    """A right-hand axis in % body weight for an axis in newtons."""
    secondary = axes.secondary_yaxis("right", functions=(lambda n: 100.0 * n / weight, lambda p: p * weight / 100.0))
    secondary.set_ylabel("% body weight")


def _shade(axes, times: np.ndarray, where: np.ndarray, label: str | None = None) -> None:
    axes.fill_between(times, 0, 1, where=where, transform=axes.get_xaxis_transform(), color="0.9", zorder=0,
                      step="mid", label=label)


def _forward(contact) -> np.ndarray:
    """The direction of travel of the root (as ``contact.compare``), +X when the root hardly moves."""
    travel = contact.dynamics.root_origin[-1, :2] - contact.dynamics.root_origin[0, :2]
    return np.r_[travel / np.linalg.norm(travel), 0.0] if np.linalg.norm(travel) > 0.1 else np.array([1.0, 0, 0])


def plot_grf(contact, comparison, path: str | Path, *, title: str = "") -> Path:
    """Ground reaction forces over time: estimated from the motion (``Contact``, green) and, given a
    ``PlateComparison``, measured by the force plates (orange). One column per foot and one for the total;
    vertical on top, horizontal below (anteroposterior solid, mediolateral dashed), in N with % body weight
    on the right. With plates, the figures' forces: a foot's measured force is that of the plates' stances
    matched to it (``comparison.measured_feet``), the estimate is that on the surfaces the plates lie on
    (``comparison.estimated``, ``estimated_feet``), and what it puts on surfaces without plates (a box, a
    seat) is drawn apart in the total's vertical (violet, as the raised surfaces' grids in Blender); frames
    the comparison leaves out (a loaded foot off the plates) are shaded."""
    times = contact.times
    weight = contact.model.total_mass * float(np.linalg.norm(contact.dynamics.gravity))
    forward = comparison.forward if comparison is not None else _forward(contact)
    left = np.cross([0.0, 0.0, 1.0], forward)
    columns = []
    for f, foot in enumerate(contact.feet):
        columns.append((foot, contact.foot_force[:, f], None) if comparison is None else
                       (foot, comparison.estimated_feet[:, f], comparison.measured_feet[:, f]))
    columns.append(("total", contact.total_force, None) if comparison is None else
                   ("total", comparison.estimated, comparison.measured))
    figure = new_figure(3.4 * len(columns) + 1.6, 6.2, left=0.85, right=0.75, top=0.85, wspace=0.06)
    axes = subplots(figure, 2, len(columns), sharex=True, sharey="row")
    for c, (name, estimated, measured) in enumerate(columns):
        top, bottom = axes[0, c], axes[1, c]
        for force, kind, label in ((estimated, "force_estimated", "estimated from motion"),
                                   (measured, "force_measured", "force plates")):
            if force is None:
                continue
            top.plot(times, force[:, 2], color=srgb(kind), label=label)
            bottom.plot(times, force @ forward, color=srgb(kind), label=f"{label}, anteroposterior")
            bottom.plot(times, force @ left, color=srgb(kind), linestyle="--", linewidth=1.0,
                        label=f"{label}, mediolateral")
        if name == "total" and comparison is not None and np.nanmax(comparison.off_plates) > OFF_PLATES_SHOWN * weight:
            top.plot(times, comparison.off_plates, color=srgb("contact_raised"), linewidth=1.0,
                     label="estimated, on surfaces without plates")
            top.legend(fontsize=7, loc="upper left")
        top.set_title(name, fontsize=10, y=1.0)  # placed, not fitted above the tick labels
        bottom.set_xlabel("time [s]")
        for ax in (top, bottom):
            ax.grid(alpha=0.3)
            if comparison is not None:
                _shade(ax, times, ~comparison.covered, "not compared" if (ax is top and c == 0) else None)
    _percent_axis(axes[0, -1], weight)  # the rows share their force axis: one % body weight scale each
    _percent_axis(axes[1, -1], weight)
    axes[0, 0].set_ylabel("vertical GRF [N]")
    axes[1, 0].set_ylabel("horizontal GRF [N]")
    axes[0, 0].legend(fontsize=7, loc="upper left")
    axes[1, 0].legend(fontsize=7, loc="upper left")
    summary = "no force plates: estimate only" if comparison is None else (
        f"vertical RMSE {comparison.rmse_vertical:.1f} % BW, r = {comparison.correlation_vertical:.2f}; "
        f"horizontal RMSE {comparison.rmse_horizontal:.1f} % BW")
    figure.suptitle((f"{title}\n" if title else "") + f"ground reaction force ({summary})", fontsize=9)
    return save_figure(figure, path)


def joint_moment_curves(dynamics, motion_alone=None) -> list[tuple[str, str, list[tuple]]]:
    """What the torque plot draws: per main joint (``MAIN_JOINTS``) present in ``dynamics``, ``(joint, its
    sagittal component, curves)``, each curve ``(label, colour, dashed, times, N·m/kg)``: the moment named
    ``<joint>_<side>_<component>_moment`` in the torques table (``dynamics.moments``: positive flexes or
    dorsiflexes), left and right, and with ``motion_alone`` (the same motion's dynamics with the contact
    estimated from the motion) its moments, dashed."""
    from .dynamics import joint_moments

    sources = [(joint_moments(dynamics), dynamics, False)]
    if motion_alone is not None:
        sources.append((joint_moments(motion_alone), motion_alone, True))
    per_kg = 1.0 / dynamics.model.total_mass
    rows = []
    for joint in MAIN_JOINTS:
        curves, component = [], None
        for moments, source, dashed in sources:
            for side, label, colour in SIDES:
                if f"{joint}_{side}" in moments.joints:
                    component = moments.components[moments.joints.index(f"{joint}_{side}")][0]
                    curves.append((f"{label}, motion alone" if dashed else label, colour, dashed, source.times,
                                   per_kg * moments.moment(f"{joint}_{side}", component)))
        if curves:
            rows.append((joint, component, curves))
    return rows


def plot_joint_torques(dynamics, path: str | Path, *, title: str = "", motion_alone=None) -> Path:
    """The main joints' sagittal moments [N·m/kg] over time (``joint_moment_curves``), titled with the forces
    the torques were computed with."""
    rows = joint_moment_curves(dynamics, motion_alone)
    if not rows:
        raise SolverError(f"The body model has none of the main joints ({', '.join(MAIN_JOINTS)})",
                          "use a built-in template (full15, brubaker12) for the torque plot")
    lines = [title] * bool(title) + ["joint moments, positive flexing or dorsiflexing",
                                     f"with the {dynamics.options.get('external', 'no external forces')}"] + \
        ["dashed: with the contact estimated from the motion alone"] * (motion_alone is not None)
    figure = new_figure(7.5, 1.7 * len(rows) + 0.3 + 0.2 * len(lines), left=1.0, top=0.2 + 0.16 * len(lines),
                        right=0.2)
    axes = subplots(figure, len(rows), 1, sharex=True)[:, 0]
    for ax, (joint, component, curves) in zip(axes, rows):
        for label, colour, dashed, times, values in curves:
            ax.plot(times, values, color=colour, label=label, linestyle="--" if dashed else "-",
                    linewidth=1.0 if dashed else 1.5)
        ax.axhline(0.0, color="0.5", linewidth=0.6)
        ax.set_ylabel(f"{joint} {component}\n[N·m/kg]")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper right", ncol=1 + (motion_alone is not None))
    axes[-1].set_xlabel("time [s]")
    figure.suptitle("\n".join(lines), fontsize=9)
    return save_figure(figure, path)


def plot_convergence(motion, path: str | Path, *, title: str = "") -> Path:
    """OTM per frame, what Ausejo et al. tabulate (Tables 1-4): iterations (top) and the constraint norm
    ||Φ(q)||₂ (bottom, log scale, the tolerance dashed); frames that did not converge are shaded red."""
    iterations, norm, converged = motion.iterations, motion.constraint_norm, motion.converged
    if motion.method != "otm" or iterations is None or norm is None or converged is None:
        raise SolverError(f"This motion ({motion.method}) has no per-frame OTM convergence record",
                          "plot the convergence of a motion from solver.kinematics.reconstruct")
    times = motion.times
    figure = new_figure(7.5, 4.6, top=0.5, right=0.2)
    top, bottom = subplots(figure, 2, 1, sharex=True)[:, 0]
    top.step(times, iterations, where="mid", color="0.2")
    top.set_ylabel("iterations")
    from matplotlib.ticker import MaxNLocator  # matplotlib is there: new_figure checked

    top.yaxis.set_major_locator(MaxNLocator(TICKS, integer=True))
    bottom.semilogy(times, np.maximum(norm, 1e-18), color="0.2", label="||Φ(q)||₂")
    tolerance = motion.info.get("tolerance")
    if tolerance:
        bottom.axhline(tolerance, color="0.4", linestyle="--", linewidth=1.0, label=f"tolerance {tolerance:g}")
    bottom.set_ylabel("constraint norm")
    bottom.set_xlabel("time [s]")
    failed = ~np.asarray(converged, bool)
    for ax in (top, bottom):
        ax.fill_between(times, 0, 1, where=failed, transform=ax.get_xaxis_transform(), color=srgb("force_residual"),
                        alpha=0.25, step="mid", label="not converged" if ax is bottom and failed.any() else None)
        ax.grid(alpha=0.3)
    bottom.legend(fontsize=7, loc="upper right")
    figure.suptitle((f"{title}\n" if title else "") + f"OTM ({motion.info.get('mode', '')}): "
                    f"{int((~failed).sum())}/{len(failed)} frames converged", fontsize=9)
    return save_figure(figure, path)


def _bins(values: np.ndarray, width: float) -> np.ndarray:
    """Histogram bin edges ``width`` apart on multiples of ``width``, covering the finite ``values``."""
    values = values[np.isfinite(values)]
    if not len(values):
        return np.array([0.0, width])
    return width * np.arange(np.floor(values.min() / width), np.floor(values.max() / width) + 2)


def plot_root_force_distribution(without: np.ndarray, with_plates: np.ndarray, unexplained: np.ndarray,
                                 path: str | Path, *, title: str = "") -> Path:
    """Brubaker et al. Fig. 6 over a batch of trials. Left: the distribution of each trial's mean root
    force magnitude per frame [% body weight] without external forces (red) and, where the trial has
    plates, with the measured plate forces (orange). Right: the fraction of the root force the contact
    model does *not* explain [%] (green). NaN entries (trials without that figure) are left out."""
    without, with_plates, unexplained = (np.asarray(a, float) for a in (without, with_plates, unexplained))
    figure = new_figure(10.0, 4.0, top=0.5, right=0.2, wspace=0.2)
    left, right = subplots(figure, 1, 2)[0]
    bins = _bins(np.concatenate([without, with_plates]), HISTOGRAM_BIN)
    for values, kind, label in ((without, "force_residual", "no external forces"),
                                (with_plates, "force_measured", "with measured plates")):
        values = values[np.isfinite(values)]
        if len(values):
            left.hist(values, bins=bins, color=srgb(kind), alpha=0.6, label=f"{label} ({len(values)} trials)")
    left.set_xlabel("mean root force per frame [% body weight]")
    left.set_ylabel("trials")
    left.legend(fontsize=7)
    values = unexplained[np.isfinite(unexplained)]
    if len(values):
        right.hist(values, bins=_bins(values, HISTOGRAM_BIN), color=srgb("force_estimated"), alpha=0.8,
                   label=f"contact model ({len(values)} trials)")
        right.legend(fontsize=7)
    right.set_xlabel("root force not explained by the contact model [%]")
    from matplotlib.ticker import MaxNLocator

    for ax in (left, right):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    figure.suptitle((f"{title}\n" if title else "") + "root residual force across trials "
                    "(cf. Brubaker et al. 2009, Fig. 6)", fontsize=9)
    return save_figure(figure, path)
