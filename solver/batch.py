"""Many trials at once: every recording in a folder (or in a list), each through the one pipeline into
``OUT/<trial>/`` (``out`` by default, where ``python -m solver`` writes), in parallel on this machine or on a
Dask cluster, and a summary across the trials.

    scripts/batch.py SOURCE... [--out OUT] [--recursive] [--jobs N | --scheduler tcp://host:port] [--blend]
                     [--timeout S] [pipeline flags]

A SOURCE is a folder (its .c3d and .trc files; ``--recursive``: also those in subfolders), a recording, or
a text file listing recordings, one per line (``#`` comments; relative paths from the list's folder), each
optionally followed by pipeline flags of its own, which override the batch's for that trial: a subject's
static trial and mass, a recording's plates (``s1/walk.trc --static s1/static.trc --mass 63.5``; quote
paths with spaces, as in a shell).

Each trial runs as a process of its own: ``python -m solver`` (report.json, report.txt, tables and plots;
``solver.cli``) or, with ``--blend``, ``scripts/process_trial.py`` (the same and a .blend). A trial that
fails in any way (a bad file, a bug, a crash in compiled code, a timeout) ends its own process and nothing
else, and no project code has to be sent to the workers; the price is the interpreter start and the imports,
about 1.7 s a trial on the 2-core development machine.

Where trials run: by default a pool of ``--jobs`` threads on this machine, each waiting on one trial's
process (which gets ``cores // jobs`` numba threads, so parallel kernels do not oversubscribe the cores); with
``--scheduler`` the workers of that Dask distributed scheduler (``Client.get_executor``). It is
one code path: both are ``concurrent.futures`` executors running the same ``run_process`` task (a Dask
``LocalCluster`` as the local default would add Dask's start-up and a dependency the Blender extension does
not bundle, for nothing the thread pool lacks). Dask workers need the repository and this Python
environment at the same paths as here, and the inputs and ``OUT`` on a shared file system; ``--jobs`` does
not apply (the workers' threads set the parallelism).

Per trial: ``ok`` (exit 0), ``failed`` (exit 2, bad input: the message is the one line the CLI printed) or
``error`` (exit 1, a crash, a timeout, or no process could be started). A trial past ``--timeout`` gets
SIGTERM (it removes its temporary files, writes nothing and exits 143) and, ``GRACE_S`` later, SIGKILL.
Interrupting the batch (Ctrl-C, SIGTERM) stops the running trials the same way, marks the unfinished ones
``interrupted`` in the summary and exits 130 or 143. Its stdout and stderr are kept in
``OUT/<trial>/log.txt``. ``OUT/summary.csv`` (``COLUMNS``) is rewritten atomically as trials finish; at the
end ``OUT/root_force_distribution.png`` shows the root residual force across trials (Brubaker et al. 2009,
Fig. 6). Exit codes: 0 every trial ok; 3 some trials failed (see the summary); 2 bad arguments (one line on
stderr); 1 an unexpected error of the batch itself.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from .cli import EXIT_BAD_INPUT, EXIT_OK, OneLineParser, add_pipeline_arguments, guarded, parse_pipeline_flags, \
    pipeline_argv, pipeline_options
from .errors import InputError, MocapError, SolverError
from .io.atomic import make_folder, writable_folder, write_text
from .plots import plot_root_force_distribution
from .report_schema import Report

EXIT_SOME_FAILED = 3
ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".c3d", ".trc")
#: Seconds to wait for a Dask scheduler to answer.
CONNECT_TIMEOUT = 10
#: Seconds a stopped trial gets between SIGTERM (clean up and exit) and SIGKILL.
GRACE_S = 10.0
#: The summary's columns: figures from each trial's report.json (empty where the trial has none); ``warnings``
#: every warning of the report (the trial's, the model's, the contact's and the plates'), joined by " | ".
COLUMNS = ("trial", "status", "message", "warnings", "input", "frames", "mass_kg", "mass_source", "marker_rms_mm",
           "converged_percent", "cutoff_hz", "root_force_no_contact_percent_bw", "root_force_with_plates_percent_bw",
           "root_force_with_plates_and_estimate_percent_bw", "torques_with", "surfaces", "floor_tilt_deg",
           "explained_force_percent", "root_force_with_contact_percent_bw", "flight_root_force_percent_bw",
           "explained_force_in_reach_percent", "plate_rmse_vertical_percent_bw", "plate_correlation_vertical",
           "plate_rmse_horizontal_percent_bw", "plate_cop_error_single_support_cm", "plate_moments_mean_r",
           "plate_moments_mean_rmse_nm_per_kg", "import_s", "calibrate_s", "reconstruct_s", "dynamics_s",
           "contact_s", "pipeline_s")


@dataclass(frozen=True)
class Listed:
    """A recording found for the batch, with the pipeline flags of its line in a list of trials (paths made
    absolute) and where that line is ("trials.txt line 3"), for messages; one trial per recording and flags."""

    path: Path
    flags: tuple[str, ...] = ()
    where: str = field(default="", compare=False)


@dataclass(frozen=True)
class Trial:
    """One recording of the batch, its own pipeline flags and the folder its outputs go to."""

    path: Path
    name: str
    folder: Path
    flags: tuple[str, ...] = ()


def find_trials(sources: list[str | Path], recursive: bool = False) -> list[Listed]:
    """The recordings (absolute paths, each once with its flags, in order) named by folders, files and lists of
    files (module docstring)."""
    found = []
    for source in map(Path, sources):
        if source.is_dir():
            files = source.rglob("*") if recursive else source.iterdir()
            found += [Listed(p) for p in sorted(p for p in files if p.is_file() and p.suffix.lower() in SUFFIXES)]
        elif source.suffix.lower() in SUFFIXES:
            found.append(Listed(source))  # even if missing: reported as that trial's failure
        elif source.is_file():
            found += _listed(source)
        else:
            raise InputError(f"{source} is neither a folder, a .c3d or .trc recording, nor a list of recordings",
                             "give folders, recordings, or text files with one recording per line")
    trials = list(dict.fromkeys(replace(t, path=t.path.resolve()) for t in found))
    if not trials:
        raise InputError(f"No .c3d or .trc recordings in {', '.join(map(str, sources))}",
                         "check the paths" + ("" if recursive else ", or add --recursive to look into subfolders"))
    return trials


def _listed(path: Path) -> list[Listed]:
    """The recordings of a list of trials, each line's flags parsed (paths from the list's folder)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"Cannot read the list of trials {path} ({error})", "give a UTF-8 text file with one "
                                                                            "recording per line") from None
    listed = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path.name} line {number}"
        try:
            recording, flags = _recording_and_flags(line)
            if not recording or recording.startswith("--"):
                raise InputError("no recording before its flags", "start the line with the recording's path")
            if Path(recording).suffix.lower() not in SUFFIXES:
                raise InputError(f"{recording[:60]!r} is not a .c3d or .trc recording",
                                 "a list of trials holds one recording's path per line, then its flags if any")
            argv = pipeline_argv(parse_pipeline_flags(flags), path.parent)
        except MocapError as error:
            raise InputError(f"{where}: {error.what}", error.fix) from None
        listed.append(Listed(path.parent / recording, tuple(argv), where))
    return listed


