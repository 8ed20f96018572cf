#include "VipsTestImages.h"

#include <CVipsShim.h>
#include <string.h>
#include <vips/vips.h>

static int failure(char **error) {
    *error = vips_error_buffer_copy();
    return -1;
}

/// Saves `image` as `format` and unreferences it.
static int save(VipsImage *image, const char *format, int quality, void **output, size_t *length) {
    int failed;
    if (strcmp(format, "png") == 0) {
        failed = vips_pngsave_buffer(image, output, length, NULL);
    } else if (strcmp(format, "jpeg") == 0) {
        failed = vips_jpegsave_buffer(image, output, length, "Q", quality, NULL);
    } else if (strcmp(format, "webp") == 0) {
        failed = vips_webpsave_buffer(image, output, length, "Q", quality, NULL);
    } else if (strcmp(format, "heif") == 0) {
        failed = vips_heifsave_buffer(image, output, length, "Q", quality, "compression",
                                      VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    } else {
        vips_error("ccai_test_noise_image", "unknown format %s", format);
        failed = -1;
    }
    g_object_unref(image);
    return failed;
}

/// Three bands of noise, and a zero (transparent) fourth when `alpha`, as 8-bit sRGB.
static VipsImage *noise(int width, int height, double sigma, int alpha) {
    VipsImage *bands[4] = {NULL, NULL, NULL, NULL};
    int count = alpha ? 4 : 3;
    int failed = 0;
    for (int band = 0; band < 3 && !failed; band++) {
        failed = vips_gaussnoise(&bands[band], width, height, "mean", 128.0, "sigma", sigma, NULL);
    }
    if (!failed && alpha) failed = vips_black(&bands[3], width, height, NULL);
    VipsImage *joined = NULL, *cast = NULL, *picture = NULL;
    if (!failed) failed = vips_bandjoin(bands, &joined, count, NULL);
    for (int band = 0; band < count; band++) {
        if (bands[band]) g_object_unref(bands[band]);
    }
    if (!failed) failed = vips_cast(joined, &cast, VIPS_FORMAT_UCHAR, NULL);
    if (joined) g_object_unref(joined);
    if (!failed) failed = vips_copy(cast, &picture, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    if (cast) g_object_unref(cast);
    return failed ? NULL : picture;
}

int ccai_test_noise_image(int width, int height, double sigma, int alpha, const char *format, int quality,
                          int orientation, void **output, size_t *length, char **error) {
    if (ccai_vips_start(error)) return -1;
    VipsImage *picture = noise(width, height, sigma, alpha);
    if (picture == NULL) return failure(error);
    if (orientation != 1) vips_image_set_int(picture, VIPS_META_ORIENTATION, orientation);
    return save(picture, format, quality, output, length) ? failure(error) : 0;
}

int ccai_test_mean(const void *data, size_t length, double *mean, char **error) {
    if (ccai_vips_start(error)) return -1;
    VipsImage *image = vips_image_new_from_buffer(data, length, "", NULL);
    if (image == NULL) return failure(error);
    int failed = vips_avg(image, mean, NULL);
    g_object_unref(image);
    return failed ? failure(error) : 0;
}

void ccai_test_free(void *buffer) { g_free(buffer); }
