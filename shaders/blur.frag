#version 450
#extension GL_GOOGLE_include_directive : require
#include "shader_interface.h"
#include "push_constants.glsl"

layout(set = VR_TEXTURE_SET, binding = VR_TEXTURE_BINDING)
	uniform sampler2D tex;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

// One separable Gaussian pass over exact texels (outside: transparent).
// Weights exp(-i^2 / (2 sigma^2)) normalised over the taps, as
// vr_shadow_kernel() computes them for the reference.
void main()
{
	ivec2 dir = ivec2(pc.uv_x.xy);
	float sigma = pc.uv_x.z;
	int radius = int(pc.uv_x.w);
	ivec2 size = textureSize(tex, 0);
	ivec2 p = ivec2(gl_FragCoord.xy);
	float norm = 0.0;
	float sum = 0.0;
	for (int i = -radius; i <= radius; i++) {
		float w = exp(-float(i * i) / (2.0 * sigma * sigma));
		norm += w;
		ivec2 q = p + dir * i;
		if (q.x >= 0 && q.y >= 0 && q.x < size.x && q.y < size.y) {
			sum += w * texelFetch(tex, q, 0).a;
		}
	}
	out_color = vec4(sum / norm);
}