def _recording_and_flags(line: str) -> tuple[str, list[str]]:
    """A list line's recording (all before the first `` --``: a path may hold spaces) and its flags (split as a
    shell would, ``#`` starting a comment; backslashes kept on Windows), each without quotes around it."""
    flags = re.search(r"\s--", line)
    start = flags.start() if flags else len(line)
    try:
        words = shlex.split(line[start:], comments=True, posix=os.name != "nt")
    except ValueError as error:  # an unclosed quote
        raise InputError(str(error), 'close the quotes around a path, as in --static "my static.trc"') from None
    return _unquoted(line[:start].strip()), [_unquoted(word) for word in words]


def _unquoted(word: str) -> str:
    return word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "\"'" else word


def check_flags(listed: list[Listed], argv: list[str]) -> None:
    """Each listed trial's flags after the batch's ``argv`` make valid pipeline options (``InputError`` naming the
    line otherwise), before any trial starts."""
    for trial in listed:
        if trial.flags:
            try:
                pipeline_options(parse_pipeline_flags([*argv, *trial.flags]))
            except MocapError as error:
                raise InputError(f"{trial.where}: {error.what}", error.fix) from None


def trial_names(paths: list[Path]) -> list[str]:
    """Output folder names: the file name without its suffix; where trials share one, their path from the
    common folder, suffix included, with separators and dots as ``_`` (``s1/walk.c3d`` -> ``s1_walk_c3d``)."""
    stems = Counter(p.stem for p in paths)
    common = Path(os.path.commonpath([p.parent for p in paths]))
    names = [p.stem if stems[p.stem] == 1 else "_".join(p.relative_to(common).parts).replace(".", "_")
             for p in paths]
    seen = Counter()
    for i, name in enumerate(names):  # what is left (a/b_c.trc and a_b/c.trc): numbered
        seen[name] += 1
        names[i] = name if seen[name] == 1 else f"{name}_{seen[name]}"
    return names


