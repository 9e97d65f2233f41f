/*
 * The scene protocol's display-list decoder (see decoder.h): every record
 * is checked against its documented size, ranges, verbs, UTF-8 and
 * padding before anything is allocated for it; the first bad record fails
 * the whole stream.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/decoder.h"

/* Decoding state of one stream. */
struct decoder {
	const struct vt_dl_images *images;
	struct vt_dl_error *error;
	const uint8_t *data;
	size_t size;
	size_t at; // offset of the record being decoded
	size_t pos; // read position inside it
	uint16_t op;
	int depth;
	bool failed;
};

static void decode_fail(struct decoder *d, enum vt_dl_error_code code,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void decode_fail(struct decoder *d, enum vt_dl_error_code code,
		const char *fmt, ...) {
	if (d->failed) {
		return;
	}
	d->failed = true;
	char reason[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(reason, sizeof(reason), fmt, args);
	va_end(args);
	d->error->code = code;
	snprintf(d->error->message, sizeof(d->error->message),
			"record at byte %zu (op %u): %s", d->at, d->op, reason);
}

static void decode_no_memory(struct decoder *d) {
	d->failed = true;
	d->error->code = VT_DL_ERROR_NO_MEMORY;
	snprintf(d->error->message, sizeof(d->error->message), "out of memory");
}

static uint32_t rd_u32(struct decoder *d) {
	const uint8_t *p = d->data + d->pos;
	d->pos += 4;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			(uint32_t)p[3] << 24;
}

static uint8_t rd_u8(struct decoder *d) {
	return d->data[d->pos++];
}

/* A finite float within [min, max]; name is for the error message. */
static float rd_f32(struct decoder *d, const char *name, float min, float max) {
	uint32_t bits = rd_u32(d);
	float v;
	memcpy(&v, &bits, sizeof(v));
	if (!isfinite(v) || v < min || v > max) {
		decode_fail(d, VT_DL_ERROR_OUT_OF_RANGE, "%s = %g is not in [%g, %g]",
				name, (double)v, (double)min, (double)max);
		return 0.0f;
	}
	return v;
}

static float rd_coord(struct decoder *d, const char *name) {
	return rd_f32(d, name, -VT_DL_COORD_MAX, VT_DL_COORD_MAX);
}

static struct vr_color color_from_argb(uint32_t argb) {
	return (struct vr_color){
		.r = ((argb >> 16) & 0xff) / 255.0f,
		.g = ((argb >> 8) & 0xff) / 255.0f,
		.b = (argb & 0xff) / 255.0f,
		.a = (argb >> 24) / 255.0f,
	};
}

static void rd_rect(struct decoder *d, float *v) {
	v[0] = rd_coord(d, "x");
	v[1] = rd_coord(d, "y");
	v[2] = rd_coord(d, "width");
	v[3] = rd_coord(d, "height");
}

static void rd_radii(struct decoder *d, float *v) {
	static const char *const names[] = {
		"radius top-left",
		"radius top-right",
		"radius bottom-right",
		"radius bottom-left",
	};
	for (int i = 0; i < 4; i++) {
		v[i] = rd_f32(d, names[i], 0.0f, VT_DL_COORD_MAX);
	}
}

static void rd_paint(struct decoder *d, struct vr_paint *paint) {
	paint->color = color_from_argb(rd_u32(d));
	paint->stroke_width = rd_f32(d, "stroke_width", 0.0f, VT_DL_STROKE_MAX);
	uint8_t join = rd_u8(d), cap = rd_u8(d), rule = rd_u8(d), zero = rd_u8(d);
	paint->miter_limit = rd_f32(d, "miter_limit", 0.0f, VT_DL_MITER_MAX);
	const char *what = join > VR_JOIN_BEVEL ? "paint join" :
			cap > VR_CAP_SQUARE             ? "paint cap" :
			rule > VR_FILL_EVEN_ODD         ? "paint fill_rule" :
			zero != 0                       ? "paint padding" :
											  NULL;
	if (what != NULL) {
		uint8_t v = join > VR_JOIN_BEVEL ? join :
				cap > VR_CAP_SQUARE      ? cap :
				rule > VR_FILL_EVEN_ODD  ? rule :
										   zero;
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND, "%s = %u is not a known value",
				what, v);
		return;
	}
	paint->join = (enum vr_line_join)join;
	paint->cap = (enum vr_line_cap)cap;
	paint->fill_rule = (enum vr_fill_rule)rule;
}

static bool valid_utf8(const uint8_t *s, size_t len) {
	size_t i = 0;
	while (i < len) {
		uint8_t c = s[i];
		size_t n;
		uint32_t cp;
		if (c == 0) {
			return false;
		} else if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (i + n >= len) {
			return false;
		}
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80) {
				return false;
			}
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			return false;
		}
		i += n + 1;
	}
	return true;
}

