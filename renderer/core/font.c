/*
 * Fonts: fontconfig chooses the file for a family and weight, HarfBuzz
 * shapes text when it is recorded (the display list keeps glyph ids and
 * positions), FreeType rasterises glyphs when tasks are executed.
 *
 * The faces are process-wide, like the fonts of the system: a display
 * list is recorded before any renderer exists and may be drawn by
 * several. A face reads its file once; its bytes are immutable and shared
 * by HarfBuzz and by FACE_SLOTS FreeType faces of their own (slots), each
 * used by one thread at a time, so that several workers rasterise glyphs
 * of one font at once. A thread keeps to a slot of its own (slot_hint)
 * and takes another free one when its own is busy; a slot's FT_Face is
 * opened when it is first needed.
 *
 * FreeType's rules (since 2.5.6): an FT_Library may be shared by threads
 * as long as FT_New_Face and FT_Done_Face are serialised (library_lock
 * here), and an FT_Face is used by one thread at a time (its slot's lock).
 *
 * Lock order: faces_lock, then a slot's lock, then library_lock (never two
 * slots' locks at once).
 *   faces_lock    the list of faces, fontconfig
 *   slot->lock    the slot's FT_Face (sizes, rasterisation)
 *   library_lock  ft_library: FT_Init_FreeType, FT_New_Memory_Face,
 *                 FT_Done_Face, FT_Done_FreeType
 */
#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <harfbuzz/hb.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine_private.h"

/* FreeType faces per font: the most threads rasterising one font at once
 * without waiting for each other. */
#define FACE_SLOTS 8

struct face_slot {
	pthread_mutex_t lock;
	FT_Face ft_face; /* protected by lock; NULL until first used */
	FT_F26Dot6 char_size; /* set on ft_face; protected by lock */
};

struct vr_font_face {
	struct vr_list link; /* faces */
	char *family; /* as asked for */
	int weight;
	char *path; /* what fontconfig chose */
	int index;
	/* the file's bytes: immutable, read by every slot's FT_Face and by
	 * HarfBuzz */
	FT_Byte *data;
	FT_Long size;
	struct face_slot slots[FACE_SLOTS];
	hb_font_t *hb_font; /* immutable: shaping only reads it */
	float units_per_em;
	float bbox[4]; /* x0, y0, x1, y1 in em, y up: every glyph's ink */
};

static pthread_mutex_t faces_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vr_list faces = { &faces, &faces }; /* vr_font_face::link */
static bool fc_initialized; /* protected by faces_lock */
static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;
static FT_Library ft_library; /* protected by library_lock */

/* The slot a thread tries first: threads take turns (atomic), so up to
 * FACE_SLOTS threads each have one of their own. -1: not chosen yet. */
static atomic_uint next_slot_hint;
static _Thread_local int slot_hint = -1;

/* Open a slot's FT_Face on the face's bytes; false when FreeType fails. */
static bool slot_open(struct vr_font_face *face, struct face_slot *slot) {
	pthread_mutex_lock(&library_lock);
	bool ok = ft_library != NULL || FT_Init_FreeType(&ft_library) == 0;
	if (!ok) {
		vr_log(VR_LOG_ERROR, "freetype: cannot initialise");
		ft_library = NULL;
	} else if (FT_New_Memory_Face(ft_library, face->data, face->size,
					   face->index, &slot->ft_face) != 0) {
		vr_log(VR_LOG_ERROR, "freetype: cannot open %s", face->path);
		slot->ft_face = NULL;
		ok = false;
	}
	pthread_mutex_unlock(&library_lock);
	slot->char_size = 0;
	return ok;
}

static void face_free(struct vr_font_face *face) {
	if (face->hb_font != NULL) {
		hb_font_destroy(face->hb_font);
	}
	pthread_mutex_lock(&library_lock);
	for (int i = 0; i < FACE_SLOTS; i++) {
		if (face->slots[i].ft_face != NULL) {
			FT_Done_Face(face->slots[i].ft_face);
		}
		pthread_mutex_destroy(&face->slots[i].lock);
	}
	pthread_mutex_unlock(&library_lock);
	free(face->data);
	free(face->family);
	free(face->path);
	free(face);
}

