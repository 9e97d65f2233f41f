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

#ifdef VR_RCLIPS
// One rounded clip (renderer/render_private.h, struct vr_rclip): rx, ry
// map target pixels to coordinates centred on the rounded rectangle
// (rows a, c, tx and b, d, ty) with its half size in w; the distance is
// scaled to pixels along its gradient n by 1 / |A^T n|. rx.w < 0: unused.
float rclip_coverage(vec2 frag, vec4 rx, vec4 ry, vec4 radii)
{
	if (rx.w < 0.0) {
		return 1.0;
	}
	vec2 p = vec2(rx.x * frag.x + rx.y * frag.y + rx.z,
		ry.x * frag.x + ry.y * frag.y + ry.z);
	float r = p.x > 0.0 ? (p.y > 0.0 ? radii.z : radii.y) :
		(p.y > 0.0 ? radii.w : radii.x);
	vec2 q = abs(p) - vec2(rx.w, ry.w) + r;
	vec2 m = max(q, vec2(0.0));
	float len = length(m);
	float d = min(max(q.x, q.y), 0.0) + len - r;
	vec2 s = vec2(p.x > 0.0 ? 1.0 : -1.0, p.y > 0.0 ? 1.0 : -1.0);
	vec2 n = vec2(0.0, s.y);
	if (len > 0.0) {
		n = s * m / len;
	} else if (q.x > q.y) {
		n = vec2(s.x, 0.0);
	}
	vec2 g = vec2(rx.x * n.x + ry.x * n.y, rx.y * n.x + ry.y * n.y);
	return clamp(0.5 - d / length(g), 0.0, 1.0);
}

// The clip box (pixel centres inside it) times the rounded clips'
// anti-aliased coverage (VR_RCLIP_MAX of them: three vec4 each).
float clip_coverage(vec2 frag, vec4 box, vec4 r0x, vec4 r0y, vec4 r0r,
	vec4 r1x, vec4 r1y, vec4 r1r)
{
	if (frag.x < box.x || frag.y < box.y || frag.x >= box.z ||
			frag.y >= box.w) {
		return 0.0;
	}
	return rclip_coverage(frag, r0x, r0y, r0r) *
		rclip_coverage(frag, r1x, r1y, r1r);
}
#else
// The variants without rounded clips (shader_interface.h): the clip box
// only; 1.0 where the other one multiplies by its unused slots' 1.0, so
// both draw the same pixels.
float clip_coverage(vec2 frag, vec4 box)
{
	if (frag.x < box.x || frag.y < box.y || frag.x >= box.z ||
			frag.y >= box.w) {
		return 0.0;
	}
	return 1.0;
}
#endif
