"""An H.264 MP4 from rendered PNG frames, by Blender's own ffmpeg: a temporary scene whose sequencer plays the
frames, rendered as a movie (no 3D render: encoding only).

Frames are rendered one at a time (so the interface stays responsive between them and Esc stops between
them, ``render.render_steps``) and encoded at the end; the PNGs are lossless and shown untouched (Standard
view transform, sRGB strips), so the movie has the pixels of the frames.
"""

from __future__ import annotations

from pathlib import Path

import bpy

from ..solver.errors import InputError


def _image_format(scene: bpy.types.Scene, movie: bool) -> None:
    """PNG images or an H.264 MP4 (Blender 5.0 chooses images or video by ``media_type`` first)."""
    settings = scene.render.image_settings
    if "media_type" in settings.bl_rna.properties:
        settings.media_type = "VIDEO" if movie else "IMAGE"
    settings.file_format = "FFMPEG" if movie else "PNG"
    if movie:
        ffmpeg = scene.render.ffmpeg
        ffmpeg.format, ffmpeg.codec = "MPEG4", "H264"
        ffmpeg.constant_rate_factor, ffmpeg.ffmpeg_preset = "MEDIUM", "GOOD"
        ffmpeg.audio_codec = "NONE"
    else:
        settings.color_mode, settings.color_depth = "RGB", "8"


def png_frames(scene: bpy.types.Scene) -> None:
    """Render ``scene`` to 8-bit RGB PNGs."""
    _image_format(scene, movie=False)


def encode_movie(scene: bpy.types.Scene, frames: list[Path], path: Path) -> None:
    """Write the PNG ``frames`` (in order) as an H.264 MP4 at ``path``, at ``scene``'s size and frame rate."""
    movie = bpy.data.scenes.new(f"{scene.name} movie")
    try:
        render = movie.render
        render.resolution_x, render.resolution_y = scene.render.resolution_x, scene.render.resolution_y
        render.resolution_percentage = scene.render.resolution_percentage
        render.fps, render.fps_base = scene.render.fps, scene.render.fps_base
        render.use_sequencer, render.use_compositing = True, False
        movie.view_settings.view_transform, movie.view_settings.look = "Standard", "None"
        movie.view_settings.exposure, movie.view_settings.gamma = 0.0, 1.0
        movie.frame_start, movie.frame_end = 1, len(frames)
        editor = movie.sequence_editor_create()
        strips = editor.strips if hasattr(editor, "strips") else editor.sequences  # 4.4+ / older
        strip = strips.new_image("frames", str(frames[0]), channel=1, frame_start=1)
        for frame in frames[1:]:
            strip.elements.append(frame.name)
        strip.colorspace_settings.name = "sRGB"
        _image_format(movie, movie=True)
        render.filepath = str(path)
        if bpy.ops.render.render(animation=True, scene=movie.name) != {"FINISHED"} or not path.is_file():
            raise InputError(f"Blender could not encode {path.name}", "see Blender's messages above")
    finally:
        bpy.data.scenes.remove(movie)
