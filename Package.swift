// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ccai-lua",
    products: [
        .executable(name: "ccai", targets: ["ccai"]),
        .executable(name: "ccai-bench", targets: ["ccai-bench"]),
        .library(name: "LuaRuntime", targets: ["LuaRuntime"]),
        .library(name: "CCAIScripting", targets: ["CCAIScripting"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Transcript PDFs: cairo's PDF surface, text laid out by pango.
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        // The SDK's image compression: decode, downscale, re-encode as JPEG.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),

        // What Swift cannot call directly: Lua macros, raise/yield trampolines, allocator, hook.
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        // Typed wrappers for curl_easy_setopt / curl_easy_getinfo (variadic in C).
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // The variadic daemon start and the suspend/resume handshake of libmicrohttpd.
        .target(name: "CHTTPShim", dependencies: ["CMicroHTTPD"]),
        // glibc's posix_spawn extensions (closefrom, chdir) and pipe2, hidden behind _GNU_SOURCE.
        .target(name: "CSpawnShim"),
        // libvips' variadic calls (load, thumbnail, jpegsave) behind fixed signatures, its start once.
        .target(name: "CVipsShim", dependencies: ["CVips"]),

        // The clock seam under everything that waits: the SDK, the Lua scheduler, the sandbox.
        .target(name: "Timekeeping"),
        // The error codes every layer speaks, from the Lua runtime's errors to the wire's.
        .target(name: "ErrorCodes"),
        .target(
            name: "LuaRuntime",
            dependencies: ["CLua", "CLuaShim", "ErrorCodes", "Timekeeping"],
            // The state is confined to one executor by design; dynamic exclusivity checks on
            // the call and event paths cost more than the calls themselves (docs/benchmarks.md).
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        // The wire protocol shared by the SDK and the sandbox: JSON values, JWTs.
        .target(name: "CCAIWire", dependencies: ["CSSL", "ErrorCodes"]),
        // The SDK: transport (libcurl), models, services.
        .target(name: "CCAIKit", dependencies: ["CCurlShim", "CVipsShim", "CCAIWire", "Timekeeping"]),
        // The platform emulator: an HTTP server (libmicrohttpd) with the wire API.
        // It knows nothing of the SDK: no libcurl, no libvips (CCAIBridge joins the two).
        .target(
            name: "CCAISandbox",
            dependencies: ["CHTTPShim", "CSQLite", "CPangoCairo", "CCAIWire", "LuaRuntime", "Timekeeping"],
            // Route tables name their handlers (`(Endpoints.endChat, end)`): a method of a
            // Sendable route struct is then a Sendable function.
            swiftSettings: [.enableUpcomingFeature("InferSendableFromCaptures")]
        ),
        // The SDK wired to a sandbox in the same process: the router transport (CCAIKit's
        // HTTPTransport answered by the sandbox's router, no socket) and the local push
        // network (CCAIKit's PushNetwork and the sandbox's PushSink). A bridge rather than
        // protocols moved down into CCAIWire: they speak in the SDK's own types (requests,
        // responses, transport errors, the push service), which the wire contract has no
        // business holding. Neither side imports the other; the CLI and the tests wire them.
        .target(name: "CCAIBridge", dependencies: ["CCAIKit", "CCAISandbox", "CCAIWire", "Timekeeping"]),
        .target(name: "CCAIScripting", dependencies: ["LuaRuntime", "CCAIKit", "CCAIWire", "Timekeeping", "CSpawnShim"]),
        .executableTarget(
            name: "ccai", dependencies: ["CCAIScripting", "CCAIKit", "CCAISandbox", "CCAIBridge", "CCAIWire", "LuaRuntime", "Timekeeping", "CLuaShim"]
        ),
        .executableTarget(
            name: "ccai-bench",
            dependencies: ["CCAIScripting", "CCAIKit", "CCAISandbox", "CCAIWire", "LuaRuntime", "Timekeeping", "CLua", "CLuaShim"]
        ),

        // What several test targets use: SDK makers (in process by default, over loopback
        // HTTP for the transport's own tests), a signing delegate, an in-process client of
        // the sandbox's router, eventually(timeout:), runTool.
        .target(name: "TestSupport", dependencies: ["CCAIKit", "CCAISandbox", "CCAIBridge", "CCAIScripting", "CCAIWire", "Timekeeping"],
                path: "Tests/TestSupport"),
        .testTarget(name: "TimekeepingTests", dependencies: ["Timekeeping"]),
        .testTarget(name: "LuaRuntimeTests", dependencies: ["LuaRuntime", "Timekeeping", "CLua", "CLuaShim"]),
        .testTarget(name: "CCAIScriptingTests", dependencies: ["CCAIScripting", "LuaRuntime", "CCAIKit", "CCAISandbox", "CCAIBridge", "CCAIWire", "Timekeeping", "TestSupport"]),
        .testTarget(name: "CCAIWireTests", dependencies: ["CCAIWire"]),
        .testTarget(name: "CCAISandboxTests", dependencies: ["CCAISandbox", "CHTTPShim", "CCAIScripting", "CCAIWire", "Timekeeping", "TestSupport"]),
        // Real images for the compression tests, encoded by libvips (noise, EXIF orientation).
        .target(name: "VipsTestImages", dependencies: ["CVips", "CVipsShim"], path: "Tests/VipsTestImages"),
        .testTarget(name: "CCAIKitTests", dependencies: ["CCAIKit", "CCAISandbox", "CCAIBridge", "Timekeeping", "TestSupport", "VipsTestImages"]),
        .testTarget(
            name: "SystemLibrariesTests",
            dependencies: ["CCurl", "CSSL", "CMicroHTTPD", "CSQLite", "CLua"]
        ),
        .testTarget(name: "CLITests", dependencies: ["ccai", "CCAIScripting", "CCAIKit", "CCAIWire", "TestSupport", "CPangoCairo"]),
    ],
    swiftLanguageModes: [.v5]
)
