#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"

layout(location = VR_TRI_LOC_POS) in vec2 in_pos;
layout(location = VR_TRI_LOC_AA) in vec4 in_aa;
layout(location = VR_TRI_LOC_SHAPE) in vec2 in_shape;
layout(location = VR_TRI_LOC_COLOR) in vec4 in_color;
layout(location = VR_TRI_LOC_CLIP + 0) in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = VR_TRI_LOC_CLIP + 1) in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec4 out_aa;
layout(location = 1) flat out vec2 out_shape;
layout(location = 2) flat out vec4 out_color;
layout(location = 3) flat out vec4 out_clip;
#ifdef VR_RCLIPS
layout(location = 4) flat out vec4 out_rclip[3 * VR_CLIP_RCLIPS];
#endif

void main()
{
	gl_Position = to_ndc(in_pos);
	out_aa = in_aa;
	out_shape = in_shape;
	out_color = in_color;
	out_clip = in_clip;
#ifdef VR_RCLIPS
	out_rclip = in_rclip;
#endif
}
