#include "cardbox_vips.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <fontconfig/fontconfig.h>
#include <vips/vips.h>

static __thread char last_error[1024];
static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_status = -1;

static int fail(const char *fallback) {
    const char *reason = vips_error_buffer();
    snprintf(last_error, sizeof last_error, "%s", (reason && reason[0]) ? reason : fallback);
    /* vips ends its messages with a newline: a Swift error message is one line. */
    size_t length = strlen(last_error);
    while (length > 0 && (last_error[length - 1] == '\n' || last_error[length - 1] == ' ')) {
        last_error[--length] = '\0';
    }
    vips_error_clear();
    return -1;
}

static void start_once(void) {
    /* Pango starts fontconfig on a thread of its own when text is first drawn, racing this
     * thread's first use of it (pango#784: seen here as a worker's SIGFPE in about one in forty
     * fresh workers under load). Started here first, both later FcInit calls return at once. */
    FcInit();
    if (VIPS_INIT("cardbox") != 0) {
        start_status = fail("libvips could not start");
        return;
    }
    /* Each image is handled once: the cache would only hold memory. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    start_status = 0;
}

int cbx_vips_start(void) {
    pthread_once(&started, start_once);
    return start_status;
}

const char *cbx_vips_error(void) { return last_error; }

void cbx_vips_free(void *buffer) { g_free(buffer); }

int cbx_vips_probe(const void *data, size_t length, int *width, int *height, int *bands) {
    last_error[0] = '\0';
    if (cbx_vips_start() != 0) return -1;
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return fail("the image's header cannot be read");
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *bands = vips_image_get_bands(image);
    g_object_unref(image);
    return 0;
}

int cbx_vips_check(const void *data, size_t length, int jpeg_shrink) {
    last_error[0] = '\0';
    if (cbx_vips_start() != 0) return -1;
    const char *loader = vips_foreign_find_load_buffer(data, length);
    if (!loader) return fail("the image's format cannot be read");
    VipsImage *image = strcmp(loader, "VipsForeignLoadJpegBuffer") == 0
                           ? vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                        "fail_on", VIPS_FAIL_ON_TRUNCATED, "shrink", jpeg_shrink, NULL)
                           : vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (!image) return fail("the image cannot be decoded");
    double average = 0;
    int status = vips_avg(image, &average, NULL);
    g_object_unref(image);
    return status ? fail("the image cannot be decoded") : 0;
}

/* sRGB (or grey) with 8 bits a sample, what JPEG and browsers take. */
static int to_srgb(VipsImage *in, VipsImage **out) {
    VipsInterpretation interpretation = vips_image_get_interpretation(in);
    if ((interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_B_W) &&
        vips_image_get_format(in) == VIPS_FORMAT_UCHAR) {
        *out = in;
        g_object_ref(in);
        return 0;
    }
    VipsImage *converted = NULL;
    if (vips_colourspace(in, &converted, VIPS_INTERPRETATION_sRGB, NULL)) return -1;
    if (vips_image_get_format(converted) == VIPS_FORMAT_UCHAR) {
        *out = converted;
        return 0;
    }
    int status = vips_cast_uchar(converted, out, NULL);
    g_object_unref(converted);
    return status;
}

int cbx_vips_fit(const void *data, size_t length, int max_side, int quality, int as_png, void **out,
                 size_t *out_length, int *out_width, int *out_height) {
    last_error[0] = '\0';
    if (cbx_vips_start() != 0) return -1;
    VipsImage *fitted = NULL, *srgb = NULL, *flat = NULL;
    int status = -1;
    /* fail_on=truncated: a cut-short file is an error, not a picture with a grey bottom. */
    if (vips_thumbnail_buffer((void *)data, length, &fitted, max_side, "height", max_side, "size",
                              VIPS_SIZE_DOWN, "option_string", "fail_on=truncated", NULL))
        goto done;
    if (to_srgb(fitted, &srgb)) goto done;
    VipsImage *final = srgb;
    if (!as_png && vips_image_hasalpha(srgb)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int flattened = vips_flatten(srgb, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        if (flattened) goto done;
        final = flat;
    }
    int saved = as_png ? vips_pngsave_buffer(final, out, out_length, "compression", 6, "strip", TRUE, NULL)
                       : vips_jpegsave_buffer(final, out, out_length, "Q", quality, "strip", TRUE,
                                              "optimize_coding", TRUE, NULL);
    if (saved) goto done;
    *out_width = vips_image_get_width(final);
    *out_height = vips_image_get_height(final);
    status = 0;
done:
    if (flat) g_object_unref(flat);
    if (srgb) g_object_unref(srgb);
    if (fitted) g_object_unref(fitted);
    return status == 0 ? 0 : fail("the image cannot be decoded");
}

/* A full-size mask of `markup` fitted into a box and centred at (centre_x, centre_y). */
static int text_mask(const char *markup, const char *font, int size, int box_width, int box_height,
                     int centre_y, VipsImage **out) {
    VipsImage *text = NULL;
    if (vips_text(&text, markup, "font", font, "width", box_width, "height", box_height, "align",
                  VIPS_ALIGN_CENTRE, NULL))
        return -1;
    int x = (size - vips_image_get_width(text)) / 2;
    int y = centre_y - vips_image_get_height(text) / 2;
    int status = vips_embed(text, out, x < 0 ? 0 : x, y < 0 ? 0 : y, size, size, NULL);
    g_object_unref(text);
    return status;
}

static int solid(int size, double red, double green, double blue, VipsImage **out) {
    VipsImage *black = NULL, *lifted = NULL;
    double a[3] = {1, 1, 1};
    double b[3] = {red, green, blue};
    int status = vips_black(&black, size, size, "bands", 3, NULL) || vips_linear(black, &lifted, a, b, 3, NULL) ||
                 vips_cast_uchar(lifted, out, NULL);
    if (lifted) g_object_unref(lifted);
    if (black) g_object_unref(black);
    return status ? -1 : 0;
}

int cbx_vips_render_card(const char *title, const char *caption, int size, int red, int green, int blue,
                         int quality, void **out, size_t *out_length) {
    last_error[0] = '\0';
    if (cbx_vips_start() != 0) return -1;
    VipsImage *background = NULL, *ink = NULL, *title_mask = NULL, *caption_mask = NULL, *with_title = NULL,
              *with_caption = NULL;
    int status = -1;
    if (solid(size, red, green, blue, &background) || solid(size, 255, 255, 255, &ink)) goto done;
    if (text_mask(title, "DejaVu Sans Bold", size, size * 85 / 100, size * 30 / 100, size * 38 / 100, &title_mask))
        goto done;
    if (vips_ifthenelse(title_mask, ink, background, &with_title, "blend", TRUE, NULL)) goto done;
    VipsImage *final = with_title;
    if (caption && caption[0]) {
        if (text_mask(caption, "DejaVu Sans", size, size * 85 / 100, size * 22 / 100, size * 74 / 100,
                      &caption_mask))
            goto done;
        if (vips_ifthenelse(caption_mask, ink, with_title, &with_caption, "blend", TRUE, NULL)) goto done;
        final = with_caption;
    }
    if (vips_jpegsave_buffer(final, out, out_length, "Q", quality, "strip", TRUE, NULL)) goto done;
    status = 0;
done:
    if (with_caption) g_object_unref(with_caption);
    if (caption_mask) g_object_unref(caption_mask);
    if (with_title) g_object_unref(with_title);
    if (title_mask) g_object_unref(title_mask);
    if (ink) g_object_unref(ink);
    if (background) g_object_unref(background);
    return status == 0 ? 0 : fail("the picture cannot be drawn");
}

int cbx_vips_sample(int width, int height, int seed, const char *suffix, void **out, size_t *out_length) {
    last_error[0] = '\0';
    if (cbx_vips_start() != 0) return -1;
    VipsImage *xy = NULL, *scaled = NULL, *noise = NULL, *joined = NULL, *pixels = NULL;
    int status = -1;
    double a[2] = {255.0 / (width > 1 ? width : 1), 255.0 / (height > 1 ? height : 1)};
    double b[2] = {0, 0};
    VipsImage *bands[2];
    if (vips_xyz(&xy, width, height, NULL) || vips_linear(xy, &scaled, a, b, 2, NULL)) goto done;
    if (vips_gaussnoise(&noise, width, height, "sigma", 12.0, "mean", 128.0, "seed", seed, NULL)) goto done;
    bands[0] = scaled;
    bands[1] = noise;
    if (vips_bandjoin(bands, &joined, 2, NULL) || vips_cast_uchar(joined, &pixels, NULL)) goto done;
    /* Three bands read as sRGB by every encoder. */
    pixels->Type = VIPS_INTERPRETATION_sRGB;
    if (vips_image_write_to_buffer(pixels, suffix, out, out_length, NULL)) goto done;
    status = 0;
done:
    if (pixels) g_object_unref(pixels);
    if (joined) g_object_unref(joined);
    if (noise) g_object_unref(noise);
    if (scaled) g_object_unref(scaled);
    if (xy) g_object_unref(xy);
    return status == 0 ? 0 : fail("the sample image cannot be made");
}
