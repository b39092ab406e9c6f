#ifndef CARDBOX_VIPS_H
#define CARDBOX_VIPS_H

#include <stddef.h>

/* libvips behind plain C functions: Swift cannot call vips's variadic API, and glib's headers stay
 * out of Swift. Every function returns 0 on success and -1 on failure, with the reason in
 * cbx_vips_error(). Buffers handed out are freed with cbx_vips_free. */

/* Starts libvips once per process (later calls do nothing); its operation cache is off, so memory
 * is given back after each image. */
int cbx_vips_start(void);

/* The reason for the calling thread's last failure (empty when none). */
const char *cbx_vips_error(void);

void cbx_vips_free(void *buffer);

/* Reads only the header of an encoded image: no pixels are decoded. */
int cbx_vips_probe(const void *data, size_t length, int *width, int *height, int *bands);

/* Decodes every pixel of the image (a JPEG shrunk by `jpeg_shrink`, 1, 2, 4 or 8, which still
 * reads all of its data; the caller keeps both sides at least that many pixels, since libvips
 * aborts on an image of no pixels): a truncated or damaged image fails. A thumbnail alone cannot
 * tell: it may stop before the last rows, or use a HEIC's embedded preview. */
int cbx_vips_check(const void *data, size_t length, int jpeg_shrink);

/* Decodes the whole image (a truncated or damaged one fails), turns it upright by its EXIF
 * orientation, shrinks it to fit max_side (never enlarges), and encodes it as JPEG at `quality`
 * (alpha flattened onto white) or, with as_png, as PNG. Metadata is stripped. */
int cbx_vips_fit(const void *data, size_t length, int max_side, int quality, int as_png, void **out,
                 size_t *out_length, int *out_width, int *out_height);

/* Renders a square picture of `size` pixels: `title` (Pango markup) large and centred over a
 * background of the given colour, with `caption` (Pango markup) smaller beneath it; JPEG. */
int cbx_vips_render_card(const char *title, const char *caption, int size, int red, int green, int blue,
                         int quality, void **out, size_t *out_length);

/* A real photo-like test image: a smooth gradient with noise, width × height, in the format of
 * `suffix` (".jpg", ".png", ".heic"). */
int cbx_vips_sample(int width, int height, int seed, const char *suffix, void **out, size_t *out_length);

#endif
