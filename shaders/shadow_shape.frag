#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"
#include "coverage.glsl"

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

// The shadow's shape as coverage in every channel (scratch pixels).
void main()
{
	float d = sdf_rrect(gl_FragCoord.xy - pc.uv_x.xy, pc.uv_x.zw, pc.uv_y);
	out_color = vec4(clamp(0.5 - d, 0.0, 1.0));
}