@dataclass(frozen=True)
class Finished:
    """How a trial's process ended: its command, exit code and output, and the timeout it overran (or None)."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: float | None = None


_RUNNING: set[subprocess.Popen] = set()  # this machine's trial processes, to stop them if the batch is stopped
_RUNNING_LOCK = threading.Lock()


def run_process(command: list[str], cwd: str, env: dict | None, timeout: float | None) -> Finished:
    """Run one trial's process to its end, or ``stop`` it after ``timeout`` seconds."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with _RUNNING_LOCK:
        _RUNNING.add(process)
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            return Finished(command, process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            stdout, stderr = stop(process)
            return Finished(command, process.returncode, stdout, stderr, timed_out=timeout)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)


def stop(process: subprocess.Popen) -> tuple[str, str]:
    """SIGTERM, then SIGKILL if the process still runs ``GRACE_S`` later; its remaining stdout and stderr."""
    process.terminate()
    try:
        return process.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()


def _stop_all() -> None:
    """Stop every trial process of this machine at once (SIGTERM to all, then SIGKILL to those left)."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        process.terminate()
    deadline = time.monotonic() + GRACE_S
    for process in running:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()


def trial_command(trial: Trial, argv: list[str], blend: bool) -> list[str]:
    """The command that processes one trial into its folder: the batch's pipeline flags ``argv``, then the
    trial's own (the later flag wins)."""
    if blend:
        return [sys.executable, str(ROOT / "scripts" / "process_trial.py"), str(trial.path),
                "--out", str(trial.folder / f"{trial.name}.blend"), "--report", str(trial.folder / "report.json"),
                "--tables", str(trial.folder), *argv, *trial.flags]
    return [sys.executable, "-m", "solver", str(trial.path), "--out", str(trial.folder), *argv, *trial.flags]


@contextmanager
def executor(jobs: int, scheduler: str | None):
    """Where the trials run: ``jobs`` local threads, or the workers of the Dask scheduler at ``scheduler``."""
    if scheduler is None:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            yield pool
        return
    try:
        from distributed import Client
    except ImportError as error:
        raise InputError("--scheduler needs Dask distributed, which is not installed here",
                         "pip install -r requirements/dev.txt, or leave out --scheduler to run on this machine"
                         ) from error
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"Cannot reach the Dask scheduler at {scheduler} ({error})",
                         "start it (dask scheduler) and its workers (dask worker ADDRESS), check the address, "
                         "or leave out --scheduler to run on this machine") from None
    with client:
        yield client.get_executor(pure=False)


