#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "coverage.glsl"

layout(location = 0) in vec4 in_aa; // u, v0, v1
layout(location = 1) flat in vec2 in_shape; // half width, cap extent
layout(location = 2) flat in vec4 in_color;
layout(location = 3) flat in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = 4) flat in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec4 out_color;

void main()
{
	float w = in_shape.x, e = in_shape.y;
	float coverage = clamp(w + 0.5 - abs(in_aa.x), 0.0, 1.0) *
		clamp(e + 0.5 - in_aa.y, 0.0, 1.0) *
		clamp(e + 0.5 - in_aa.z, 0.0, 1.0);
#ifdef VR_RCLIPS
	coverage *= clip_coverage(gl_FragCoord.xy, in_clip, in_rclip[0],
		in_rclip[1], in_rclip[2], in_rclip[3], in_rclip[4], in_rclip[5]);
#else
	coverage *= clip_coverage(gl_FragCoord.xy, in_clip);
#endif
	out_color = in_color * coverage;
}
