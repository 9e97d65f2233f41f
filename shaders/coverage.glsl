// Coverage functions of the engine's fragment shaders. Their C twins are
// in renderer/engine_common.c (the reference renderer evaluates those):
// change both together.

float sdf_rrect(vec2 p, vec2 h, vec4 radii)
{
	float r = p.x > 0.0 ? (p.y > 0.0 ? radii.z : radii.y) :
		(p.y > 0.0 ? radii.w : radii.x);
	vec2 q = abs(p) - h + r;
	return min(max(q.x, q.y), 0.0) + length(max(q, vec2(0.0))) - r;
}

float sdf_ellipse(vec2 p, vec2 h)
{
	if (h.x == h.y) {
		return length(p) - h.x;
	}
	vec2 q = p / h;
	float f = dot(q, q) - 1.0;
	vec2 g = 2.0 * p / (h * h);
	float gl = length(g);
	return gl > 0.0 ? f / gl : -min(h.x, h.y);
}

// The clip box (pixel centres inside it) times the rounded clip's
// anti-aliased coverage.
float clip_coverage(vec2 frag, vec4 box, vec4 rrect, vec4 radii)
{
	if (frag.x < box.x || frag.y < box.y || frag.x >= box.z ||
			frag.y >= box.w) {
		return 0.0;
	}
	vec2 c = (rrect.xy + rrect.zw) * 0.5;
	vec2 h = (rrect.zw - rrect.xy) * 0.5;
	return clamp(0.5 - sdf_rrect(frag - c, h, radii), 0.0, 1.0);
}
