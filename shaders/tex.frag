#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "coverage.glsl"

layout(set = VR_TEXTURE_SET, binding = VR_TEXTURE_BINDING)
	uniform sampler2D tex;

layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in vec4 in_color;
layout(location = 2) flat in vec4 in_clip;
#ifdef VR_RCLIPS
layout(location = 3) flat in vec4 in_rclip[3 * VR_CLIP_RCLIPS];
#endif

layout(location = 0) out vec4 out_color;

void main()
{
#ifdef VR_RCLIPS
	float coverage = clip_coverage(gl_FragCoord.xy, in_clip, in_rclip[0],
		in_rclip[1], in_rclip[2], in_rclip[3], in_rclip[4], in_rclip[5]);
#else
	float coverage = clip_coverage(gl_FragCoord.xy, in_clip);
#endif
	out_color = texture(tex, in_uv) * in_color * coverage;
}
