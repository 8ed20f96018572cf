// Non-variadic wrappers for the libvips calls the SDK's image compression makes (libvips'
// API takes its options as NULL-terminated variadic lists, which Swift cannot call). The
// header names no libvips type, so Swift sees only bytes, sizes and messages.
//
// Every function that can fail returns 0 on success and -1 on failure, with the reason in
// *error: a copy of libvips' error text (its error buffer is then cleared), to be freed
// with ccai_vips_free.
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <stddef.h>

/// Starts libvips once per process (any thread, any number of times): VIPS_INIT, the
/// operation cache off, and every loader blocked but JPEG, PNG, WebP and HEIF.
int ccai_vips_start(char **error);

/// Reads an image's header only (nothing is decoded): its stored width and height and its
/// EXIF orientation (1...8, 1 when it has none).
int ccai_vips_header(const void *data, size_t length, int *width, int *height, int *orientation, char **error);

/// Decodes an image, turns it upright by its EXIF orientation, shrinks it to fit
/// long_edge x long_edge (never enlarges it), converts it to sRGB, puts any transparency on
/// white, and encodes it as a baseline JPEG of the given quality (1...100) without
/// metadata. *output is freed with ccai_vips_free.
int ccai_vips_jpeg(const void *data, size_t length, int long_edge, int quality, void **output, size_t *output_length,
                   char **error);

/// Frees what the functions above hand out (g_free).
void ccai_vips_free(void *buffer);

#endif
