#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "coverage.glsl"

layout(location = 0) in vec2 in_local;
layout(location = 1) flat in vec2 in_half;
layout(location = 2) flat in vec4 in_params; // ellipse, stroke, px/unit
layout(location = 3) flat in vec4 in_radii;
layout(location = 4) flat in vec4 in_color;
layout(location = 5) flat in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = 6) flat in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec4 out_color;

void main()
{
	float d = in_params.x > 0.5 ? sdf_ellipse(in_local, in_half) :
		sdf_rrect(in_local, in_half, in_radii);
	if (in_params.y > 0.0) {
		d = abs(d) - in_params.y * 0.5;
	}
	float coverage = clamp(0.5 - d * in_params.z, 0.0, 1.0);
#ifdef VR_RCLIPS
	coverage *= clip_coverage(gl_FragCoord.xy, in_clip, in_rclip[0],
		in_rclip[1], in_rclip[2], in_rclip[3], in_rclip[4], in_rclip[5]);
#else
	coverage *= clip_coverage(gl_FragCoord.xy, in_clip);
#endif
	out_color = in_color * coverage;
}
