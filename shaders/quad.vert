#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"

layout(push_constant) uniform PushConstants {
	layout(offset = VR_PC_POS_X_OFFSET) vec4 pos_x;
	layout(offset = VR_PC_POS_Y_OFFSET) vec4 pos_y;
	layout(offset = VR_PC_UV_X_OFFSET) vec4 uv_x;
	layout(offset = VR_PC_UV_Y_OFFSET) vec4 uv_y;
	layout(offset = VR_PC_COLOR_OFFSET) vec4 color;
} pc;

layout(location = 0) out vec2 out_uv;

void main()
{
	vec3 q = vec3(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1),
		1.0);
	gl_Position = vec4(dot(pc.pos_x.xyz, q), dot(pc.pos_y.xyz, q), 0.0, 1.0);
	out_uv = vec2(dot(pc.uv_x.xyz, q), dot(pc.uv_y.xyz, q));
}
