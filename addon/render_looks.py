"""The slide look of a render: background, light, ground and shadows, and how the visuals read.

- **Background**: light (near white) or dark (near black), with an ink colour
  for text, axes and scale bars that reads on it (``PALETTES``).
- **Workbench**: studio light, material colours, cavity and object outlines.
- **EEVEE**: a high sun from the camera's front left with a soft shadow
  (``SUN_ANGLE_DEG``), a world that shows the background to the camera but
  lights with a neutral grey, and a ground disc under the subject that shows
  the background's colour in the sun and fades out towards its rim, so only
  the shadows show.
- **Visuals**: force arrows widened (``delta_scale``, on top of their drivers)
  to at least ``ARROW_PIXELS`` at the subject's depth; torque disks
  semi-transparent (``DISK_ALPHA``); the body optionally so (``BODY_ALPHA``).

The look is part of the scene (F12 renders the same picture): the render
settings, the world, and the visuals' materials and widths stay as set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import bmesh
import bpy
import numpy as np
from mathutils import Vector

from .arrows import SHAFT_RADIUS
from .render_sampling import FORCE_PROP

ENGINES = ("WORKBENCH", "EEVEE")
BACKGROUNDS = ("light", "dark")
AMBIENT, SKY_GREY, SUN = 0.5, 0.6, 1.2  # EEVEE: world light strength and colour, sun irradiance [W/m²]
SUN_ELEVATION_DEG, SUN_ANGLE_DEG = 55.0, 12.0  # the sun's height, and its disc (a soft shadow)
ARROW_PIXELS = 8.0  # shaft width at 720 lines, scaled with the image height (6 px is the floor)
DISK_ALPHA, BODY_ALPHA = 0.6, 0.35
GROUND_FADE = 0.55  # the ground is opaque out to this fraction of its radius, then fades to nothing


@dataclass(frozen=True)
class Palette:
    """Linear RGB of the background, of ink (text, axes, scale bars), faint ink (grid lines), the plot
    panel's card, the centre-of-mass path and the albedo of EEVEE's ground."""

    background: tuple[float, float, float]
    ink: tuple[float, float, float]
    faint: tuple[float, float, float]
    card: tuple[float, float, float]
    trail: tuple[float, float, float]
    ground: tuple[float, float, float]


PALETTES = {
    "light": Palette((0.86, 0.87, 0.89), (0.012, 0.012, 0.016), (0.62, 0.63, 0.66), (1.0, 1.0, 1.0),
                     (0.2, 0.2, 0.22), (0.9, 0.9, 0.9)),
    "dark": Palette((0.011, 0.012, 0.017), (0.82, 0.82, 0.84), (0.09, 0.095, 0.11), (0.024, 0.026, 0.034),
                    (0.45, 0.45, 0.47), (0.05, 0.05, 0.055)),
}


def eevee_engine() -> str:
    """'BLENDER_EEVEE_NEXT' on Blender 4.2 to 4.5, 'BLENDER_EEVEE' on 5.0."""
    names = bpy.types.RenderSettings.bl_rna.properties["engine"].enum_items.keys()
    return next(name for name in ("BLENDER_EEVEE_NEXT", "BLENDER_EEVEE") if name in names)


def world(scene: bpy.types.Scene, palette: Palette) -> None:
    """The background colour in every engine (Workbench shows the world colour); for EEVEE a world that shows
    it to the camera but lights the scene with a neutral grey (``AMBIENT``), the same on light and dark."""
    block = bpy.data.worlds.get("MocapDynamics render") or bpy.data.worlds.new("MocapDynamics render")
    block.color = palette.background
    if block.node_tree is None:  # Blender < 5.0 creates worlds without nodes
        block.use_nodes = True
    nodes, links = block.node_tree.nodes, block.node_tree.links
    nodes.clear()
    seen, lighting = nodes.new("ShaderNodeBackground"), nodes.new("ShaderNodeBackground")
    seen.inputs["Color"].default_value = (*palette.background, 1.0)
    lighting.inputs["Color"].default_value = (SKY_GREY, SKY_GREY, SKY_GREY, 1.0)
    lighting.inputs["Strength"].default_value = AMBIENT
    mix = nodes.new("ShaderNodeMixShader")
    links.new(nodes.new("ShaderNodeLightPath").outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(lighting.outputs["Background"], mix.inputs[1])
    links.new(seen.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes.new("ShaderNodeOutputWorld").inputs["Surface"])
    scene.world = block


def sun(collection: bpy.types.Collection, camera_axes: np.ndarray) -> None:
    """A sun from the camera's front left, ``SUN_ELEVATION_DEG`` high, with a soft shadow (EEVEE; Workbench
    uses its studio light): the body is lit from the camera's side, its shadow falls behind it."""
    data = bpy.data.lights.new("MocapDynamics render sun", "SUN")
    data.energy, data.angle, data.use_shadow = SUN, math.radians(SUN_ANGLE_DEG), True
    up = np.array([0.0, 0.0, 1.0])
    towards_camera = camera_axes[:, 2] - (camera_axes[:, 2] @ up) * up
    across = towards_camera / np.linalg.norm(towards_camera) - camera_axes[:, 0]  # front left, horizontal
    elevation = math.radians(SUN_ELEVATION_DEG)
    source = math.cos(elevation) * across / np.linalg.norm(across) + math.sin(elevation) * up
    light = bpy.data.objects.new("render sun", data)
    light.rotation_euler = Vector(source).to_track_quat("Z", "Y").to_euler()  # a sun shines down its -Z
    collection.objects.link(light)


