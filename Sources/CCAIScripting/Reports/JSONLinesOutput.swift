import Foundation
import LuaRuntime

/// `--out json=FILE`: every sample of a run as it is recorded, one JSON object per line in
/// k6's format, so that tools reading k6's output read ours. A metric's first sample is
/// preceded by its `Metric` line; the last line is the run's `Summary`
/// (``ScenarioReport``), with `points_dropped` when the points went past
/// ``maximumPointBytes``. The lines go to `FILE.partial` while the run goes, which takes the
/// name `FILE` when the run ends with a summary: a run that could not get through
/// (`abandon()`) leaves an earlier `FILE` as it was. `--out json=-` writes the lines to
/// standard output as they come (``standardOutput()``).
///
/// ```
/// {"data":{"contains":"time","name":"sdk_call_seconds","thresholds":[],"type":"trend"},"metric":"sdk_call_seconds","type":"Metric"}
/// {"data":{"tags":{"method":"start","service":"chat","status":"ok"},"time":"2026-12-02T04:31:33.538120Z","value":0.0042},"metric":"sdk_call_seconds","type":"Point"}
/// {"data":{...},"type":"Summary"}
/// ```
public final class JSONLinesOutput: @unchecked Sendable {
    /// A file that could not be written, with what the system said.
    public struct Problem: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private let lock = NSLock()
    private let handle: FileHandle
    private let path: String
    /// Where the lines go until the run ends: `path` + `.partial`; nil for standard output.
    private let partialPath: String?
    private var ended = false
    private var buffer = Data()
    private var described = Set<String>()
    private var thresholds: [String: [String]]
    private var failure: String?
    /// Lines are written out once this many bytes wait.
    static let flushBytes = 256 << 10
    /// The most bytes of `Point` lines a run writes (1 GiB by default): iterations failing
    /// in a loop wrote 67 MB in 8 s. Past it the points are counted, not written; the
    /// `Summary` line says how many (`points_dropped`), and a warning says so once.
    public let maximumPointBytes: Int
    private var pointBytes = 0
    private var droppedPoints = 0
    private let warn: @Sendable (String) -> Void

    /// The default of ``maximumPointBytes``.
    public static let defaultMaximumPointBytes = 1 << 30

