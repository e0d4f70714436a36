"""How much the contact estimate's defaults were fitted to our trials: each prior halved and doubled.

    .venv/bin/python scripts/bench_contact_priors.py [--trials NAME ...] [--factors 0.5 2]

The per-frame contact (``solver/contact/per_frame.py``) has a friction coefficient, a Tikhonov weight and nine
priors beyond the paper (``PerFrameOptions``), and weighs the root torque against the root force
(``estimate_contact``'s ``torque_weight``). Each was chosen on the real trials with force plates in
``../shared/data``; the recordings it will meet are others. A default on a sharp optimum of these trials (a
small change costs much) would say it was fitted to them; on a broad one, that the trials do not pin it and
others should fare alike. For every trial of ``bench_contact.TRIALS`` (without a static trial) the pipeline
runs once with its defaults (``until="contact"``), then the contact alone is estimated again with one value
multiplied by each factor (the landing torque's share capped at 1), and compared with the plates as the
report does: the vertical GRF's RMSE [% BW], the hip, knee and ankle moments' mean r against ours with the
plates where the plates see all, the centre of pressure's error in single support [cm] and the root force
explained [%]. The table gives the defaults' figures, then each change's difference from them; it prints
figures and never asserts them.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402
from bench_contact import SHARED, TRIALS  # noqa: E402

import numpy as np  # noqa: E402

#: The figures per trial: (label, key, format of a default, format of a difference).
FIGURES = (("vertical % BW", "vertical", "{:.1f}", "{:+.1f}"), ("moments r", "moments", "{:.3f}", "{:+.3f}"),
           ("COP cm", "cop", "{:.1f}", "{:+.1f}"), ("explained %", "explained", "{:.1f}", "{:+.1f}"))


def figures(contact, trial, with_plates) -> dict:
    """What the report says of ``contact`` against the plates of ``trial``."""
    from mocap_dynamics.solver.contact.compare import compare_with_plates
    from mocap_dynamics.solver.contact.compare_moments import compare_moments_with_plates

    comparison = compare_with_plates(contact, trial)
    summary = comparison.summary()
    moments = compare_moments_with_plates(contact.dynamics, with_plates, comparison.plates_see_all)
    cop = summary.get("cop_error_single_support_cm")
    return {"vertical": summary["rmse_vertical_bw_percent"], "cop": np.nan if cop is None else cop,
            "moments": moments.summary()["where_plates_see_all"]["mean_r"] if moments is not None else np.nan,
            "explained": 100 * contact.explained_force}


def cell(form: str, value: float) -> str:
    """``value`` in ``form``, or "-" where the trial has no such figure (no single support on a plate)."""
    return form.format(value) if np.isfinite(value) else "-"


def variants(factors: list[float]) -> list[tuple[str, dict, float]]:
    """(row name, ``PerFrameOptions`` changes, torque weight) for every value times every factor."""
    from mocap_dynamics.solver.contact.per_frame import PerFrameOptions

    base = PerFrameOptions()
    rows = []
    for field in dataclasses.fields(PerFrameOptions):
        value = getattr(base, field.name)
        for factor in factors:
            changed = min(value * factor, 1.0) if field.name == "landing_torque" else value * factor
            rows.append((f"{field.name} {value:g} -> {changed:.3g}", {field.name: changed}, 1.0))
    rows += [(f"torque_weight 1 -> {factor:g}", {}, factor) for factor in factors]
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", nargs="*", help="names of bench_contact's trials to run (default: all)")
    parser.add_argument("--factors", nargs="*", type=float, default=[0.5, 2.0], help="what each value is "
                        "multiplied by (default: 0.5 2)")
    args = parser.parse_args()
    load_package()
    from mocap_dynamics.solver.contact import estimate_contact
    from mocap_dynamics.solver.contact.per_frame import PerFrameOptions
    from mocap_dynamics.solver.errors import MocapError
    from mocap_dynamics.solver.pipeline import PipelineOptions, run

    chosen = [(name, file) for name, file, _, static in TRIALS
              if static is None and (not args.trials or name in args.trials)]
    rows = variants(args.factors)
    table = {}
    for name, file in chosen:
        if not (SHARED / file).exists():
            print(f"   {name}: skipped ({SHARED / file} not found: the shared recordings are absent)")
            continue
        try:
            result = run(SHARED / file, PipelineOptions(until="contact"))
        except MocapError as error:
            print(f"   {name}: not run ({error.one_line()})")
            continue
        if result.plate_comparison is None:
            continue
        table[name] = {"defaults": figures(result.contact, result.trial, result.dynamics_with_plates)}
        for row, changes, torque_weight in rows:
            contact = estimate_contact(result.motion, dynamics=result.dynamics, torque_weight=torque_weight,
                                       per_frame=PerFrameOptions(**changes))
            table[name][row] = figures(contact, result.trial, result.dynamics_with_plates)
        print(f"   {name}: {len(rows)} variants", flush=True)
    for label, key, shown, difference in FIGURES:
        names = list(table)
        print(f"\n{label}: the defaults, then each change's difference from them\n")
        print("| change | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        print("| defaults | " + " | ".join(cell(shown, table[n]["defaults"][key]) for n in names) + " |")
        for row, _, _ in rows:
            print(f"| {row} | " + " | ".join(cell(difference, table[n][row][key] - table[n]["defaults"][key])
                                             for n in names) + " |")


if __name__ == "__main__":
    main()