static char *dup_bytes(const uint8_t *s, size_t len) {
	char *copy = malloc(len + 1);
	if (copy != NULL) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

static size_t pad4(size_t n) {
	return (n + 3) & ~(size_t)3;
}

static bool zero_bytes(const uint8_t *p, size_t len) {
	for (size_t i = 0; i < len; i++) {
		if (p[i] != 0) {
			return false;
		}
	}
	return true;
}

static void decode_path(struct decoder *d, struct vt_dl_cmd *cmd, size_t size) {
	rd_paint(d, &cmd->paint);
	uint32_t nverbs = rd_u32(d), npoints = rd_u32(d);
	if (nverbs < 1 || nverbs > VT_DL_PATH_ELEMS_MAX || npoints < 1 ||
			npoints > VT_DL_PATH_ELEMS_MAX) {
		bool verbs_bad = nverbs < 1 || nverbs > VT_DL_PATH_ELEMS_MAX;
		decode_fail(d, VT_DL_ERROR_OUT_OF_RANGE, "%s = %u is not in [1, %d]",
				verbs_bad ? "nverbs" : "npoints", verbs_bad ? nverbs : npoints,
				VT_DL_PATH_ELEMS_MAX);
		return;
	}
	size_t expected = 8 + 16 + 8 + pad4(nverbs) + 8 * (size_t)npoints;
	if (size != expected) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"size %zu, expected %zu for %u verbs and %u points", size,
				expected, nverbs, npoints);
		return;
	}
	const uint8_t *verbs = d->data + d->pos;
	if (!zero_bytes(verbs + nverbs, pad4(nverbs) - nverbs)) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"non-zero padding after the verbs");
		return;
	}
	static const uint32_t verb_points[] = { 1, 1, 2, 3, 0 };
	uint32_t total = 0;
	for (uint32_t i = 0; i < nverbs; i++) {
		if (verbs[i] > 4 || (i == 0 && verbs[i] != 0)) {
			decode_fail(d, VT_DL_ERROR_BAD_COMMAND, "verb %u is %u (%s)", i,
					verbs[i],
					i == 0 ? "the first must be 0, move_to" : "unknown");
			return;
		}
		total += verb_points[verbs[i]];
	}
	if (total != npoints) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"the verbs take %u points, npoints is %u", total, npoints);
		return;
	}
	d->pos += pad4(nverbs);
	cmd->path = vr_path_create();
	if (cmd->path == NULL) {
		decode_no_memory(d);
		return;
	}
	for (uint32_t i = 0; i < nverbs && !d->failed; i++) {
		float p[6];
		for (uint32_t k = 0; k < 2 * verb_points[verbs[i]]; k++) {
			p[k] = rd_coord(d, k % 2 == 0 ? "path x" : "path y");
		}
		switch (verbs[i]) {
		case 0: vr_path_move_to(cmd->path, p[0], p[1]); break;
		case 1: vr_path_line_to(cmd->path, p[0], p[1]); break;
		case 2: vr_path_quad_to(cmd->path, p[0], p[1], p[2], p[3]); break;
		case 3:
			vr_path_cubic_to(cmd->path, p[0], p[1], p[2], p[3], p[4], p[5]);
			break;
		case 4: vr_path_close(cmd->path); break;
		}
	}
}

static void decode_image(struct decoder *d, struct vt_dl_cmd *cmd) {
	uint32_t id = rd_u32(d);
	uint32_t width = 0, height = 0;
	void *image = d->images != NULL && d->images->lookup != NULL ?
			d->images->lookup(d->images->data, id, &width, &height) :
			NULL;
	if (image == NULL) {
		decode_fail(d, VT_DL_ERROR_BAD_IMAGE,
				"object %u is not a vitrail_scene_image_v1", id);
		return;
	}
	cmd->v[0] = rd_f32(d, "opacity", 0.0f, 1.0f);
	rd_rect(d, &cmd->v[1]);
	rd_rect(d, &cmd->v[5]);
	if (d->failed) {
		return;
	}
	float w = (float)width;
	float h = (float)height;
	const float *src = &cmd->v[1];
	bool whole = src[2] == 0.0f || src[3] == 0.0f;
	if (!whole &&
			(src[0] < 0.0f || src[1] < 0.0f || src[2] < 0.0f || src[3] < 0.0f ||
					src[0] + src[2] > w || src[1] + src[3] > h)) {
		decode_fail(d, VT_DL_ERROR_OUT_OF_RANGE,
				"src %g,%g %gx%g is not inside image %u (%gx%g)",
				(double)src[0], (double)src[1], (double)src[2], (double)src[3],
				id, (double)w, (double)h);
		return;
	}
	cmd->image = image;
}