/* Release everything at exit, so leak checkers see a clean process. */
__attribute__((destructor)) static void fonts_finish(void) {
	pthread_mutex_lock(&faces_lock);
	vr_list_for_each_safe(face, &faces, struct vr_font_face, link) {
		vr_list_remove(&face->link);
		face_free(face);
	}
	pthread_mutex_lock(&library_lock);
	if (ft_library != NULL) {
		FT_Done_FreeType(ft_library);
		ft_library = NULL;
	}
	pthread_mutex_unlock(&library_lock);
	if (fc_initialized) {
		FcFini();
		fc_initialized = false;
	}
	pthread_mutex_unlock(&faces_lock);
}

/* The file fontconfig picks; false when none. faces_lock held. */
static bool match_font(const char *family, int weight, char **path,
		int *index) {
	if (!fc_initialized && !FcInit()) {
		vr_log(VR_LOG_ERROR, "fontconfig: cannot initialise");
		return false;
	}
	fc_initialized = true;
	FcPattern *pattern = FcPatternCreate();
	if (pattern == NULL) {
		return false;
	}
	FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *)family);
	FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(weight));
	FcConfigSubstitute(NULL, pattern, FcMatchPattern);
	FcDefaultSubstitute(pattern);
	FcResult result;
	FcPattern *match = FcFontMatch(NULL, pattern, &result);
	FcPatternDestroy(pattern);
	if (match == NULL) {
		vr_log(VR_LOG_ERROR, "fontconfig: no font for '%s'", family);
		return false;
	}
	FcChar8 *file = NULL;
	bool ok = FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch;
	if (ok) {
		*path = strdup((const char *)file);
		ok = *path != NULL;
		if (FcPatternGetInteger(match, FC_INDEX, 0, index) != FcResultMatch) {
			*index = 0;
		}
	}
	FcPatternDestroy(match);
	return ok;
}

/* The bytes of a file; false when it cannot be read. */
static bool read_file(const char *path, FT_Byte **data, FT_Long *size) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return false;
	}
	long n = -1;
	if (fseek(f, 0, SEEK_END) == 0) {
		n = ftell(f);
	}
	*data = n > 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n) : NULL;
	bool ok = *data != NULL && fread(*data, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	if (!ok) {
		free(*data);
		*data = NULL;
		return false;
	}
	*size = n;
	return true;
}

