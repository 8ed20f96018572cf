import CSSL

/// OpenSSL, set up once for the process before any other use of it: without its clean-up
/// at exit. By default OpenSSL frees its locks in an `atexit` handler, and a thread still
/// digesting a token then (an in-process request of a run that is ending, a sandbox
/// timer) reads a freed lock and crashes the process; the system frees everything at exit
/// anyway.
///
/// ```swift
/// CryptoLibrary.prepare()   // first thing in main, before libcurl starts
/// ```
public enum CryptoLibrary {
    private static let prepared: Void = {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }()

    /// Sets OpenSSL up (once; later calls do nothing). Every user of it in this module
    /// calls it first; a program calls it before anything else starts OpenSSL (libcurl
    /// does), since only the first set-up decides about the clean-up at exit.
    public static func prepare() { _ = prepared }
}
