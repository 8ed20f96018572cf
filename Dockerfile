# ccai in a container: a build stage with the Swift toolchain, a slim runtime stage with the
# binary, the shared libraries it links and nothing else (docs/kubernetes.md).
#
#   docker build -t ccai:0.1.0 .
#   docker run --rm -v "$PWD/examples:/work" ccai:0.1.0 run quickstart.lua
#
# The image names carry no registry host: point SWIFT_IMAGE / RUNTIME_IMAGE at a mirror
# with --build-arg when the default registry is not reachable.
ARG SWIFT_IMAGE=swift:6.0-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- build: the README's own commands --------------------------------------------------
FROM ${SWIFT_IMAGE} AS build
WORKDIR /src

# The Debian packages first, in a layer of their own (cached while only the code changes).
# scripts/bootstrap installs what ./scripts/run and ./scripts/test need (chromium,
# poppler-utils and lua-check included); none of it reaches the runtime stage.
COPY scripts/ scripts/
RUN ./scripts/bootstrap && rm -rf /var/lib/apt/lists/*

# Tests/ is not built, but Package.swift declares its targets and SwiftPM wants their folders.
COPY Package.swift ./
COPY Sources/ Sources/
COPY Tests/ Tests/
RUN swift build -c release --product ccai

# /out/bin/ccai, stripped (about 19 MB -> 6 MB; a crash backtrace then shows addresses, not
# names), and /out/swift: exactly the Swift runtime libraries the binary resolves from the
# toolchain, found by ldd rather than listed by hand, since the set moves between
# toolchains. With Swift 6.3.1 they are these 14 (76 MB, lib_FoundationICU.so half of it):
#   libswiftCore libswift_Concurrency libswift_StringProcessing libswift_RegexParser
#   libswiftSynchronization libswiftGlibc libswift_Builtin_float libBlocksRuntime
#   libdispatch libswiftDispatch libFoundation libFoundationEssentials
#   libFoundationInternationalization lib_FoundationICU
# The build fails here if the binary links a Swift library ldd cannot find.
RUN mkdir -p /out/bin /out/swift \
 && cp .build/release/ccai /out/bin/ccai \
 && strip /out/bin/ccai \
 && ! ldd /out/bin/ccai | grep 'not found' \
 && ldd /out/bin/ccai | awk '$3 ~ "^/usr/lib/swift/linux/" { print $3 }' | sort -u > /out/swift.list \
 && grep -q libswiftCore.so /out/swift.list \
 && xargs -a /out/swift.list cp -L -t /out/swift/ \
 && cat /out/swift.list

# --- runtime ----------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}

# The Debian packages of the libraries ccai links directly (readelf -d: NEEDED; each .so
# mapped to its package with dpkg -S); apt brings their own dependencies (fontconfig,
# freetype, fribidi, pixman, ...):
#   libssl.so.3 libcrypto.so.3      libssl3
#   libcurl.so.4                    libcurl4           (the SDK's transport)
#   libmicrohttpd.so.12             libmicrohttpd12    (sandbox serve)
#   libsqlite3.so.0                 libsqlite3-0       (the sandbox's store)
#   liblua5.4.so.0                  liblua5.4-0
#   libglib-2.0.so.0 libgobject-2.0 libglib2.0-0
#   libcairo.so.2                   libcairo2          (transcript PDFs)
#   libpango-1.0.so.0               libpango-1.0-0
#   libpangocairo-1.0.so.0          libpangocairo-1.0-0
#   libharfbuzz.so.0                libharfbuzz0b
#   libvips.so.42                   libvips42          (the SDK's image compression; brings
#                                                       libheif1, libwebp7, libjpeg62-turbo)
#   libstdc++.so.6 libgcc_s.so.1    libstdc++6 libgcc-s1 (the Swift runtime's)
#   libc libm ld-linux              libc6 (in the base image)
# and what the binary opens at run time rather than links:
#   fonts-dejavu-core  the transcripts' and reports' font (DejaVu Sans)
#   fontconfig         its system font cache, built at install (no cache to write at run time)
#   tzdata             company time zones (business hours; an unknown zone is refused)
#   ca-certificates    --host over https://
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libssl3 libcurl4 libmicrohttpd12 libsqlite3-0 liblua5.4-0 \
      libglib2.0-0 libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libharfbuzz0b libvips42 \
      libstdc++6 libgcc-s1 \
      fonts-dejavu-core fontconfig tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# The Swift runtime where the binary's RUNPATH looks for it (the toolchain's path).
COPY --from=build /out/swift/ /usr/lib/swift/linux/
COPY --from=build /out/bin/ccai /usr/local/bin/ccai
# The examples, a few KB: `docker run IMAGE run /usr/local/share/ccai/examples/quickstart.lua`.
COPY examples/ /usr/local/share/ccai/examples/

# A user of its own (uid/gid 10001, what deploy/kubernetes runs as); /work is its home and
# the folder scripts are mounted in (files a script names stay inside the script's folder;
# what it writes goes to ./ccai-out, here /work/ccai-out).
RUN groupadd --gid 10001 ccai \
 && useradd --uid 10001 --gid ccai --home-dir /work --no-create-home --shell /usr/sbin/nologin ccai \
 && mkdir -p /work \
 && chown ccai:ccai /work \
 && ccai --version
ENV LANG=C.UTF-8
USER 10001:10001
WORKDIR /work
VOLUME ["/work"]

ENTRYPOINT ["ccai"]
CMD ["help"]
