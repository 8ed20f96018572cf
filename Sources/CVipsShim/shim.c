#include "CVipsShim.h"

#include <pthread.h>
#include <vips/vips.h>

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_status = -1;
static char *start_error = NULL;

/// The loaders left open: the formats a phone or a browser sends as a photo. Everything
/// else libvips can read (SVG, PDF, GIF, TIFF, ImageMagick's formats, FITS, ...) stays
/// blocked, so no bytes handed to the SDK reach those parsers.
static const char *const allowed_loaders[] = {
    "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp", "VipsForeignLoadHeif",
};

/// Takes libvips' error text (and clears it), or a fallback when it has none.
static char *take_error(const char *fallback) {
    char *text = vips_error_buffer_copy();
    if (text == NULL || text[0] == '\0') {
        g_free(text);
        text = g_strdup(fallback);
    }
    return text;
}

static void start(void) {
    if (VIPS_INIT("ccai")) {
        start_error = take_error("libvips could not be started");
        return;
    }
    // Each compression decodes its own buffer once per attempt: nothing to reuse, and a
    // cache would hold decoded pixels after the call.
    vips_cache_set_max(0);
    // One thread per pipeline: the SDK runs as many compressions at once as there are
    // processors (CompressionQueue), and more threads per image measured no faster on two
    // cores. VIPS_CONCURRENCY, read by VIPS_INIT, still overrides it.
    if (g_getenv("VIPS_CONCURRENCY") == NULL) vips_concurrency_set(1);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    for (size_t index = 0; index < sizeof allowed_loaders / sizeof allowed_loaders[0]; index++) {
        vips_operation_block_set(allowed_loaders[index], FALSE);
    }
    start_status = 0;
}

int ccai_vips_start(char **error) {
    pthread_once(&start_once, start);
    if (start_status != 0) *error = g_strdup(start_error);
    return start_status;
}

int ccai_vips_header(const void *data, size_t length, int *width, int *height, int *orientation, char **error) {
    if (ccai_vips_start(error)) return -1;
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        *error = take_error("not an image");
        return -1;
    }
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *orientation = vips_image_get_orientation(image);
    g_object_unref(image);
    return 0;
}

int ccai_vips_jpeg(const void *data, size_t length, int long_edge, int quality, void **output, size_t *output_length,
                   char **error) {
    if (ccai_vips_start(error)) return -1;
    VipsImage *thumbnail = NULL;
    // thumbnail_buffer does not write to the buffer; its prototype just lacks the const.
    if (vips_thumbnail_buffer((void *)data, length, &thumbnail, long_edge, "height", long_edge, "size", VIPS_SIZE_DOWN,
                              "export_profile", "srgb", NULL)) {
        *error = take_error("the image could not be decoded");
        return -1;
    }
    VipsImage *opaque = thumbnail;
    if (vips_image_hasalpha(thumbnail)) {
        // White at the image's own depth (65535 for a 16-bit picture, not 255).
        double white = vips_image_get_format(thumbnail) == VIPS_FORMAT_USHORT ? 65535.0 : 255.0;
        VipsArrayDouble *background = vips_array_double_new(&white, 1);
        int failed = vips_flatten(thumbnail, &opaque, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        if (failed) {
            g_object_unref(thumbnail);
            *error = take_error("the image's transparency could not be flattened");
            return -1;
        }
    }
    int failed = vips_jpegsave_buffer(opaque, output, output_length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                      NULL);
    if (opaque != thumbnail) g_object_unref(opaque);
    g_object_unref(thumbnail);
    if (failed) {
        *error = take_error("the image could not be encoded as JPEG");
        return -1;
    }
    return 0;
}

void ccai_vips_free(void *buffer) { g_free(buffer); }
