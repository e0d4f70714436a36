"""PCA fill: a marker's missing samples from its correlation with every other marker (Gløersen & Federolf
2016, PLoS ONE 11:e0152616, after Federolf 2013, PLoS ONE 8:e78689).

The trial's frames where the marker and its predictors are all measured teach a principal component
model of the whole marker configuration; a frame where the marker is missing is projected onto that model
with the marker's coordinates set to zero, and the model gives them back. As in the paper (reconstruction
strategy R2, one marker at a time):

1. the mean trajectory of the predictor markers is subtracted from every marker (a frame that moves with
   the subject);
2. columns (beyond the paper, along the subject's level axes and the vertical, ``subject_axes``; the
   paper's are the lab's X, Y and Z) are normalised to zero mean and unit variance over the training frames
   and weighted by ``w_j = exp(-d_j² / (2 σ²))``, ``d_j`` the mean distance of marker ``j`` to the missing
   one, σ = 200 mm;
   the missing marker itself gets the small weight 0.02, so the principal components are shaped by the
   others and the missing marker's coordinates ride along;
3. two PCAs of the training frames: ``V`` of the data, ``V0`` of the data with the missing marker's
   columns zeroed, both keeping as many components as the larger of the two needs to hold 99 % of the
   sum of singular values;
4. a frame with the marker zeroed, ``m0``, is reconstructed as ``m0 V0 (V0ᵀ V) Vᵀ`` (Federolf 2013: its
   scores on ``V0``, turned to scores on ``V`` by the transformation ``V0ᵀ V``), and the normalisation
   and mean trajectory are undone.

Beyond the paper, ``meet_ends`` shifts a gap's fill by the misfit of the same reconstruction at the
measured samples next to the gap, blended linearly across it, so the fill meets them: without it the fill
jumps at both ends of the gap (by millimetres), which forward differences turn into acceleration spikes.
``GapFillOptions.pca_meet_ends = False`` keeps the paper's fill.

Predictors are the markers measured in every frame to fill; of those that have gaps elsewhere, the ones
further than half the mean distance are dropped (the paper's distal threshold) so more frames can train.
The parameter values (σ, 0.02, 99 %, one half) are those of the authors' MATLAB function
``PredictMissingMarkers`` published with the paper (as ported to Python in neurogeriatricskiel/pymocap,
which writes the transformation as the transpose, ``Vᵀ V0``; both are within a few hundredths of a
signed identity on real trials, ``V0 ≈ V`` since the zeroed marker weighs 0.02, so the fills agree).
"""

from __future__ import annotations

import numpy as np

from .gaps import ramp

SIGMA = 0.2  # m, width of the distance weighting
MISSING_WEIGHT = 0.02  # weight of the marker being filled
DISTAL_THRESHOLD = 0.5  # of the mean distance: farther markers with gaps are not predictors
SINGULAR_VALUE_SHARE = 0.99
MIN_TRAINING_FRAMES = 10
TEST_GAPS = 3  # gaps cut where the marker is measured to estimate a PCA fill's error (``expected_error``)


def _components(data: np.ndarray) -> tuple[np.ndarray, int]:
    """Principal components of ``data`` (rows: frames) as columns, largest first, and how many hold
    ``SINGULAR_VALUE_SHARE`` of the sum of singular values. From the eigenvectors of ``dataᵀ data`` (the
    columns are a few hundred at most, the frames thousands): the SVD's right singular vectors, about ten
    times faster on squat_gaps.c3d."""
    eigenvalues, vectors = np.linalg.eigh(data.T @ data)
    singular = np.sqrt(np.clip(eigenvalues[::-1], 0.0, None))
    share = np.cumsum(singular) / max(singular.sum(), np.finfo(float).tiny)
    return vectors[:, ::-1], int(np.searchsorted(share, SINGULAR_VALUE_SHARE)) + 1


def _predictors(present: np.ndarray, distances: np.ndarray, marker: int, frames: np.ndarray) -> np.ndarray:
    """Markers measured in all ``frames``; those with gaps elsewhere only when near ``marker`` (``distances``
    to it)."""
    candidates = np.flatnonzero(present[frames].all(axis=0))
    candidates = candidates[candidates != marker]
    if not len(candidates):
        return candidates
    near = distances[candidates] <= DISTAL_THRESHOLD * distances[candidates].mean()
    return candidates[present[:, candidates].all(axis=0) | near]


def _mean_distances(markers: np.ndarray, marker: int) -> np.ndarray:
    """Mean distance ``(M,)`` of every marker to ``marker`` over the frames where both are measured."""
    distances = np.linalg.norm(markers - markers[:, marker:marker + 1], axis=2)
    both = ~np.isnan(distances)
    return np.where(both, distances, 0.0).sum(axis=0) / np.maximum(both.sum(axis=0), 1)


