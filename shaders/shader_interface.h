/*
 * The interface between the renderer's C code and its shaders, included by
 * both (GLSL through GL_GOOGLE_include_directive). Only #defines here.
 */
#ifndef VITRAIL_SHADERS_SHADER_INTERFACE_H
#define VITRAIL_SHADERS_SHADER_INTERFACE_H

/* Push constants (one range, vertex and fragment stages). Each field is a
 * vec4; the quad is the unit square (u, v), drawn as a 4-vertex strip.
 *   pos_x, pos_y: rows (a, c, t, 0) of the affine map (u, v) -> NDC
 *   uv_x, uv_y:   rows of the affine map (u, v) -> normalised texcoords
 *   color:        premultiplied colour the texel is multiplied by */
#define VR_PC_POS_X_OFFSET 0
#define VR_PC_POS_Y_OFFSET 16
#define VR_PC_UV_X_OFFSET 32
#define VR_PC_UV_Y_OFFSET 48
#define VR_PC_COLOR_OFFSET 64
#define VR_PC_SIZE 80

/* The texture: one combined image sampler (solid colours sample a 1x1
 * white texture). */
#define VR_TEXTURE_SET 0
#define VR_TEXTURE_BINDING 0

#define VR_QUAD_VERTEX_COUNT 4

/*
 * The engine's vertex pipelines (renderer/engine_*.c): vertices come from
 * the frame's vertex memory as the structs of renderer/engine_private.h,
 * all floats, one location per field; pos_x, pos_y hold the rows of the
 * map from target (or scratch) pixels to NDC: (2/w, 0, -1), (0, 2/h, -1).
 * Every vertex ends with its clip: a box (x0, y0, x1, y1, target pixels)
 * and VR_CLIP_RCLIPS rounded clips of three vec4 each (struct vr_rclip:
 * the rows of the map from target pixels to the clip's centred
 * coordinates with its half size, and its radii tl, tr, br, bl; unused:
 * half width < 0), evaluated per pixel by coverage.glsl: VR_CLIP_LOCS
 * locations from the kind's VR_*_LOC_CLIP. Each of shape, tri and tex is
 * compiled twice: with VR_RCLIPS defined (the *_rclip_*_spv arrays) and
 * without, when the vertices stop before the rounded clips (the box's
 * one location) and coverage.glsl evaluates the box only; most
 * primitives have no rounded clip and need not carry or read them.
 */
#define VR_CLIP_RCLIPS 2
#define VR_CLIP_LOCS (1 + 3 * VR_CLIP_RCLIPS)
/* struct vr_shape_vertex: shape.vert, shape.frag */
#define VR_SHAPE_LOC_POS 0
#define VR_SHAPE_LOC_LOCAL 1
#define VR_SHAPE_LOC_HALF 2
#define VR_SHAPE_LOC_PARAMS 3
#define VR_SHAPE_LOC_RADII 4
#define VR_SHAPE_LOC_COLOR 5
#define VR_SHAPE_LOC_CLIP 6 /* 6: box, 7-12: rounded clips */
/* struct vr_tri_vertex: tri.vert, tri.frag */
#define VR_TRI_LOC_POS 0
#define VR_TRI_LOC_AA 1
#define VR_TRI_LOC_SHAPE 2
#define VR_TRI_LOC_COLOR 3
#define VR_TRI_LOC_CLIP 4
/* struct vr_tex_vertex: tex.vert, tex.frag (glyphs, shadows) */
#define VR_TEX_LOC_POS 0
#define VR_TEX_LOC_UV 1
#define VR_TEX_LOC_COLOR 2
#define VR_TEX_LOC_CLIP 3
/* struct vr_blit_vertex: blit.vert with shadow_shape.frag or blur.frag
 * (offscreen passes into scratch images) */
#define VR_BLIT_LOC_POS 0
#define VR_BLIT_LOC_UV 1

/* shadow_shape.frag: uv_x = centre x, y and half size x, y of the rounded
 * rectangle, uv_y = its radii (tl, tr, br, bl), scratch pixels. */
/* blur.frag: uv_x = (direction x, y; sigma; taps each side). */
#define VR_BLUR_MAX_RADIUS 64

#endif