    /// Creates `path.partial` afresh, mode 0644, for the lines of a run whose file will be
    /// `path`. Whatever was there (an earlier run's file, or a link someone placed) is
    /// removed first, and the new file is made exclusively, never through a link.
    public init(path: String, thresholds: [Threshold] = [], maximumPointBytes: Int = JSONLinesOutput.defaultMaximumPointBytes,
                warn: @escaping @Sendable (String) -> Void = JSONLinesOutput.warnOnStandardError) throws {
        let partialPath = path + ".partial"
        self.partialPath = partialPath
        var status = stat()
        if lstat(partialPath, &status) == 0, status.st_mode & S_IFMT != S_IFDIR { unlink(partialPath) }
        let descriptor = open(partialPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Problem(message: "--out json: cannot write '\(partialPath)': \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.path = path
        self.thresholds = Dictionary(grouping: thresholds, by: \.metricName).mapValues { $0.map(\.source) }
        self.maximumPointBytes = maximumPointBytes
        self.warn = warn
    }

    private init(handle: FileHandle) {
        self.handle = handle
        path = "standard output"
        partialPath = nil
        thresholds = [:]
        maximumPointBytes = Self.defaultMaximumPointBytes
        warn = Self.warnOnStandardError
    }

    /// Writes `warning: MESSAGE` to standard error.
    public static let warnOnStandardError: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
    }

    /// Lines written to standard output (a copy of its descriptor), as they come.
    public static func standardOutput() -> JSONLinesOutput {
        JSONLinesOutput(handle: FileHandle(fileDescriptor: dup(STDOUT_FILENO), closeOnDealloc: true))
    }

    /// The thresholds the `Metric` lines list, once the run's options are known.
    public func describe(_ thresholds: [Threshold]) {
        lock.withLock { self.thresholds = Dictionary(grouping: thresholds, by: \.metricName).mapValues { $0.map(\.source) } }
    }

    /// Adds a sample's line (and its metric's, the first time).
    public func write(_ sample: ScenarioMetrics.Sample) {
        var line = ""
        lock.withLock {
            if described.insert(sample.metric).inserted {
                let contains = sample.metric.hasSuffix("_seconds") ? "time" : "default"
                let sources = (thresholds[sample.metric] ?? []).map(JSONText.string).joined(separator: ",")
                line += "{\"data\":{\"contains\":\"\(contains)\",\"name\":\"\(sample.metric)\",\"thresholds\":[\(sources)],"
                    + "\"type\":\"\(sample.kind.rawValue)\"},\"metric\":\"\(sample.metric)\",\"type\":\"Metric\"}\n"
            }
            let tags = sample.tags.sorted { $0.key < $1.key }.map { JSONText.string($0.key) + ":" + JSONText.string($0.value) }
            let point = "{\"data\":{\"tags\":{\(tags.joined(separator: ","))},\"time\":\"\(JSONText.timestamp(sample.time))\","
                + "\"value\":\(JSONText.number(sample.value))},\"metric\":\"\(sample.metric)\",\"type\":\"Point\"}\n"
            guard pointBytes + point.utf8.count <= maximumPointBytes else {
                droppedPoints += 1
                if droppedPoints == 1 {
                    warn("--out json: \(path) has \(RunMemory.format(maximumPointBytes)) of points, its most: the run's later points are "
                         + "counted, not written (the Summary line's points_dropped)")
                }
                buffer.append(contentsOf: line.utf8)
                return
            }
            pointBytes += point.utf8.count
            line += point
            buffer.append(contentsOf: line.utf8)
            if buffer.count >= Self.flushBytes { flushLocked() }
        }
    }

    /// Writes the `Summary` line and what is left, closes the file and gives it its name;
    /// throws what went wrong writing it, if anything did (the partial file is removed).
    public func finish(with report: ScenarioReport) throws {
        let summary = (try? report.json(pretty: false)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try lock.withLock {
            guard !ended else { return }
            ended = true
            let dropped = droppedPoints > 0 ? ",\"points_dropped\":\(droppedPoints)" : ""
            buffer.append(contentsOf: "{\"data\":\(summary)\(dropped),\"type\":\"Summary\"}\n".utf8)
            flushLocked()
            try? handle.close()
            guard let partialPath else {
                if let failure { throw Problem(message: "--out json: cannot write to standard output: \(failure)") }
                return
            }
            if failure == nil, rename(partialPath, path) != 0 { failure = String(cString: strerror(errno)) }
            if let failure {
                unlink(partialPath)
                throw Problem(message: "--out json: cannot write '\(path)': \(failure)")
            }
        }
    }

    /// The run did not get through: the partial file is removed, and a `FILE` of an
    /// earlier run stays as it was.
    public func abandon() {
        lock.withLock {
            guard !ended else { return }
            ended = true
            try? handle.close()
            if let partialPath { unlink(partialPath) }
        }
    }

    private func flushLocked() {
        guard failure == nil, !buffer.isEmpty else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        do { try handle.write(contentsOf: buffer) } catch { failure = "\(error.localizedDescription)" }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Small pieces of JSON text written by hand where speed matters (a line per sample).
enum JSONText {
    /// A JSON string literal of `text` (``LuaJSON/writeString(_:into:)``).
    static func string(_ text: String) -> String {
        var result = ""
        LuaJSON.writeString(text, into: &result)
        return result
    }

    /// `4`, `0.0042`, `1e-05`; JSON has no infinities, which read as null.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// RFC 3339 in UTC with microseconds: `2026-12-02T04:31:33.538120Z`.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let micros = Int(((seconds - Double(whole)) * 1_000_000).rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), min(micros, 999_999))
    }
}
