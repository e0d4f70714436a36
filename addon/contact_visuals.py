"""Estimated ground contact drawn in the scene (as in Brubaker et al. 2009 Fig. 1).

- each estimated surface as its own patch, drawn as a wireframe grid (so it renders): the floor in blue over
  where the contact points went, each raised surface (a box, a step, a seat) in violet over its extent;
- the estimated ground reaction force of each foot as an arrow at its centre
  of pressure (green; measured plate forces stay orange beside them), and of
  every other contact body (a seated pelvis and thighs: ``Contact.other_bodies``)
  as an arrow that ends at its centre of pressure, coming from the seat below
  (drawn from there up, it would lie hidden inside the body);
- an arrow at every contact point that carries load at some time (ending at
  the point but on the feet);
- vertical GRF, estimated and measured, as Graph Editor curves on the rig; with raised surfaces, the
  estimate's share on the floor and on them too (the plates in a floor measure the first); where the
  rig's torques are the plates', the joint moments from the motion alone beside them;
- each foot's stances as keyed booleans on the rig and heel strikes and toe
  offs as timeline markers (``retarget_events``).
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np
from mathutils import Matrix

from ..solver.contact import Contact
from ..solver.io.trial import Trial
from ..solver.retarget import foot_contacts
from ..solver.rotations import quat_to_matrix, quat_z_to
from .arrows import create_arrow, key_arrow
from .collections import child_collection, remove_child_collection, trial_name
from .dynamics_visuals import MOTION_ALONE, moment_curves
from .keying import Channel, key_channels, remove_group
from .materials import material
from .retarget_events import CONTACT_GROUP, FLOOR_VELOCITY_PROP, clear_events, key_contact_events

ACTIVE_POINT_FRACTION = 0.02  # a contact point gets an arrow if it ever carries 2 % of body weight
GRID_MARGIN = 0.5  # m around the contact points' footprint
GRID_CELL = 0.25  # m


def _grid(name: str, plane, centre: np.ndarray, axes: np.ndarray, size: np.ndarray, colour: str,
          collection: bpy.types.Collection) -> bpy.types.Object:
    """A wireframe grid of ``size`` (2,) [m] on ``plane`` centred above ``centre`` (x, y), its sides along the
    horizontal unit ``axes`` (2, 2) (columns)."""
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=max(2, int(size[0] / GRID_CELL)), y_segments=max(2, int(size[1] / GRID_CELL)),
                          size=0.5)  # a unit square, scaled below
    bm.to_mesh(mesh)
    bm.free()
    grid = bpy.data.objects.new(name, mesh)
    collection.objects.link(grid)
    tilt = quat_to_matrix(quat_z_to(plane.normal))
    heading = np.eye(3)
    heading[:2, :2] = axes
    matrix = Matrix((tilt @ heading).tolist()).to_4x4()
    matrix.translation = (centre[0], centre[1], plane.height_at(*centre))
    grid.matrix_world = matrix @ Matrix.Diagonal((size[0], size[1], 1.0, 1.0))
    grid.data.materials.append(material(colour))
    grid.modifiers.new("Wireframe", "WIREFRAME").thickness = 0.004
    return grid


def _surfaces(contact: Contact, collection: bpy.types.Collection) -> None:
    """The floor over the contact points' footprint; each raised patch over its extent."""
    if not contact.surfaces:
        return
    points = contact.point_positions.reshape(-1, 3)
    points = points[np.isfinite(points).all(axis=1)]
    low, high = points[:, :2].min(axis=0) - GRID_MARGIN, points[:, :2].max(axis=0) + GRID_MARGIN
    _grid("estimated ground", contact.plane, 0.5 * (low + high), np.eye(2), high - low, "contact_plane", collection)
    for j, patch in enumerate(contact.patches[1:], start=1):
        corners = patch.corners[:, :2]
        sides = np.array([corners[1] - corners[0], corners[3] - corners[0]])
        lengths = np.linalg.norm(sides, axis=1)
        _grid(f"estimated surface {j}", contact.surfaces[j].top, corners.mean(0), (sides / lengths[:, None]).T,
              lengths, "contact_raised", collection)


