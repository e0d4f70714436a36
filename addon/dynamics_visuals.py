"""Joint torques and root residual forces drawn on the rig, and keyed as curves for the Graph Editor.

- A torque disk per joint (Brubaker et al. 2009 Fig. 1): centred at the joint,
  facing along the torque vector, radius proportional to the torque
  magnitude (scene property ``mocap_torque_scale``, m per N·m). It shows in
  one colour while the joint generates power (τ·ω > 0) and in another while it
  absorbs power: two disks per joint whose radii are driven by simple
  expressions, so any render engine shows the right colour.
- The root residual force (the force no joint torque, gravity or known
  external force explains) as an arrow at the root origin.
- Curves for the Graph Editor, as custom properties of the armature object: the torque and residual
  magnitudes, and every joint moment named like the clinical angles (``hip_l_flexion_moment``,
  ``knee_l_flexion_moment``, ``ankle_l_dorsiflexion_moment``, ...; ``solver.dynamics.moments``); where
  the torques shown are the plates', the contact step adds the moments from the motion alone
  (``knee_l_flexion_moment motion alone``, ...).
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from ..solver.dynamics import Dynamics, joint_moments
from ..solver.kinematics.motion import Motion
from ..solver.rotations import quat_continuity, quat_z_to
from .arrows import create_arrow, key_arrow
from .collections import child_collection, remove_child_collection, trial_name
from .keying import Channel, key_channels, remove_group, shared_action, vector_channels
from .meshes import shared_mesh

TORQUE_SCALE_PROP = "mocap_torque_scale"
GROUP = "Dynamics"  # the rig's curves of this step
MOTION_ALONE = " motion alone"  # the suffix of the moments with the contact estimated from the motion
DEFAULT_TORQUE_SCALE = 0.001  # m per N·m: a 100 N·m hip torque is a disk of 0.1 m radius
DISK_THICKNESS = 0.004  # m


def _disk_mesh(kind: str) -> bpy.types.Mesh:
    """A unit-radius flat cylinder in the XY plane (shared per colour)."""
    return shared_mesh("MocapDynamics torque disk", kind, lambda bm: bmesh.ops.create_cone(
        bm, cap_ends=True, segments=32, radius1=1.0, radius2=1.0, depth=DISK_THICKNESS))


def torque_disk(name: str, collection: bpy.types.Collection, scene: bpy.types.Scene) -> bpy.types.Object:
    """A keyed root (``torque_Nm``, ``power_W``) with a generating and an absorbing disk under it."""
    root = bpy.data.objects.new(name, None)
    root.empty_display_type = "CIRCLE"
    root.empty_display_size = 0.01
    root.rotation_mode = "QUATERNION"
    root["torque_Nm"] = 0.0
    root["power_W"] = 0.0
    collection.objects.link(root)
    for kind, sign in (("torque_generating", "p > 0"), ("torque_absorbing", "p <= 0")):
        disk = bpy.data.objects.new(f"{name} {kind.split('_')[1]}", _disk_mesh(kind))
        disk.parent = root
        collection.objects.link(disk)
        for axis in (0, 1):
            driver = disk.driver_add("scale", axis).driver
            driver.type = "SCRIPTED"
            for var_name, id_type, id_, path in (("t", "OBJECT", root, '["torque_Nm"]'),
                                                 ("p", "OBJECT", root, '["power_W"]'),
                                                 ("s", "SCENE", scene, f'["{TORQUE_SCALE_PROP}"]')):
                var = driver.variables.new()
                var.name, var.type = var_name, "SINGLE_PROP"
                var.targets[0].id_type, var.targets[0].id, var.targets[0].data_path = id_type, id_, path
            driver.expression = f"t * s * ({sign})"
    return root


def build_dynamics_visuals(context: bpy.types.Context, dynamics: Dynamics, trial_collection: bpy.types.Collection,
                           rig: bpy.types.Object, frames: np.ndarray, per_kg: bool = False,
                           collection_name: str | None = None, offset: np.ndarray = np.zeros(3),
                           motion: Motion | None = None) -> None:
    """Torque disks, the root residual arrow and Graph Editor curves for ``dynamics`` keyed at ``frames``.

    The visuals go into the child collection ``collection_name`` (default ``"<trial> dynamics"``), shifted by
    ``offset`` [m] when the rig they belong to is (a zero-gravity rig beside the captured one). The disks and
    the arrow sit at the joints of ``motion``, what ``rig`` plays (default: the dynamics' own coordinates, which
    the default cutoff filters, so they may sit a few millimetres off the rig's joints).
    """
    scene = context.scene
    if TORQUE_SCALE_PROP not in scene:
        scene[TORQUE_SCALE_PROP] = DEFAULT_TORQUE_SCALE
    model = dynamics.model
    collection = child_collection(trial_collection, collection_name or f"{trial_name(trial_collection)} dynamics")
    if motion is None:
        _, positions = dynamics.poses
    else:
        positions = motion.positions[np.searchsorted(motion.times, dynamics.times - 1e-9)]
    positions = positions + offset
    torque = dynamics.joint_torque_world
    magnitude = np.linalg.norm(torque, axis=-1)
    action = shared_action(collection.name)
    for k, seg in enumerate(model.segments[1:], start=1):
        if seg.joint == "weld":
            continue
        disk = torque_disk(f"{seg.name} torque", collection, scene)
        orientation = quat_continuity(quat_z_to(torque[:, k]))
        key_channels(disk, vector_channels("location", frames, positions[:, k], group="Disk")
                     + vector_channels("rotation_quaternion", frames, orientation, group="Disk")
                     + [Channel('["torque_Nm"]', 0, frames, magnitude[:, k], group="Torque"),
                        Channel('["power_W"]', 0, frames, dynamics.joint_power[:, k], group="Torque")],
                     shared=action)
    residual = create_arrow(f"{model.segments[0].name} residual force", collection, "force_residual", scene)
    key_arrow(residual, frames, positions[:, 0], dynamics.root_wrench[:, :3])
    _key_curves(rig, dynamics, frames, magnitude, per_kg)


def _key_curves(rig: bpy.types.Object, dynamics: Dynamics, frames: np.ndarray, magnitude: np.ndarray,
                per_kg: bool) -> None:
    """Torque and residual magnitudes and the clinical joint moments as custom properties of the rig; units in
    ``rig["dynamics units"]``."""
    remove_group(rig, GROUP)
    scale = 1.0 / dynamics.model.total_mass if per_kg else 1.0
    rig["dynamics units"] = "N/kg and N·m/kg (per kg body mass)" if per_kg else "N and N·m"
    curves = {"root residual force": np.linalg.norm(dynamics.root_wrench[:, :3], axis=1),
              "root residual torque": np.linalg.norm(dynamics.root_wrench[:, 3:], axis=1)}
    curves.update({f"torque {seg.name}": magnitude[:, k] for k, seg in enumerate(dynamics.model.segments)
                   if k > 0 and seg.joint != "weld"})
    curves.update(moment_curves(dynamics))
    for name in curves:
        rig[name] = 0.0
    key_channels(rig, [Channel(f'["{name}"]', 0, frames, values * scale, group=GROUP)
                       for name, values in curves.items()])


def moment_curves(dynamics: Dynamics) -> dict[str, np.ndarray]:
    """The clinical joint moments [N·m] by name (``solver.dynamics.moments``), the root's (residuals) left out."""
    moments = joint_moments(dynamics)
    per_column = moments.newton_metres.reshape(len(dynamics.times), -1).T
    return dict(zip(moments.names[3:], per_column[3:]))


def drop_dynamics_visuals(trial_collection: bpy.types.Collection, rig: bpy.types.Object) -> None:
    """Remove what ``build_dynamics_visuals`` made: a run without the dynamics leaves none of an earlier one."""
    remove_child_collection(trial_collection, f"{trial_name(trial_collection)} dynamics")
    remove_group(rig, GROUP)
    rig.pop("dynamics units", None)
