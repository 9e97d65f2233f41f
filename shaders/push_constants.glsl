// The push constant block every pipeline shares (shader_interface.h).
layout(push_constant) uniform PushConstants {
	layout(offset = VR_PC_POS_X_OFFSET) vec4 pos_x;
	layout(offset = VR_PC_POS_Y_OFFSET) vec4 pos_y;
	layout(offset = VR_PC_UV_X_OFFSET) vec4 uv_x;
	layout(offset = VR_PC_UV_Y_OFFSET) vec4 uv_y;
	layout(offset = VR_PC_COLOR_OFFSET) vec4 color;
} pc;

vec4 to_ndc(vec2 pos)
{
	vec3 p = vec3(pos, 1.0);
	return vec4(dot(pc.pos_x.xyz, p), dot(pc.pos_y.xyz, p), 0.0, 1.0);
}
