"""Messages in the sidebar's words: a message that names an option (``solver.errors.option``) names the field
that sets it, "Units" set to Millimetres rather than ``ImportOptions(units='mm')`` or ``--units mm``.

``FIELDS`` is the one table from pipeline option names to the operator (or scene settings) property that
sets them; the label and the value's name come from the registered property itself, so they cannot drift
from what the sidebar shows. Operators run their work inside ``sidebar_messages()``.
"""

from __future__ import annotations

import bpy

from ..solver.errors import UNSET, Spelling, spoken_as

#: Pipeline option -> (the operator's idname, or "scene" for the sidebar's scene settings; the property).
FIELDS = {
    "import.units": ("mocap_dynamics.import_markers", "units"),
    "import.up_axis": ("mocap_dynamics.import_markers", "up_axis"),
    "import.strip_prefix": ("mocap_dynamics.import_markers", "strip_prefix"),
    "import.subject": ("mocap_dynamics.import_markers", "subject"),
    "import.plate_delay": ("mocap_dynamics.import_markers", "plate_delay"),
    "grf": ("mocap_dynamics.import_markers", "grf_filepath"),
    "template": ("mocap_dynamics.build_armature", "template"),
    "mass": ("mocap_dynamics.build_armature", "mass"),
    "static": ("mocap_dynamics.build_armature", "static_filepath"),
    "markerset": ("mocap_dynamics.build_armature", "markerset_filepath"),
    "sex": ("mocap_dynamics.build_armature", "sex"),
    "shoe_mass": ("mocap_dynamics.build_armature", "shoe_mass"),
    "head": ("mocap_dynamics.build_armature", "head"),
    "method": ("mocap_dynamics.reconstruct", "method"),
    "otm_mode": ("mocap_dynamics.reconstruct", "mode"),
    "tolerance": ("mocap_dynamics.reconstruct", "tolerance"),
    "marker_weights": ("mocap_dynamics.reconstruct", "marker_weights"),
    "cutoff": ("mocap_dynamics.inverse_dynamics", "cutoff"),
    "cutoff.kind": ("mocap_dynamics.inverse_dynamics", "filter"),  # a cutoff named, not a number: "auto", "none"
    "contact_forces": ("mocap_dynamics.estimate_contact", "forces"),
    "zero_gravity.kind": ("scene", "zero_gravity"),
    "zero_gravity.momentum": ("scene", "zero_gravity_momentum"),
    "zero_gravity.limbs": ("scene", "zero_gravity_limbs"),
    "zero_gravity.angle_deg": ("scene", "zero_gravity_angle"),
    "zero_gravity.lift_deg": ("scene", "zero_gravity_lift"),
    "zero_gravity.duration_s": ("scene", "zero_gravity_duration"),
    "zero_gravity.v_max_deg_s": ("scene", "zero_gravity_v_max"),
    "zero_gravity.rungs": ("scene", "zero_gravity_rungs"),
}

#: Option values no sidebar field offers, said as what the sidebar does instead.
UNOFFERED = {
    ("zero_gravity.kind", "none"): "steps 1-5 run one by one, without Run All Steps",
}


class SidebarSpelling(Spelling):
    """Options as their sidebar fields: ``"Body Mass"``, ``"Units" set to Millimetres``. The fields' labels
    and value names are read from the registered properties when the spelling is made (on the main thread),
    so a worker thread's messages never touch bpy."""

    def __init__(self):
        self.labels = {}
        for name in FIELDS:
            prop = field(name)
            if prop is not None:
                items = {item.identifier: item.name for item in prop.enum_items} if prop.type == "ENUM" else {}
                self.labels[name] = (prop.name, items)

    def spell(self, name: str, value=UNSET, hint: str = "value") -> str:
        if name == "cutoff" and isinstance(value, str):  # the Filter field chooses these; the Cutoff one a number
            name = "cutoff.kind"
        if name not in self.labels:  # not a sidebar field: the Python spelling
            return super().spell(name, value, hint)
        label, items = self.labels[name]
        if value is UNSET:
            return f'"{label}"'
        if (name, value) in UNOFFERED:
            return UNOFFERED[name, value]
        shown = items.get(value, f"{value:g}" if isinstance(value, float) else value)
        return f'"{label}" set to {shown}'


def field(name: str):
    """The registered property (``bpy.types.Property``) that sets option ``name``, or None."""
    if name not in FIELDS:
        return None
    owner, prop = FIELDS[name]
    if owner == "scene":
        rna = bpy.types.Scene.bl_rna.properties["mocap_dynamics"].fixed_type
    else:
        module, operator = owner.split(".")
        rna = getattr(getattr(bpy.ops, module), operator).get_rna_type()
    return rna.properties.get(prop)


def sidebar_messages():
    """The block's messages name options by their sidebar fields (a background job made inside the block
    keeps this spelling in its worker thread: ``jobs.Job``)."""
    return spoken_as(SidebarSpelling())