static void decode_text(struct decoder *d, struct vt_dl_cmd *cmd, size_t size) {
	cmd->v[0] = rd_coord(d, "x");
	cmd->v[1] = rd_coord(d, "y");
	cmd->color = color_from_argb(rd_u32(d));
	cmd->v[2] = rd_f32(d, "font size", 0.0f, VT_DL_FONT_SIZE_MAX);
	uint32_t weight = rd_u32(d);
	uint32_t family_len = rd_u32(d), text_len = rd_u32(d);
	if (d->failed) {
		return;
	}
	enum vt_dl_error_code code = VT_DL_ERROR_OUT_OF_RANGE;
	if (cmd->v[2] <= 0.0f) {
		decode_fail(d, code, "font size = %g is not in (0, %g]",
				(double)cmd->v[2], (double)VT_DL_FONT_SIZE_MAX);
		return;
	}
	if (weight < 100 || weight > 900) {
		decode_fail(d, code, "weight = %u is not in [100, 900]", weight);
		return;
	}
	if (family_len < 1 || family_len > VT_DL_FAMILY_MAX) {
		decode_fail(d, code, "family_length = %u is not in [1, %d]", family_len,
				VT_DL_FAMILY_MAX);
		return;
	}
	if (text_len > VT_DL_TEXT_MAX) {
		decode_fail(d, code, "text_length = %u is not in [0, %d]", text_len,
				VT_DL_TEXT_MAX);
		return;
	}
	size_t expected = pad4(36 + (size_t)family_len + text_len);
	if (size != expected) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"size %zu, expected %zu for family_length %u, text_length %u",
				size, expected, family_len, text_len);
		return;
	}
	const uint8_t *family = d->data + d->pos;
	const uint8_t *text = family + family_len;
	if (!valid_utf8(family, family_len) || !valid_utf8(text, text_len)) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"the font family or the text is not UTF-8 without NUL");
		return;
	}
	if (!zero_bytes(text + text_len, expected - 36 - family_len - text_len)) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"non-zero padding after the text");
		return;
	}
	cmd->weight = (int)weight;
	cmd->family = dup_bytes(family, family_len);
	cmd->text = dup_bytes(text, text_len);
	if (cmd->family == NULL || cmd->text == NULL) {
		decode_no_memory(d);
	}
}

/* Expected size of the fixed-size ops; 0 for the variable ones. */
static size_t op_size(uint16_t op) {
	switch (op) {
	case VT_DL_RECT: return 40;
	case VT_DL_RRECT: return 56;
	case VT_DL_ELLIPSE: return 40;
	case VT_DL_LINE: return 40;
	case VT_DL_IMAGE: return 48;
	case VT_DL_SAVE: return 8;
	case VT_DL_RESTORE: return 8;
	case VT_DL_TRANSLATE: return 16;
	case VT_DL_SCALE: return 16;
	case VT_DL_ROTATE: return 12;
	case VT_DL_CLIP_RECT: return 24;
	case VT_DL_CLIP_RRECT: return 40;
	case VT_DL_SHADOW: return 48;
	default: return 0;
	}
}

