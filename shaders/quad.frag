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

layout(set = VR_TEXTURE_SET, binding = VR_TEXTURE_BINDING)
	uniform sampler2D tex;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

void main()
{
	out_color = texture(tex, in_uv) * pc.color;
}