def run_batch(listed: list[Listed], out: str | Path, argv: list[str] = (), *, jobs: int = 1,
              scheduler: str | None = None, blend: bool = False, timeout: float | None = None,
              progress=print) -> list[dict]:
    """Process every recording into ``out/<trial name>/`` (``argv``: pipeline flags, see ``cli``, then each
    trial's own); write the summary as trials finish and the root-force plot at the end; return the summary
    rows, in input order."""
    out = make_folder(writable_folder(out, "--out"), "--out").resolve()
    names = trial_names([t.path for t in listed])
    trials = [Trial(t.path, name, out / name, t.flags) for t, name in zip(listed, names)]
    rows = {}
    # Locally, the trials share this machine's cores: each process's numba threads get its share of them.
    env = None if scheduler else os.environ | {"NUMBA_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // jobs))}
    with executor(jobs, scheduler) as pool:
        for trial in trials:
            make_folder(trial.folder, "--out")
        futures = {pool.submit(partial(run_process, trial_command(trial, list(argv), blend), str(ROOT), env,
                                       timeout)): trial for trial in trials}
        try:
            for future in as_completed(futures):
                trial = futures[future]
                rows[trial.name] = summary_row(trial, future)
                write_summary([rows[t.name] for t in trials if t.name in rows], out)
                row = rows[trial.name]
                progress(f"[batch] {len(rows)}/{len(trials)} {trial.name}: {row['status']}"
                         + (f": {row['message']}" if row["message"] else ""))
        except BaseException:  # Ctrl-C or SIGTERM: stop the trials, say which did not finish, and leave
            for future in futures:
                future.cancel()
            _stop_all()
            rows = {t.name: rows.get(t.name) or dict.fromkeys(COLUMNS, None) | {
                "trial": t.name, "input": str(t.path), "status": "interrupted",
                "message": "the batch was interrupted"} for t in trials}
            write_summary(list(rows.values()), out)
            raise
    rows = [rows[t.name] for t in trials]
    try:
        plot_distribution(rows, out / "root_force_distribution.png")
    except SolverError as error:
        progress(f"[batch] root force distribution not plotted: {error.one_line()}")
    return rows


def summary_row(trial: Trial, future) -> dict:
    """One trial's line of the summary, from its process's exit code, stderr and report.json."""
    row = dict.fromkeys(COLUMNS, None) | {"trial": trial.name, "input": str(trial.path), "message": ""}
    try:
        done = future.result()
    except Exception as error:  # the process could not start (e.g. no such Python on a Dask worker)
        row.update(status="error", message=f"could not run: {type(error).__name__}: {error}")
        return row
    log = f"$ {' '.join(done.args)}\n{done.stdout}\n--- stderr ---\n{done.stderr}"
    if done.timed_out is not None:
        for leftover in trial.folder.glob(".*.partial*"):  # only if SIGKILL cut a write short
            leftover.unlink(missing_ok=True)
        write_text(trial.folder / "log.txt", f"{log}\n--- timed out after {done.timed_out:g} s ---\n")
        row.update(status="error", message=f"timed out after {done.timed_out:g} s")
        return row
    write_text(trial.folder / "log.txt", log)
    errors = [line[len("error: "):] for line in done.stderr.splitlines() if line.startswith("error: ")]
    if done.returncode == EXIT_OK:
        row["status"] = "ok"
    elif done.returncode == EXIT_BAD_INPUT:
        row.update(status="failed", message=errors[-1] if errors else "bad input (see log.txt)")
    else:
        last = errors[-1] if errors else (done.stderr.strip().splitlines() or ["no message"])[-1]
        row.update(status="error", message=f"exit code {done.returncode}: {last}")
    report = trial.folder / "report.json"
    if row["status"] == "ok" and report.is_file():
        row.update(report_figures(json.loads(report.read_text(encoding="utf-8"))))
    return row


def report_figures(report: Report) -> dict:
    """The summary's figures from one report.json (``report_schema.Report``; see ``COLUMNS``); a stage that did
    not run leaves its columns empty."""
    def get(*keys):
        value = report
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    without = get("dynamics", "without_external_forces", "root_force_mean_percent_bw")
    explained = get("contact", "explained_force")
    in_reach = get("contact", "flight", "explained_force_in_reach")
    rms = get("reconstruction", "marker_rms_m")
    timings = report.get("timings_s", {})
    source, surfaces = get("model", "mass_source"), get("contact", "surfaces")
    warned = [get(*where, "warnings") or [] for where in (("trial",), ("model",), ("contact",), ("contact", "plates"))]
    return {"warnings": " | ".join(w for group in warned for w in group) or None,
            "frames": get("trial", "frames"), "mass_kg": get("model", "mass_kg"),
            "mass_source": None if source is None else source.split(" (")[0],
            "marker_rms_mm": None if rms is None else 1000.0 * rms,
            "converged_percent": get("reconstruction", "converged_percent"),
            "cutoff_hz": get("dynamics", "derivatives", "cutoff_hz"),
            "root_force_no_contact_percent_bw": without,
            "root_force_with_plates_percent_bw": get("dynamics", "with_measured_plates", "root_force_mean_percent_bw"),
            "root_force_with_plates_and_estimate_percent_bw": get("dynamics", "with_plates_and_estimated_support",
                                                                  "root_force_mean_percent_bw"),
            "torques_with": get("dynamics", "torques_with"),
            "surfaces": None if surfaces is None else "; ".join(_surface(surface) for surface in surfaces),
            "floor_tilt_deg": get("contact", "floor_tilt_deg"),
            "explained_force_percent": None if explained is None else 100.0 * explained,
            "root_force_with_contact_percent_bw": None if None in (without, explained) else without * (1 - explained),
            "flight_root_force_percent_bw": get("contact", "flight", "root_force_rms_percent_bw"),
            "explained_force_in_reach_percent": None if in_reach is None else 100.0 * in_reach,
            "plate_rmse_vertical_percent_bw": get("contact", "plates", "rmse_vertical_bw_percent"),
            "plate_correlation_vertical": get("contact", "plates", "correlation_vertical"),
            "plate_rmse_horizontal_percent_bw": get("contact", "plates", "rmse_horizontal_bw_percent"),
            "plate_cop_error_single_support_cm": get("contact", "plates", "cop_error_single_support_cm"),
            "plate_moments_mean_r": get("contact", "plates", "joint_moments", "where_plates_see_all", "mean_r"),
            "plate_moments_mean_rmse_nm_per_kg": get("contact", "plates", "joint_moments", "where_plates_see_all",
                                                     "mean_rmse_nm_per_kg"),
            **{f"{stage}_s": timings.get(stage) for stage in ("import", "calibrate", "reconstruct", "dynamics",
                                                               "contact")},
            "pipeline_s": sum(timings.values()) if timings else None}


def _surface(surface: dict) -> str:
    """One support surface in a word or three: "floor", "raised 0.31 m" (its height above the floor)."""
    above = surface.get("height_above_floor_m")
    return surface["kind"] if above is None else f"{surface['kind']} {above:.2f} m"


def write_summary(rows: list[dict], out: Path) -> Path:
    """``out/summary.csv``, written atomically."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
    return write_text(out / "summary.csv", text.getvalue())


def plot_distribution(rows: list[dict], path: Path) -> Path:
    """Brubaker Fig. 6 over the batch (``plots.plot_root_force_distribution``)."""
    def column(name: str) -> np.ndarray:
        return np.array([np.nan if r[name] is None else r[name] for r in rows], float)

    without = column("root_force_no_contact_percent_bw")
    if not np.isfinite(without).any():
        raise SolverError("No trial reached the dynamics stage", "see the summary for what failed")
    return plot_root_force_distribution(without, column("root_force_with_plates_percent_bw"),
                                        100.0 - column("explained_force_percent"), path,
                                        title=f"{np.isfinite(without).sum()} trials")


def main(argv: list[str] | None = None) -> int:
    """``scripts/batch.py``; returns the exit code (module docstring)."""
    parser = OneLineParser(prog="batch.py", description="Process many motion-capture trials in parallel, "
                                                        "on this machine or a Dask cluster.")
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="folders, .c3d/.trc recordings, or text "
                                                                    "files listing recordings")
    parser.add_argument("--out", default="out", metavar="OUT", help="output folder: OUT/<trial>/, summary.csv "
                                                                     "(default: out, where python -m solver writes)")
    parser.add_argument("--recursive", action="store_true", help="also take recordings in subfolders")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="trials at once on this machine (default: the number of CPUs)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask distributed cluster")
    parser.add_argument("--blend", action="store_true", help="also write OUT/<trial>/<trial>.blend "
                                                             "(scripts/process_trial.py, needs bpy)")
    parser.add_argument("--timeout", type=float, metavar="S", help="give up on a trial after S seconds")
    add_pipeline_arguments(parser, per_trial=False)
    args = parser.parse_args(argv)
    started = time.perf_counter()

    def batch() -> list[dict]:
        if args.jobs < 1:
            raise InputError(f"--jobs {args.jobs} is not a positive number", "give --jobs 1 or more")
        if args.timeout is not None and not args.timeout > 0:
            raise InputError(f"--timeout {args.timeout:g} is not a positive number of seconds",
                             "give --timeout a number of seconds, or leave it out")
        pipeline_options(args)  # bad options or output paths stop the batch before any trial starts
        writable_folder(args.out, "--out")
        listed, argv = find_trials(args.sources, args.recursive), pipeline_argv(args)
        check_flags(listed, argv)
        return run_batch(listed, args.out, argv, jobs=args.jobs, scheduler=args.scheduler, blend=args.blend,
                         timeout=args.timeout)

    code, rows = guarded(batch)
    if code != EXIT_OK:
        return code
    bad = [r for r in rows if r["status"] != "ok"]
    print(f"[batch] {len(rows) - len(bad)}/{len(rows)} trials ok in {time.perf_counter() - started:.1f} s; "
          f"summary: {Path(args.out) / 'summary.csv'}")
    for row in bad:
        print(f"[batch]   {row['trial']}: {row['status']}: {row['message']}")
    return EXIT_SOME_FAILED if bad else EXIT_OK