/* Decode one record at d->at into cmd; false (error posted) on failure. */
static bool decode_record(struct decoder *d, struct vt_dl_cmd *cmd,
		size_t *record_size) {
	d->op = 0;
	if (d->size - d->at < 8) {
		decode_fail(d, VT_DL_ERROR_TRUNCATED,
				"%zu bytes left, less than a record header", d->size - d->at);
		return false;
	}
	d->pos = d->at;
	uint32_t head = rd_u32(d);
	uint16_t op = (uint16_t)(head & 0xffff), flags = (uint16_t)(head >> 16);
	uint32_t size = rd_u32(d);
	d->op = op;
	if (size > d->size - d->at) {
		decode_fail(d, VT_DL_ERROR_TRUNCATED,
				"the record is %u bytes but the stream has %zu left", size,
				d->size - d->at);
		return false;
	}
	if (size < 8 || size % 4 != 0 || flags != 0) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
				"size %u (must be a multiple of 4, at least 8), flags %u "
				"(must be 0)",
				size, flags);
		return false;
	}
	size_t fixed = op_size(op);
	if (op < VT_DL_RECT || op > VT_DL_SHADOW) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND, "unknown op");
		return false;
	}
	size_t min = op == VT_DL_PATH ? 32 : op == VT_DL_TEXT ? 36 : fixed;
	if ((fixed != 0 && size != fixed) || size < min) {
		decode_fail(d, VT_DL_ERROR_BAD_COMMAND, "size %u, expected %zu", size,
				fixed != 0 ? fixed : min);
		return false;
	}
	*cmd = (struct vt_dl_cmd){ .op = (enum vt_dl_op)op };
	switch (op) {
	case VT_DL_RECT:
	case VT_DL_ELLIPSE:
		rd_rect(d, cmd->v);
		rd_paint(d, &cmd->paint);
		break;
	case VT_DL_RRECT:
		rd_rect(d, cmd->v);
		rd_radii(d, &cmd->v[4]);
		rd_paint(d, &cmd->paint);
		break;
	case VT_DL_LINE:
		cmd->v[0] = rd_coord(d, "x0");
		cmd->v[1] = rd_coord(d, "y0");
		cmd->v[2] = rd_coord(d, "x1");
		cmd->v[3] = rd_coord(d, "y1");
		rd_paint(d, &cmd->paint);
		if (!d->failed && cmd->paint.stroke_width <= 0.0f) {
			decode_fail(d, VT_DL_ERROR_OUT_OF_RANGE,
					"a line needs stroke_width > 0");
		}
		break;
	case VT_DL_PATH: decode_path(d, cmd, size); break;
	case VT_DL_IMAGE: decode_image(d, cmd); break;
	case VT_DL_TEXT: decode_text(d, cmd, size); break;
	case VT_DL_SAVE:
		if (d->depth >= VT_DL_SAVE_DEPTH_MAX) {
			decode_fail(d, VT_DL_ERROR_BAD_COMMAND, "saves nest deeper than %d",
					VT_DL_SAVE_DEPTH_MAX);
		}
		d->depth++;
		break;
	case VT_DL_RESTORE:
		if (d->depth == 0) {
			decode_fail(d, VT_DL_ERROR_BAD_COMMAND,
					"restore without a matching save");
		}
		d->depth--;
		break;
	case VT_DL_TRANSLATE:
		cmd->v[0] = rd_coord(d, "x");
		cmd->v[1] = rd_coord(d, "y");
		break;
	case VT_DL_SCALE:
		cmd->v[0] = rd_coord(d, "sx");
		cmd->v[1] = rd_coord(d, "sy");
		break;
	case VT_DL_ROTATE: cmd->v[0] = rd_coord(d, "radians"); break;
	case VT_DL_CLIP_RECT: rd_rect(d, cmd->v); break;
	case VT_DL_CLIP_RRECT:
		rd_rect(d, cmd->v);
		rd_radii(d, &cmd->v[4]);
		break;
	case VT_DL_SHADOW:
		rd_rect(d, cmd->v);
		rd_radii(d, &cmd->v[4]);
		cmd->v[8] = rd_f32(d, "blur", 0.0f, VT_DL_BLUR_MAX);
		cmd->color = color_from_argb(rd_u32(d));
		break;
	}
	if (d->failed) {
		vt_dl_cmd_finish(cmd);
		return false;
	}
	*record_size = size;
	return true;
}

void vt_dl_cmd_finish(struct vt_dl_cmd *cmd) {
	vr_path_destroy(cmd->path);
	free(cmd->family);
	free(cmd->text);
	cmd->path = NULL;
	cmd->family = cmd->text = NULL;
}

bool vt_dl_decode(const uint8_t *data, size_t size, int *depth,
		const struct vt_dl_images *images, struct vt_dl_cmd **cmds_out,
		size_t *ncmds_out, struct vt_dl_error *error) {
	struct decoder d = {
		.images = images,
		.error = error,
		.data = data,
		.size = size,
		.depth = *depth,
	};
	struct vt_dl_cmd *cmds = NULL;
	size_t ncmds = 0, cap = 0;
	while (d.at < size) {
		if (ncmds == cap) {
			cap = cap ? cap * 2 : 16;
			struct vt_dl_cmd *bigger = realloc(cmds, cap * sizeof(*bigger));
			if (bigger == NULL) {
				decode_no_memory(&d);
				goto error;
			}
			cmds = bigger;
		}
		size_t record_size;
		if (!decode_record(&d, &cmds[ncmds], &record_size)) {
			goto error;
		}
		ncmds++;
		d.at += record_size;
	}
	*cmds_out = cmds;
	*ncmds_out = ncmds;
	*depth = d.depth;
	return true;

error:
	for (size_t i = 0; i < ncmds; i++) {
		vt_dl_cmd_finish(&cmds[i]);
	}
	free(cmds);
	return false;
}