/* Open the face; faces_lock held. */
static struct vr_font_face *face_open(const char *family, int weight) {
	struct vr_font_face *face = calloc(1, sizeof(*face));
	if (face == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	for (int i = 0; i < FACE_SLOTS; i++) {
		pthread_mutex_init(&face->slots[i].lock, NULL);
	}
	face->family = strdup(family);
	face->weight = weight;
	if (face->family == NULL ||
			!match_font(family, weight, &face->path, &face->index)) {
		goto error;
	}
	if (!read_file(face->path, &face->data, &face->size)) {
		vr_log(VR_LOG_ERROR, "cannot read %s", face->path);
		goto error;
	}
	/* the first slot's face now, for the metrics (nobody else sees the
	 * face yet) */
	if (!slot_open(face, &face->slots[0])) {
		goto error;
	}
	FT_Face ft = face->slots[0].ft_face;
	face->units_per_em =
			ft->units_per_EM > 0 ? (float)ft->units_per_EM : 2048.0f;
	face->bbox[0] = (float)ft->bbox.xMin / face->units_per_em;
	face->bbox[1] = (float)ft->bbox.yMin / face->units_per_em;
	face->bbox[2] = (float)ft->bbox.xMax / face->units_per_em;
	face->bbox[3] = (float)ft->bbox.yMax / face->units_per_em;

	hb_blob_t *blob = hb_blob_create((const char *)face->data,
			(unsigned)face->size, HB_MEMORY_MODE_READONLY, NULL, NULL);
	hb_face_t *hb_face = hb_face_create(blob, (unsigned)face->index);
	hb_blob_destroy(blob);
	face->hb_font = hb_font_create(hb_face);
	hb_face_destroy(hb_face);
	if (hb_font_get_face(face->hb_font) == hb_face_get_empty()) {
		vr_log(VR_LOG_ERROR, "harfbuzz: cannot open %s", face->path);
		goto error;
	}
	/* positions in font units */
	int upem = (int)face->units_per_em;
	hb_font_set_scale(face->hb_font, upem, upem);
	hb_font_make_immutable(face->hb_font);
	return face;

error:
	face_free(face);
	return NULL;
}

struct vr_font_face *vr_font_face_get(const char *family, int weight) {
	if (family == NULL) {
		family = "sans-serif";
	}
	if (weight <= 0) {
		weight = 400;
	}
	pthread_mutex_lock(&faces_lock);
	struct vr_font_face *found = NULL;
	vr_list_for_each(face, &faces, struct vr_font_face, link) {
		if (face->weight == weight && strcmp(face->family, family) == 0) {
			found = face;
			break;
		}
	}
	if (found == NULL) {
		found = face_open(family, weight);
		if (found != NULL) {
			vr_list_insert(&faces, &found->link);
		}
	}
	pthread_mutex_unlock(&faces_lock);
	return found;
}

/* ---- shaping ------------------------------------------------------------ */

struct vr_text *vr_text_shape(const char *utf8, const struct vr_font *font,
		float x, float y) {
	struct vr_font_face *face = vr_font_face_get(font->family, font->weight);
	if (face == NULL) {
		return NULL;
	}
	hb_buffer_t *buffer = hb_buffer_create();
	hb_buffer_add_utf8(buffer, utf8, -1, 0, -1);
	hb_buffer_guess_segment_properties(buffer);
	hb_shape(face->hb_font, buffer, NULL, 0);
	unsigned int count = 0;
	const hb_glyph_info_t *infos = hb_buffer_get_glyph_infos(buffer, &count);
	const hb_glyph_position_t *pos =
			hb_buffer_get_glyph_positions(buffer, NULL);

	struct vr_text *text = calloc(1, sizeof(*text));
	if (text == NULL || !hb_buffer_allocation_successful(buffer)) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		free(text);
		hb_buffer_destroy(buffer);
		return NULL;
	}
	text->face = face;
	text->size = font->size;
	text->glyphs = malloc((count + 1) * sizeof(*text->glyphs));
	text->positions = malloc((count + 1) * 2 * sizeof(*text->positions));
	if (text->glyphs == NULL || text->positions == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		hb_buffer_destroy(buffer);
		vr_text_destroy(text);
		return NULL;
	}
	float unit = font->size / face->units_per_em;
	float pen_x = x, pen_y = y;
	float x0 = INFINITY, x1 = -INFINITY;
	for (unsigned int i = 0; i < count; i++) {
		float gx = pen_x + (float)pos[i].x_offset * unit;
		float gy = pen_y - (float)pos[i].y_offset * unit;
		text->glyphs[i] = infos[i].codepoint;
		text->positions[2 * i] = gx;
		text->positions[2 * i + 1] = gy;
		x0 = fminf(x0, gx);
		x1 = fmaxf(x1, gx);
		pen_x += (float)pos[i].x_advance * unit;
		pen_y -= (float)pos[i].y_advance * unit;
	}
	text->count = count;
	hb_buffer_destroy(buffer);
	if (count > 0) {
		/* the face's bounding box around every origin (y down), and a
		 * pixel for rasterisation's rounding */
		float s = font->size;
		float y_min = INFINITY, y_max = -INFINITY;
		for (unsigned int i = 0; i < count; i++) {
			y_min = fminf(y_min, text->positions[2 * i + 1]);
			y_max = fmaxf(y_max, text->positions[2 * i + 1]);
		}
		float bx0 = x0 + face->bbox[0] * s - 1.0f;
		float bx1 = x1 + face->bbox[2] * s + 1.0f;
		float by0 = y_min - face->bbox[3] * s - 1.0f;
		float by1 = y_max - face->bbox[1] * s + 1.0f;
		text->bounds = (struct vr_rectf){ bx0, by0, bx1 - bx0, by1 - by0 };
	}
	return text;
}

