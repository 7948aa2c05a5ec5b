// zlib for StuntDoubleServer's gzip (WireMock gzips answers and reads gzipped requests): its stream API, and the
// two initializers zlib defines as macros, which Swift cannot call.
#ifndef C_STUNTDOUBLE_ZLIB_H
#define C_STUNTDOUBLE_ZLIB_H

#include <zlib.h>

/// A deflate stream that writes gzip's format (a header, the deflated bytes, CRC-32 and length).
static inline int stuntdouble_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// An inflate stream that reads gzip's format (or zlib's, which it tells apart by the header).
static inline int stuntdouble_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}

#endif