def pca_fill(markers: np.ndarray, present: np.ndarray, marker: int, frames: np.ndarray,
             axes: str = "subject") -> np.ndarray | None:
    """Positions ``(len(frames), 3)`` of ``marker`` at its missing ``frames`` from ``markers`` ``(T, M, 3)``, the
    columns normalised along the ``axes`` ``"subject"``'s (``subject_axes``) or the ``"lab"``'s (the paper's);
    None when there are no predictors or fewer than ``MIN_TRAINING_FRAMES`` frames to learn from."""
    distances = _mean_distances(markers, marker)
    predictors = _predictors(present, distances, marker, frames)
    if not len(predictors):
        return None
    columns = np.r_[predictors, marker]  # the filled marker last
    training = present[:, columns].all(axis=1)
    if training.sum() < MIN_TRAINING_FRAMES:
        return None
    rows = np.r_[np.flatnonzero(training), frames]
    data = markers[rows][:, columns]  # (R, P + 1, 3)
    data = data - data[:, :-1].mean(axis=1, keepdims=True)  # 1. mean trajectory of the predictors
    n_train = int(training.sum())
    level = subject_axes(data[:n_train, :-1]) if axes == "subject" else np.eye(2)
    data[..., :2] = data[..., :2] @ level
    data = data.reshape(len(rows), -1)
    mean, std = data[:n_train].mean(axis=0), data[:n_train].std(axis=0)
    std[std == 0] = 1.0
    weights = np.repeat(np.exp(-distances[columns] ** 2 / (2 * SIGMA ** 2)), 3)
    weights[-3:] = MISSING_WEIGHT
    normalised = (data - mean) / std * weights  # 2.
    zeroed = normalised.copy()
    zeroed[:, -3:] = 0.0
    (v, k), (v0, k0) = _components(normalised[:n_train]), _components(zeroed[:n_train])  # 3.
    v, v0 = v[:, :max(k, k0)], v0[:, :max(k, k0)]
    reconstructed = zeroed[n_train:] @ v0 @ (v0.T @ v) @ v.T  # 4.
    filled = reconstructed[:, -3:] / weights[-3:] * std[-3:] + mean[-3:]
    filled[:, :2] = filled[:, :2] @ level.T
    return filled + markers[frames][:, predictors].mean(axis=1)


def subject_axes(relative: np.ndarray) -> np.ndarray:
    """Level axes (2, 2) (columns) of the markers' positions ``relative`` (N, P, 3) to their mean trajectory: the
    principal axes of their spread seen from above, the subject's lateral and fore-aft directions. Beyond the
    paper, whose columns are the lab's X, Y and Z (``GapFillOptions.pca_axes = "lab"``): normalised column by
    column (step 2), a fill then depended on how the lab was turned about the vertical (up to 3.7 mm on the
    video drop jump turned 37°); in the subject's axes it does not. On gaps cut into six real trials
    (``scripts/bench_gap_fill.py --sections 2``, README) the pipeline's fills are as close or closer but on CMU
    (15-frame foot gaps: walking4 1.64 -> 1.52 mm RMSE, walking1 1.52 -> 1.50, CMU 3.01 -> 3.02), and the PCA
    forced on 80-frame gaps misses by up to 3.3 mm more (walking1 31.6 -> 34.9) or 0.2 mm less (DJ3)."""
    level = relative[..., :2].reshape(-1, 2)
    return np.linalg.eigh(level.T @ level)[1]


def meet_ends(fill: np.ndarray, start: int, stop: int, misfit_before: np.ndarray | None,
              misfit_after: np.ndarray | None) -> np.ndarray:
    """``fill`` ``(stop - start, 3)`` of a gap shifted by the measured-minus-reconstructed misfit at its ends,
    blended linearly across the gap (one end: that end's misfit throughout)."""
    if misfit_before is None or misfit_after is None:
        return fill + (misfit_before if misfit_after is None else misfit_after)
    weight = ramp(start, stop)
    return fill + (1 - weight) * misfit_before + weight * misfit_after


def expected_error(markers: np.ndarray, present: np.ndarray, marker: int, length: int, axes: str = "subject"
                   ) -> float | None:
    """RMS error [m] of the PCA fill (meeting the ends) of ``length``-frame gaps cut where ``marker`` is
    measured: ``TEST_GAPS`` disjoint ones, spread over the stretches where it is measured ``length + 2``
    frames in a row (beyond the paper: how well this trial teaches the model to fill a gap this long; each
    test gap also takes its frames out of the training, so the estimate is pessimistic). None when there is
    no room for ``TEST_GAPS`` such gaps (the trial is too short to have shown the motion several times), or
    the model cannot be learnt."""
    window = length + 2
    runs = np.convolve(present[:, marker].astype(int), np.ones(window, dtype=int), mode="valid")
    starts = np.flatnonzero(runs == window) + 1  # gap starts with a measured frame on each side
    disjoint = []
    for start in starts:
        if not disjoint or start >= disjoint[-1] + window:
            disjoint.append(start)
    if len(disjoint) < TEST_GAPS:
        return None
    squared = []
    for start in np.array(disjoint)[np.linspace(0, len(disjoint) - 1, TEST_GAPS).round().astype(int)]:
        stop = start + length
        cut, seen = markers.copy(), present.copy()
        cut[start:stop, marker], seen[start:stop, marker] = np.nan, False
        fill = pca_fill(cut, seen, marker, np.arange(start - 1, stop + 1), axes)
        if fill is None:
            return None
        fill = meet_ends(fill[1:-1], start, stop, markers[start - 1, marker] - fill[0],
                         markers[stop, marker] - fill[-1])
        squared.append(np.sum((fill - markers[start:stop, marker]) ** 2, axis=1))
    return float(np.sqrt(np.mean(np.concatenate(squared))))
