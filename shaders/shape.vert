#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"

layout(location = VR_SHAPE_LOC_POS) in vec2 in_pos;
layout(location = VR_SHAPE_LOC_LOCAL) in vec2 in_local;
layout(location = VR_SHAPE_LOC_HALF) in vec2 in_half;
layout(location = VR_SHAPE_LOC_PARAMS) in vec4 in_params;
layout(location = VR_SHAPE_LOC_RADII) in vec4 in_radii;
layout(location = VR_SHAPE_LOC_COLOR) in vec4 in_color;
layout(location = VR_SHAPE_LOC_CLIP + 0) in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = VR_SHAPE_LOC_CLIP + 1) in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec2 out_local;
layout(location = 1) flat out vec2 out_half;
layout(location = 2) flat out vec4 out_params;
layout(location = 3) flat out vec4 out_radii;
layout(location = 4) flat out vec4 out_color;
layout(location = 5) flat out vec4 out_clip;
#ifdef VR_RCLIPS
layout(location = 6) flat out vec4 out_rclip[3 * VR_CLIP_RCLIPS];
#endif

void main()
{
	gl_Position = to_ndc(in_pos);
	out_local = in_local;
	out_half = in_half;
	out_params = in_params;
	out_radii = in_radii;
	out_color = in_color;
	out_clip = in_clip;
#ifdef VR_RCLIPS
	out_rclip = in_rclip;
#endif
}
