#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"

layout(location = VR_BLIT_LOC_POS) in vec2 in_pos;
layout(location = VR_BLIT_LOC_UV) in vec2 in_uv;

layout(location = 0) out vec2 out_uv;

void main()
{
	gl_Position = to_ndc(in_pos);
	out_uv = in_uv;
}
