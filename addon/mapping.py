"""The marker mapping of a trial: which marker is which landmark, on which segment; fixed by hand, saved as
the marker-set TOML file the command line takes (``--markerset``).

Each trial collection keeps one row per marker (``collection.mocap_dynamics_markers``): what the marker
is (a vocabulary concept, ``solver/model/vocabulary.toml``) and its side. The segment and the landmarks
it gives follow from those (the solver derives them, ``markersets.from_rows``). Rows are read from the
labels (and the C3D descriptions) by the vocabulary; Save Marker Set writes the TOML and makes it the
trial's marker set for the next Build Armature.
"""

from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import CollectionProperty, EnumProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..solver.errors import MocapError
from ..solver.io import load_trial
from ..solver.io.atomic import write_text
from ..solver.model.markersets import from_rows, landmarks_by_label, markerset_toml
from ..solver.model.vocabulary import CONCEPTS, interpret
from .session import trial_inputs
from .trial_scene import trial_metadata

IGNORE = "ignore"
MEANING_ITEMS = [(IGNORE, "Ignore", "Not used by the model")] + [
    (c.name, c.what[0].upper() + c.what[1:], f"on the {c.segment}" if c.segment else "a point only, on no segment")
    for c in CONCEPTS.values()]
NO_SIDE = "NONE"
SIDE_ITEMS = [(NO_SIDE, "No Side", "An unpaired marker (pelvis, trunk, head)"), ("l", "Left", ""), ("r", "Right", "")]
_filling = False


def _rows_of(collection: bpy.types.Collection) -> list[tuple[str, str, str]]:
    return [(r.label, "" if r.meaning == IGNORE else r.meaning, "" if r.side == NO_SIDE else r.side)
            for r in collection.mocap_dynamics_markers]


def refresh(collection: bpy.types.Collection) -> None:
    """Recompute each row's segment, landmarks and note from the rows' meanings and sides."""
    mset = from_rows(_rows_of(collection))
    segment = {label: seg for seg, labels in mset.segments.items() for label in labels}
    landmarks = landmarks_by_label(mset)
    for row in collection.mocap_dynamics_markers:
        row.segment = segment.get(row.label, "")
        row.landmarks = ", ".join(landmarks.get(row.label, ()))
        row.note = mset.ignored.get(row.label, "")


def _changed(self, context) -> None:
    if not _filling:
        refresh(self.id_data)


class MocapDynamicsMarkerRow(bpy.types.PropertyGroup):
    label: StringProperty(name="Label")
    meaning: EnumProperty(name="Marker", items=MEANING_ITEMS, update=_changed,
                          description="What this marker is: an anatomical landmark or a segment's marker")
    side: EnumProperty(name="Side", items=SIDE_ITEMS, update=_changed)
    segment: StringProperty(name="Segment", description="The segment the marker rides on")
    landmarks: StringProperty(name="Landmarks", description="The calibration landmarks it gives")
    note: StringProperty(name="Note", description="Why it is not used, or where its meaning comes from")


def fill_rows(collection: bpy.types.Collection, labels, descriptions: dict | None = None) -> None:
    """One row per label, as the vocabulary reads it (descriptions: the C3D's, for generic labels)."""
    global _filling
    meanings, ignored = interpret(labels, descriptions)
    rows = collection.mocap_dynamics_markers
    rows.clear()
    _filling = True
    try:
        for label in labels:
            row = rows.add()
            row.label = label
            m = meanings.get(label)
            row.meaning = m.concept if m is not None else IGNORE
            row.side = m.side if m is not None and m.side else NO_SIDE
    finally:
        _filling = False
    refresh(collection)
    for row in rows:
        m = meanings.get(row.label)
        if m is not None and m.from_description:
            row.note = "read from the file's description"
        elif row.label in ignored:
            row.note = ignored[row.label]


def _active(context) -> tuple:
    collection = context.scene.mocap_dynamics.active_trial
    return collection, trial_metadata(collection)


class MOCAP_DYNAMICS_OT_read_marker_labels(bpy.types.Operator):
    """Read the active trial's marker labels (and C3D descriptions) by meaning; replaces the rows"""

    bl_idname = "mocap_dynamics.read_marker_labels"
    bl_label = "Read Marker Labels"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return _active(context)[1] is not None

    def execute(self, context):
        collection, meta = _active(context)
        try:
            source, options = trial_inputs(meta)
            trial = load_trial(source, options.import_options)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        fill_rows(collection, trial.labels, trial.metadata.get("point_descriptions"))
        used = sum(1 for r in collection.mocap_dynamics_markers if r.segment or r.landmarks)
        self.report({"INFO"}, f"{used} of {len(trial.labels)} markers read by meaning")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_save_marker_set(bpy.types.Operator, ExportHelper):
    """Save the marker mapping as a marker-set TOML file (the command line's --markerset) and use it for the
    trial's next Build Armature"""

    bl_idname = "mocap_dynamics.save_marker_set"
    bl_label = "Save Marker Set"
    bl_options = {"REGISTER"}

    filename_ext = ".toml"
    filter_glob: StringProperty(default="*.toml", options={"HIDDEN"})

    @classmethod
    def poll(cls, context):
        collection = _active(context)[0]
        return collection is not None and len(collection.mocap_dynamics_markers) > 0

    def execute(self, context):
        collection, meta = _active(context)
        path = Path(bpy.path.abspath(self.filepath))
        mset = from_rows(_rows_of(collection), name=path.stem)
        try:
            write_text(path, markerset_toml(mset))
        except OSError as error:
            self.report({"ERROR"}, f"Cannot write {path}: {error.strerror}. Choose a folder you can write to.")
            return {"CANCELLED"}
        collection["mocap_dynamics"]["options"]["markerset"] = str(path)
        self.report({"INFO"}, f"Saved {path.name}: {sum(map(len, mset.segments.values()))} markers on "
                              f"{len(mset.segments)} segments; Build Armature uses it")
        return {"FINISHED"}


class MOCAP_DYNAMICS_UL_markers(bpy.types.UIList):
    """One line per marker: its label and the segment it rides on (or why it is not used)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=item.label, icon="EMPTY_AXIS" if item.segment else "HIDE_ON")
        row.label(text=item.segment or ("landmark" if item.landmarks else "ignored"))


CLASSES = (MocapDynamicsMarkerRow, MOCAP_DYNAMICS_OT_read_marker_labels, MOCAP_DYNAMICS_OT_save_marker_set,
           MOCAP_DYNAMICS_UL_markers)
_register, _unregister = bpy.utils.register_classes_factory(CLASSES)


def register():
    _register()
    bpy.types.Collection.mocap_dynamics_markers = CollectionProperty(type=MocapDynamicsMarkerRow)
    bpy.types.Collection.mocap_dynamics_marker_index = IntProperty(name="Active Marker", default=0)


def unregister():
    del bpy.types.Collection.mocap_dynamics_marker_index
    del bpy.types.Collection.mocap_dynamics_markers
    _unregister()