def _ground_material(palette: Palette, radius: float) -> bpy.types.Material:
    """A floor that shows the background's colour where the sun reaches it and darker in shadows.

    A diffuse ground of albedo ``palette.ground`` in full sun receives
    ``SUN sin(elevation) / π`` from the sun and ``AMBIENT`` times the world's
    grey from the sky; it emits the rest of the background's colour, so only
    the shadows (which take the sun's part away) show. It is opaque out to
    ``GROUND_FADE`` of ``radius`` and fades to clear at its rim.
    """
    mat = bpy.data.materials.get("MocapDynamics render ground") or bpy.data.materials.new("MocapDynamics render ground")
    if mat.node_tree is None:
        mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    nodes.clear()
    lit = SUN * math.sin(math.radians(SUN_ELEVATION_DEG)) / math.pi + AMBIENT * SKY_GREY
    glow = np.maximum(np.array(palette.background) - lit * np.array(palette.ground), 0.0)
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*palette.ground, 1.0)
    bsdf.inputs["Roughness"].default_value = 1.0
    bsdf.inputs["Emission Color"].default_value = (*glow, 1.0)
    bsdf.inputs["Emission Strength"].default_value = 1.0
    distance = nodes.new("ShaderNodeVectorMath")
    distance.operation = "LENGTH"
    links.new(nodes.new("ShaderNodeTexCoord").outputs["Object"], distance.inputs[0])
    fade = nodes.new("ShaderNodeMapRange")
    fade.inputs["From Min"].default_value, fade.inputs["From Max"].default_value = GROUND_FADE * radius, radius
    fade.inputs["To Min"].default_value, fade.inputs["To Max"].default_value = 1.0, 0.0
    links.new(distance.outputs["Value"], fade.inputs["Value"])
    links.new(fade.outputs["Result"], bsdf.inputs["Alpha"])
    links.new(bsdf.outputs["BSDF"], nodes.new("ShaderNodeOutputMaterial").inputs["Surface"])
    mat.surface_render_method = "DITHERED"  # blended, the fade would double EEVEE's render time
    mat.diffuse_color = (*palette.background, 1.0)
    return mat