def build_contact_visuals(contact: Contact, trial: Trial, trial_collection: bpy.types.Collection,
                          rig: bpy.types.Object, frames: np.ndarray, scene: bpy.types.Scene,
                          moments_beside: bool = False, per_kg: bool = False) -> None:
    """Plane grid, per-foot and per-point estimated GRF arrows, and GRF curves, keyed at ``frames`` (the rig's
    curves of an earlier run replaced: one with raised surfaces leaves no floor and raised shares behind).
    ``moments_beside`` (the rig's torques are the plates'): the joint moments with the estimated contact too,
    ``<moment> motion alone``, per kg body mass with ``per_kg`` as the others."""
    collection = child_collection(trial_collection, f"{trial_name(trial_collection)} contact")
    remove_group(rig, CONTACT_GROUP)
    _surfaces(contact, collection)
    for f, foot in enumerate(contact.feet):
        arrow = create_arrow(f"{foot} estimated GRF", collection, "force_estimated", scene)
        key_arrow(arrow, frames, contact.foot_cop[:, f], contact.foot_force[:, f])
    for b, body in enumerate(contact.other_bodies):
        arrow = create_arrow(f"{body} estimated contact force", collection, "force_estimated", scene, pushes=True)
        key_arrow(arrow, frames, contact.other_cop[:, b], contact.other_force[:, b])
    weight = contact.body_weight
    magnitude = np.linalg.norm(contact.point_forces, axis=-1)
    for k in np.flatnonzero(np.nanmax(magnitude, axis=0) > ACTIVE_POINT_FRACTION * weight):
        segment = contact.model.segments[contact.point_segments[k]].name
        arrow = create_arrow(f"{segment} contact {k}", collection, "force_estimated", scene,
                             pushes=segment not in contact.feet)
        key_arrow(arrow, frames, contact.point_positions[:, k], contact.point_forces[:, k])
    curves = {f"GRF vertical {foot} estimated": contact.foot_force[:, f, 2] for f, foot in enumerate(contact.feet)}
    curves["GRF vertical total estimated"] = contact.total_force[:, 2]
    if len(contact.surfaces) > 1:  # the floor is surface 0 (``support.patches_of``)
        curves["GRF vertical floor estimated"] = contact.surface_force[:, 0, 2]
        curves["GRF vertical raised estimated"] = contact.surface_force[:, 1:, 2].sum(axis=1)
    if trial.plate_samples is not None:
        samples = np.rint((contact.times - trial.start_time) * trial.rate).astype(int)
        measured = np.nansum(np.where(np.isfinite(trial.plate_samples.cop).all(-1, keepdims=True),
                                      trial.plate_samples.force, 0.0), axis=1)[samples, 2]
        curves["GRF vertical total measured"] = measured
    if moments_beside:
        scale = 1.0 / contact.model.total_mass if per_kg else 1.0
        curves.update({name + MOTION_ALONE: scale * values for name, values in moment_curves(contact.dynamics).items()})
    for name in curves:
        rig[name] = 0.0
    key_channels(rig, [Channel(f'["{name}"]', 0, frames, values, group=CONTACT_GROUP)
                       for name, values in curves.items()])
    key_contact_events(rig, foot_contacts(contact), frames, scene)


def drop_contact_visuals(trial_collection: bpy.types.Collection, rig: bpy.types.Object, scene: bpy.types.Scene) -> None:
    """Remove what ``build_contact_visuals`` made: a run without the contact step leaves none of an earlier one."""
    remove_child_collection(trial_collection, f"{trial_name(trial_collection)} contact")
    remove_group(rig, CONTACT_GROUP)
    rig.pop(FLOOR_VELOCITY_PROP, None)
    clear_events(scene)
