// Real images for the SDK's compression tests, made and measured with libvips itself.
// Each function returns 0, or -1 with libvips' error text in *error (free it with
// ccai_test_free).
#ifndef VIPSTESTIMAGES_H
#define VIPSTESTIMAGES_H

#include <stddef.h>

/// A width x height sRGB picture of Gaussian noise around mid-grey (`sigma`: how noisy,
/// hence how badly it compresses), with a fully transparent alpha band when `alpha` is
/// non-zero, encoded as `format` ("png", "jpeg", "webp" or "heif") at `quality` (ignored
/// for PNG). A JPEG carries an EXIF orientation tag of `orientation` (1...8).
int ccai_test_noise_image(int width, int height, double sigma, int alpha, const char *format, int quality,
                          int orientation, void **output, size_t *length, char **error);

/// The mean of all of an image's samples, every band together (255 is all white).
int ccai_test_mean(const void *data, size_t length, double *mean, char **error);

/// Frees what the functions above hand out.
void ccai_test_free(void *buffer);

#endif
