"""Benchmark of the foot events the sidebar draws and the retarget locks (prints figures, never asserts them).

    .venv/bin/python scripts/bench_foot_events.py [--trials NAME ...]

For every trial of ``bench_contact.TRIALS`` without a static trial, run as a user runs it (``pipeline.run`` up to
the contact), each foot's stances from the motion alone (``retarget.foot_contacts``: loaded by the estimate and
planted, some point of the sole slower than 0.3 m/s) against the plates: of the frames in which a plate carries
the foot (over 5 % BW, where the plates cover it), how many the stances hold and how many they hold where no plate
carries it; and each plate event's nearest heel strike or toe off of the same foot [ms, negative: before the
plate's] (a drop jump's frames on its box have no plate: its stances there count as "elsewhere").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402
from bench_contact import SHARED, TRIALS  # noqa: E402

import numpy as np  # noqa: E402


def foot_rows(result) -> list[str]:
    """Per foot: stance frames on the plates' and elsewhere, and the heel strikes' and toe offs' errors [ms]."""
    from mocap_dynamics.solver.contact.compare import THRESHOLD_BW
    from mocap_dynamics.solver.retarget import foot_contacts
    contact, plates = result.contact, result.plate_comparison
    contacts = foot_contacts(contact)
    weight = contact.model.total_mass * float(np.linalg.norm(contact.dynamics.gravity))
    covered = np.interp(contact.times, plates.times, plates.covered.astype(float)) > 0.5
    rows = []
    for f, foot in enumerate(contact.feet):
        carried = covered & (np.interp(contact.times, plates.times, plates.measured_feet[:, f, 2])
                             > THRESHOLD_BW * weight)
        stance = contacts.stance[:, f] & covered
        errors = {}
        for kind, key in (("heel strike", "measured_onset"), ("toe off", "measured_offset")):
            ours = [e.time for e in contacts.events if e.foot == f and e.kind == kind]
            errors[kind] = [round(1000 * min((t - getattr(event, key) for t in ours), key=abs)) for event in
                            plates.events if event.foot == f and np.isfinite(getattr(event, key)) and ours]
        rows.append(f"| {foot} | {np.count_nonzero(stance & carried)} of {np.count_nonzero(carried)} | "
                    f"{np.count_nonzero(stance & ~carried)} | {errors['heel strike']} | {errors['toe off']} |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", nargs="+", metavar="NAME", help="names of bench_contact.TRIALS (default: all)")
    args = parser.parse_args(argv)
    load_package()
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    print("| trial | foot | stance frames on the plates' | elsewhere | heel strikes [ms] | toe offs [ms] |")
    print("|---|---|---|---|---|---|")
    for name, file, _, static in TRIALS:
        if static is not None or (args.trials and name not in args.trials):
            continue
        if not (SHARED / file).is_file():
            print(f"| {name} | skipped: {SHARED / file} not found | | | | |")
            continue
        result = run(SHARED / file, PipelineOptions(until="contact"))
        if result.plate_comparison is None or result.contact is None or not result.contact.feet:
            print(f"| {name} | no plates or no feet | | | | |")
            continue
        for row in foot_rows(result):
            print(f"| {name} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
