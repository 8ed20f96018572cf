// The error codes are the wire's too: whoever imports CCAIWire sees ``ErrorCode``.
@_exported import ErrorCodes
