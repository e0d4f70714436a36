"""Reading and writing motion-capture files: C3D (with force plates), TRC, OpenSim .mot/.sto.

Everything read becomes a ``Trial`` in the solver's conventions (metres,
newtons, seconds, right-handed world with Z up, NaN for missing samples,
ground reaction forces acting on the subject); everything written goes
through a temporary file and a rename, so no half-written file is left.
"""

from .c3d import write_c3d
from .conventions import ImportOptions
from .load import load_trial
from .mot import Table, read_grf_mot, read_table, write_table
from .plates import attach_plates, delayed_plates, quiet_standing_weight
from .trc import write_trc
from .trial import ForcePlate, MarkerGaps, PlateSamples, Trial

__all__ = [
    "load_trial", "ImportOptions", "write_trc", "write_c3d", "read_table", "write_table", "Table",
    "read_grf_mot", "attach_plates", "delayed_plates", "quiet_standing_weight",
    "Trial", "ForcePlate", "PlateSamples", "MarkerGaps",
]