void vr_text_destroy(struct vr_text *text) {
	if (text == NULL) {
		return;
	}
	free(text->glyphs);
	free(text->positions);
	free(text);
}

/* ---- rasterisation ------------------------------------------------------ */

/* A slot of face for the calling thread, locked: its own when free, else
 * any free one, else (every slot busy) its own once free. */
static struct face_slot *slot_acquire(struct vr_font_face *face) {
	if (slot_hint < 0) {
		slot_hint = (int)(atomic_fetch_add_explicit(&next_slot_hint, 1,
								  memory_order_relaxed) %
				FACE_SLOTS);
	}
	for (int i = 0; i < FACE_SLOTS; i++) {
		struct face_slot *slot = &face->slots[(slot_hint + i) % FACE_SLOTS];
		if (pthread_mutex_trylock(&slot->lock) == 0) {
			return slot;
		}
	}
	struct face_slot *slot = &face->slots[slot_hint];
	pthread_mutex_lock(&slot->lock);
	return slot;
}

bool vr_font_face_rasterize(struct vr_font_face *face, uint32_t glyph,
		float size_px, struct vr_glyph_bitmap *out) {
	*out = (struct vr_glyph_bitmap){ 0 };
	struct face_slot *slot = slot_acquire(face);
	bool ok = slot->ft_face != NULL || slot_open(face, slot);
	FT_Face ft = slot->ft_face;
	FT_F26Dot6 char_size = (FT_F26Dot6)lroundf(size_px * 64.0f);
	if (ok && slot->char_size != char_size) {
		/* setting the size the face has changes nothing: skipped */
		ok = FT_Set_Char_Size(ft, 0, char_size, 72, 72) == 0;
		slot->char_size = ok ? char_size : 0;
	}
	ok = ok &&
			FT_Load_Glyph(ft, glyph, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) ==
					0 &&
			FT_Render_Glyph(ft->glyph, FT_RENDER_MODE_NORMAL) == 0;
	if (ok) {
		const FT_Bitmap *bitmap = &ft->glyph->bitmap;
		out->width = (int32_t)bitmap->width;
		out->height = (int32_t)bitmap->rows;
		out->left = ft->glyph->bitmap_left;
		out->top = ft->glyph->bitmap_top;
		if (out->width > 0 && out->height > 0) {
			out->coverage = malloc((size_t)out->width * (size_t)out->height);
			ok = out->coverage != NULL &&
					bitmap->pixel_mode == FT_PIXEL_MODE_GRAY;
			for (int32_t y = 0; ok && y < out->height; y++) {
				memcpy(out->coverage + (size_t)y * (size_t)out->width,
						bitmap->buffer + (ptrdiff_t)y * bitmap->pitch,
						(size_t)out->width);
			}
		} else {
			out->width = out->height = 0;
		}
	}
	pthread_mutex_unlock(&slot->lock);
	if (!ok) {
		vr_log(VR_LOG_ERROR, "freetype: cannot rasterise glyph %u of %s", glyph,
				face->path);
		free(out->coverage);
		*out = (struct vr_glyph_bitmap){ 0 };
	}
	return ok;
}

float vr_glyph_run_pixel_size(const struct vr_glyph_run *run) {
	const struct vr_mat *m = &run->state.mat;
	return run->text->size * sqrtf(fabsf(m->a * m->d - m->b * m->c));
}

void vr_glyph_run_origin(const struct vr_glyph_run *run, uint32_t i, float *x,
		float *y) {
	vr_mat_apply(&run->state.mat, run->text->positions[2 * i],
			run->text->positions[2 * i + 1], x, y);
	if (run->nearest) {
		*x = roundf(*x);
		*y = roundf(*y);
	}
}
