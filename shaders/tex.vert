#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"

layout(location = VR_TEX_LOC_POS) in vec2 in_pos;
layout(location = VR_TEX_LOC_UV) in vec2 in_uv;
layout(location = VR_TEX_LOC_COLOR) in vec4 in_color;
layout(location = VR_TEX_LOC_CLIP + 0) in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = VR_TEX_LOC_CLIP + 1) in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out vec4 out_color;
layout(location = 2) flat out vec4 out_clip;
#ifdef VR_RCLIPS
layout(location = 3) flat out vec4 out_rclip[3 * VR_CLIP_RCLIPS];
#endif

void main()
{
	gl_Position = to_ndc(in_pos);
	out_uv = in_uv;
	out_color = in_color;
	out_clip = in_clip;
#ifdef VR_RCLIPS
	out_rclip = in_rclip;
#endif
}
