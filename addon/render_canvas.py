"""The 2D canvas composited over the 3D render: where the legend, the scale bars and the plot panel are drawn.

The canvas is a second scene (``"<trial> overlay"``) of flat objects laid out
in pixels (x right, y up, origin at the image's bottom left) and seen from
above by an orthographic camera the size of the image. Workbench with flat
lighting renders them in their exact material colours on a transparent film,
and the main scene's compositor lays that over the 3D render (Alpha Over).
Blender renders the canvas at the frame it renders the main scene at, so a
keyed canvas object (the plot cursor) moves with a sequence or a movie.

The compositor differs between versions: Blender 5.0 takes a node group
(``Scene.compositing_node_group``) ending in a Group Output; 4.2 to 4.5 the
scene's own node tree ending in a Composite node (which the overlay
replaces).
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from .meshes import cached_mesh

CANVAS_AA = "8"  # Workbench anti-aliasing samples of the canvas (16 costs 0.7 s more a frame for little)
COMPOSITOR = "MocapDynamics overlay compositor"
_POOLS = ((bpy.types.Camera, "cameras"), (bpy.types.Light, "lights"), (bpy.types.Curve, "curves"),
          (bpy.types.Mesh, "meshes"))


def flat_material(name: str, rgb, alpha: float = 1.0) -> bpy.types.Material:
    """The canvas material ``name`` of linear colour ``rgb`` and opacity ``alpha`` (Workbench flat: exactly
    that colour)."""
    full = f"MocapDynamics canvas {name}"
    mat = bpy.data.materials.get(full) or bpy.data.materials.new(full)
    mat.diffuse_color = (*rgb[:3], alpha)
    return mat


def _square() -> bpy.types.Mesh:
    """A unit square from (0, 0) to (1, 1), shared by every rectangle."""
    return cached_mesh("MocapDynamics canvas square", lambda bm: bmesh.ops.translate(
        bm, verts=bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=0.5)["verts"], vec=(0.5, 0.5, 0.0)))


def _disc() -> bpy.types.Mesh:
    """A unit disc at the origin, shared by every dot."""
    return cached_mesh("MocapDynamics canvas dot",
                       lambda bm: bmesh.ops.create_circle(bm, cap_ends=True, segments=24, radius=1.0))


class Canvas:
    """The overlay scene of a trial, emptied and sized like ``main``; drawing in pixels."""

    def __init__(self, main: bpy.types.Scene, name: str):
        remove(name)
        self.scene = bpy.data.scenes.new(name)
        self.width, self.height = main.render.resolution_x, main.render.resolution_y
        render = self.scene.render
        render.engine = "BLENDER_WORKBENCH"
        render.resolution_x, render.resolution_y, render.resolution_percentage = self.width, self.height, 100
        render.film_transparent = True
        self.scene.view_settings.view_transform = "Standard"
        self.scene.display.render_aa = CANVAS_AA
        shading = self.scene.display.shading
        shading.light, shading.color_type = "FLAT", "MATERIAL"
        shading.show_cavity = shading.show_object_outline = shading.show_shadows = False
        data = bpy.data.cameras.new("MocapDynamics canvas camera")
        data.type, data.ortho_scale, data.sensor_fit = "ORTHO", float(max(self.width, self.height)), "AUTO"
        data.clip_start, data.clip_end = 1.0, 200.0
        camera = bpy.data.objects.new("canvas camera", data)
        camera.location = (0.5 * self.width, 0.5 * self.height, 100.0)
        self.scene.collection.objects.link(camera)
        self.scene.camera = camera
        self.scene.frame_start, self.scene.frame_end = main.frame_start, main.frame_end
        self.scene.render.fps, self.scene.render.fps_base = main.render.fps, main.render.fps_base

    def _link(self, ob: bpy.types.Object, x: float, y: float, z: float) -> bpy.types.Object:
        ob.location = (x, y, z)
        self.scene.collection.objects.link(ob)
        return ob

    def _shape(self, name: str, mesh: bpy.types.Mesh, mat: bpy.types.Material, x: float, y: float, z: float,
               scale: tuple[float, float]) -> bpy.types.Object:
        ob = bpy.data.objects.new(name, mesh)
        ob.material_slots[0].link = "OBJECT"
        ob.material_slots[0].material = mat
        ob.scale = (*scale, 1.0)
        return self._link(ob, x, y, z)

    def rect(self, name: str, x: float, y: float, width: float, height: float, mat: bpy.types.Material,
             z: float = 0.0) -> bpy.types.Object:
        """A filled rectangle from (x, y) to (x + width, y + height)."""
        return self._shape(name, _square(), mat, x, y, z, (width, height))

    def dot(self, name: str, x: float, y: float, radius: float, mat: bpy.types.Material,
            z: float = 0.0) -> bpy.types.Object:
        """A filled disc of ``radius`` centred at (x, y)."""
        return self._shape(name, _disc(), mat, x, y, z, (radius, radius))

    def text(self, body: str, x: float, y: float, size: float, mat: bpy.types.Material, align: str = "LEFT",
             valign: str = "CENTER", z: float = 0.0) -> bpy.types.Object:
        """``body`` at (x, y): starting, centred or ending there (``align``), its middle, top or baseline at y."""
        curve = bpy.data.curves.new(f"canvas {body}", "FONT")
        curve.body, curve.size, curve.align_x, curve.align_y = body, size, align, valign
        curve.materials.append(mat)
        return self._link(bpy.data.objects.new(f"canvas {body}", curve), x, y, z)

    def lines(self, name: str, runs: list[np.ndarray], width: float, mats: list[bpy.types.Material],
              run_mats: list[int] | None = None, z: float = 0.0) -> bpy.types.Object:
        """Polylines ``runs`` (each ``(N, 2)`` pixels) ``width`` pixels wide, run ``i`` in ``mats[run_mats[i]]``."""
        curve = bpy.data.curves.new(f"canvas {name}", "CURVE")
        curve.dimensions, curve.bevel_depth, curve.bevel_resolution = "3D", 0.5 * width, 1
        for mat in mats:
            curve.materials.append(mat)
        for i, run in enumerate(runs):
            spline = curve.splines.new("POLY")
            spline.points.add(len(run) - 1)
            co = np.column_stack([run, np.zeros(len(run)), np.ones(len(run))]).astype(np.float32)
            spline.points.foreach_set("co", co.ravel())
            spline.material_index = run_mats[i] if run_mats else 0
        return self._link(bpy.data.objects.new(f"canvas {name}", curve), 0.0, 0.0, z)

    def composite_over(self, main: bpy.types.Scene) -> None:
        """Make ``main``'s compositor lay the canvas over its render."""
        if "compositing_node_group" in main.bl_rna.properties:  # Blender 5.0
            tree = bpy.data.node_groups.get(COMPOSITOR) or bpy.data.node_groups.new(COMPOSITOR, "CompositorNodeTree")
            tree.nodes.clear()
            if not tree.interface.items_tree:
                tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
            output = tree.nodes.new("NodeGroupOutput")
            main.compositing_node_group = tree
        else:
            main.use_nodes = True
            tree = main.node_tree
            tree.nodes.clear()
            output = tree.nodes.new("CompositorNodeComposite")
        below, above = tree.nodes.new("CompositorNodeRLayers"), tree.nodes.new("CompositorNodeRLayers")
        below.scene, above.scene = main, self.scene
        over = tree.nodes.new("CompositorNodeAlphaOver")
        images = [socket for socket in over.inputs if socket.type == "RGBA"]  # background, then foreground
        tree.links.new(below.outputs["Image"], images[0])
        tree.links.new(above.outputs["Image"], images[1])
        tree.links.new(over.outputs[0], output.inputs[0])
        main.render.use_compositing = True


def remove_objects(objects) -> None:
    """Remove ``objects`` with their data and actions where nothing else uses them (the canvas, the overlay)."""
    for ob in list(objects):
        blocks = [ob.data] if ob.data is not None else []
        actions = [owner.animation_data.action for owner in (ob, *blocks)
                   if owner.animation_data is not None and owner.animation_data.action is not None]
        bpy.data.objects.remove(ob)
        for block in blocks:
            if block.users == 0:
                getattr(bpy.data, next(pool for kind, pool in _POOLS if isinstance(block, kind))).remove(block)
        for action in actions:
            if action.users == 0:
                bpy.data.actions.remove(action)


def remove(name: str) -> None:
    """Remove the canvas scene ``name`` and everything in it."""
    scene = bpy.data.scenes.get(name)
    if scene is not None:
        remove_objects(scene.objects)
        bpy.data.scenes.remove(scene)