def ground(collection: bpy.types.Collection, centre: np.ndarray, radius: float, palette: Palette) -> None:
    """A disc of ``radius`` on the floor at ``centre`` (x, y, floor height), for EEVEE's shadows."""
    mesh = bpy.data.meshes.new("MocapDynamics render ground")
    bm = bmesh.new()
    bmesh.ops.create_circle(bm, cap_ends=True, segments=64, radius=radius)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(_ground_material(palette, radius))
    disc = bpy.data.objects.new("render ground", mesh)
    disc.location = centre
    disc.visible_shadow = False
    collection.objects.link(disc)


def solid_material(name: str, rgb) -> bpy.types.Material:
    """A render material of linear colour ``rgb`` in Workbench (diffuse) and EEVEE (Principled base colour)."""
    full = f"MocapDynamics render {name}"
    mat = bpy.data.materials.get(full) or bpy.data.materials.new(full)
    mat.diffuse_color = (*rgb[:3], 1.0)
    if mat.node_tree is None:  # Blender < 5.0 creates materials without nodes
        mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = (*rgb[:3], 1.0)
        bsdf.inputs["Roughness"].default_value = 0.6
    return mat


def set_alpha(mat: bpy.types.Material, alpha: float) -> None:
    """Material opacity in Workbench (diffuse alpha) and EEVEE (Principled alpha; blended when below 1, since
    dithered surfaces stay speckled at 16 samples)."""
    mat.diffuse_color = (*mat.diffuse_color[:3], alpha)
    bsdf = mat.node_tree.nodes.get("Principled BSDF") if mat.node_tree else None
    if bsdf is not None:
        bsdf.inputs["Alpha"].default_value = alpha
    mat.surface_render_method = "BLENDED" if alpha < 1.0 else "DITHERED"
    mat.use_transparency_overlap = False  # a see-through body shows its front surface only


def arrow_widths(metres_per_pixel: float, height: int) -> tuple[float, float]:
    """How much to widen the arrows to ``ARROW_PIXELS`` (at ``height`` lines), and to lengthen their heads."""
    width = max(1.0, ARROW_PIXELS * height / 720.0 * metres_per_pixel / (2.0 * SHAFT_RADIUS))
    return width, math.sqrt(width)


def visuals(collection: bpy.types.Collection, width: float, head: float, transparent_body: bool) -> None:
    """Widen the trial's arrows by ``width`` (heads lengthened by ``head``), make the disks (and the body if
    asked) see-through."""
    for root in (ob for ob in collection.all_objects if FORCE_PROP in ob):
        for part in root.children:
            if part.name.endswith(" shaft"):
                part.delta_scale = (width, width, 1.0)
            elif part.name.endswith(" head"):
                part.delta_scale = (width, width, head)
    for kind, alpha in (("torque_generating", DISK_ALPHA), ("torque_absorbing", DISK_ALPHA),
                        ("body", BODY_ALPHA if transparent_body else 1.0)):
        mat = bpy.data.materials.get(f"MocapDynamics {kind}")
        if mat is not None:
            set_alpha(mat, alpha)


def render_settings(scene: bpy.types.Scene, engine: str, resolution: tuple[int, int], samples: int,
                    palette: Palette) -> None:
    """Engine, size, the "Standard" view transform (the PNG shows the material colours), and the engine's look."""
    render = scene.render
    render.engine = "BLENDER_WORKBENCH" if engine == "WORKBENCH" else eevee_engine()
    render.resolution_x, render.resolution_y = resolution
    render.resolution_percentage = 100
    render.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure, scene.view_settings.gamma = 0.0, 1.0
    shading = scene.display.shading
    shading.light, shading.color_type = "STUDIO", "MATERIAL"
    shading.show_specular_highlight = True
    shading.show_shadows = False
    shading.show_cavity, shading.cavity_type = True, "BOTH"
    shading.show_object_outline, shading.object_outline_color = True, palette.ink
    if engine == "EEVEE":
        scene.eevee.taa_render_samples = samples
        scene.eevee.use_shadows = True
