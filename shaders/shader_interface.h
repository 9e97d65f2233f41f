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

#endif
