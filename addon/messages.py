"""Messages in the sidebar's words: a message that names an option (``solver.errors.option``) names the field
that sets it, "Units" set to Millimetres rather than ``ImportOptions(units='mm')`` or ``--units mm``.

``FIELDS`` is the one table from pipeline option names to the operator (or scene settings) property that
sets them; the label and the value's name come from the registered property itself, so they cannot drift
from what the sidebar shows. Operators run their work inside ``sidebar_messages()``.
"""

from __future__ import annotations

import bpy

from ..solver.errors import UNSET, Spelling, spoken_as

#: Pipeline option -> (registered class in ``bpy.types``, its property).
FIELDS = {
    "import.units": ("MOCAP_DYNAMICS_OT_import_markers", "units"),
    "import.up_axis": ("MOCAP_DYNAMICS_OT_import_markers", "up_axis"),
    "import.strip_prefix": ("MOCAP_DYNAMICS_OT_import_markers", "strip_prefix"),
    "grf": ("MOCAP_DYNAMICS_OT_import_markers", "grf_filepath"),
    "template": ("MOCAP_DYNAMICS_OT_build_armature", "template"),
    "mass": ("MOCAP_DYNAMICS_OT_build_armature", "mass"),
    "static": ("MOCAP_DYNAMICS_OT_build_armature", "static_filepath"),
    "markerset": ("MOCAP_DYNAMICS_OT_build_armature", "markerset_filepath"),
    "sex": ("MOCAP_DYNAMICS_OT_build_armature", "sex"),
    "method": ("MOCAP_DYNAMICS_OT_reconstruct", "method"),
    "otm_mode": ("MOCAP_DYNAMICS_OT_reconstruct", "mode"),
    "tolerance": ("MOCAP_DYNAMICS_OT_reconstruct", "tolerance"),
    "cutoff": ("MOCAP_DYNAMICS_OT_inverse_dynamics", "cutoff"),
    "contact_forces": ("MOCAP_DYNAMICS_OT_estimate_contact", "forces"),
    "zero_gravity.kind": ("MocapDynamicsSettings", "zero_gravity"),
    "zero_gravity.momentum": ("MocapDynamicsSettings", "zero_gravity_momentum"),
    "zero_gravity.limbs": ("MocapDynamicsSettings", "zero_gravity_limbs"),
    "zero_gravity.angle_deg": ("MocapDynamicsSettings", "zero_gravity_angle"),
    "zero_gravity.lift_deg": ("MocapDynamicsSettings", "zero_gravity_lift"),
    "zero_gravity.duration_s": ("MocapDynamicsSettings", "zero_gravity_duration"),
    "zero_gravity.v_max_deg_s": ("MocapDynamicsSettings", "zero_gravity_v_max"),
    "zero_gravity.rungs": ("MocapDynamicsSettings", "zero_gravity_rungs"),
}


class SidebarSpelling(Spelling):
    """Options as their sidebar fields: ``"Body Mass"``, ``"Units" set to Millimetres``."""

    def spell(self, name: str, value=UNSET, hint: str = "value") -> str:
        found = FIELDS.get(name)
        cls = getattr(bpy.types, found[0], None) if found else None
        if cls is None:  # not a sidebar field (or not registered): the Python spelling
            return super().spell(name, value, hint)
        prop = cls.bl_rna.properties[found[1]]
        if value is UNSET:
            return f'"{prop.name}"'
        items = prop.enum_items if prop.type == "ENUM" else {}
        shown = items[value].name if value in items else f"{value:g}" if isinstance(value, float) else value
        return f'"{prop.name}" set to {shown}'


SIDEBAR = SidebarSpelling()


def sidebar_messages():
    """The block's messages name options by their sidebar fields."""
    return spoken_as(SIDEBAR)
