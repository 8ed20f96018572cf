import Foundation

/// `--out html=FILE`: one self-contained page (no script, no outside asset) with the run's
/// facts (its date, seed, version, options and script: ``RunFacts``), its summary (the
/// thresholds, the checks, every metric with its tagged sub-metrics, Locust's stats table
/// of the SDK calls, the errors) and charts over time of the VUs, the iterations per second
/// with the failures, and the percentiles of the message round trips and first responses,
/// drawn as inline SVG; a run in virtual time shows its simulated clock's times on them.
///
/// ```swift
/// let page = HTMLReport.page(snapshot, options: options, elapsed: 60, name: "load.lua", run: facts)
/// try Data(page.utf8).write(to: URL(fileURLWithPath: "report.html"))
/// ```
public enum HTMLReport {
    /// The colour of the page's header band (a test reads it back off a screenshot).
    public static let headerColour = (red: 0x12, green: 0x3C, blue: 0x69)

    public static func page(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double, name: String,
                            abortedBy: Threshold? = nil, run: RunFacts? = nil) -> String {
        let results = options.thresholds.map { ($0, $0.evaluate(snapshot, elapsed: elapsed)) }
        let failedChecks = snapshot.checks.filter { $0.fails > 0 }.count
        let passed = results.allSatisfy(\.1.holds) && abortedBy == nil
        let header = String(format: "#%02x%02x%02x", headerColour.red, headerColour.green, headerColour.blue)
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>ccai run: \(MarkupText.escaped(name))</title>
            <style>
            body{margin:0;font:14px/1.45 "DejaVu Sans",sans-serif;color:#1d232b;background:#f4f6f8}
            header{background:\(header);color:#fff;padding:18px 28px}
            header h1{margin:0;font-size:22px;font-weight:600}
            .badge{display:inline-block;margin-left:12px;padding:2px 10px;border-radius:10px;font-size:14px;vertical-align:middle}
            .pass{background:#1e8e3e}.fail{background:#c5221f}
            main{padding:8px 28px 28px}
            .facts{display:flex;gap:14px;flex-wrap:wrap;margin:16px 0}
            .fact{background:#fff;border-radius:6px;padding:10px 16px;box-shadow:0 1px 2px #0002}
            .fact b{display:block;font-size:20px}
            section{background:#fff;border-radius:6px;padding:12px 18px;margin:14px 0;box-shadow:0 1px 2px #0002}
            h2{font-size:16px;margin:4px 0 10px}
            table{border-collapse:collapse;width:100%}
            td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #e3e7eb;vertical-align:top}
            th{font-weight:600;color:#4a5561}
            .ok{color:#1e8e3e}.ko{color:#c5221f}
            .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:14px}
            svg text{font:11px "DejaVu Sans",sans-serif;fill:#4a5561}
            code,pre{font:12px "DejaVu Sans Mono",monospace}
            pre{white-space:pre-wrap;background:#f4f6f8;padding:8px;border-radius:4px}
            td.n{text-align:right}.sub td:first-child{padding-left:24px}
            </style></head><body>
            <header><h1>ccai run: \(MarkupText.escaped(name))<span class="badge \(passed ? "pass" : "fail")">\(passed ? "thresholds held" : "thresholds failed")</span></h1></header>
            <main>
            <div class="facts">
            """
        let vus = snapshot.metric(.vus).total
        let started = run.map { [("started", $0.startedAt + ($0.virtualTime ? " (simulated)" : ""))] } ?? []
        let seed = options.seed.map { [("seed", "\($0)")] } ?? []
        let facts = started + seed + [("elapsed", ScenarioSummary.duration(elapsed)), ("iterations", "\(snapshot.iterations)"),
                     ("failed iterations", "\(snapshot.failedIterations)"), ("most VUs", vus.count > 0 ? ScenarioSummary.number(vus.max) : "0"),
                     ("checks failed", "\(failedChecks) of \(snapshot.checks.count)")]
        for (label, value) in facts { html += "<div class=\"fact\">\(label)<b>\(MarkupText.escaped(value))</b></div>\n" }
        html += "</div>\n"
        html += thresholdsSection(results, abortedBy: abortedBy) + checksSection(snapshot.checks)
        let zone = run?.timeZone.flatMap(TimeZone.init(identifier:)) ?? .gmt
        let clockTimes = run?.virtualTime ?? options.virtualTime ? zone : nil
        html += "<section><h2>Over time" + (clockTimes.map { " (the simulated clock, \(MarkupText.escaped($0.identifier)))" } ?? "")
            + "</h2><div class=\"charts\">\n" + charts(snapshot.timeline, clockTimes: clockTimes) + "</div></section>\n"
        html += metricsSection(snapshot, thresholds: options.thresholds, elapsed: elapsed)
        html += methodsSection(MethodStats.table(snapshot), elapsed: elapsed) + errorsSection(snapshot.errors)
        html += run.map(runSection) ?? ""
        return html + "</main></body></html>\n"
    }

    private static func thresholdsSection(_ results: [(Threshold, (holds: Bool, observed: Double))], abortedBy: Threshold?) -> String {
        guard !results.isEmpty else { return "" }
        var html = "<section><h2>Thresholds</h2><table><tr><th></th><th>metric</th><th>threshold</th><th>value</th></tr>\n"
        for (threshold, result) in results {
            let value = "\(threshold.aggregation)=" + ScenarioSummary.shown(result.observed, of: threshold)
            html += "<tr><td>\(mark(result.holds))</td><td><code>\(MarkupText.escaped(threshold.metric))</code></td>"
                + "<td><code>\(MarkupText.escaped(threshold.source))</code>" + (abortedBy == threshold ? " (aborted the run)" : "")
                + "</td><td>\(MarkupText.escaped(value))</td></tr>\n"
        }
        return html + "</table></section>\n"
    }

    private static func checksSection(_ checks: [ScenarioMetrics.Check]) -> String {
        guard !checks.isEmpty else { return "" }
        var html = "<section><h2>Checks</h2><table><tr><th></th><th>check</th><th>passed</th><th>failed</th></tr>\n"
        for check in checks {
            html += "<tr><td>\(mark(check.fails == 0))</td><td>\(MarkupText.escaped(check.name))</td><td>\(check.passes)</td>"
                + "<td>\(check.fails)</td></tr>\n"
        }
        return html + "</table></section>\n"
    }

    /// Every metric with samples, each followed by its tagged sub-metrics: those the
    /// thresholds name, then (folded) every tag set it recorded.
    private static func metricsSection(_ snapshot: ScenarioMetrics.Snapshot, thresholds: [Threshold], elapsed: Double) -> String {
        func values(_ series: Metric.Series, _ metric: Metric) -> String {
            let values = ScenarioReport.values(of: series, kind: metric.kind, elapsed: elapsed).sorted { $0.key < $1.key }
                .map { "\($0.key)=" + ScenarioSummary.shown($0.value, aggregation: $0.key, kind: metric.kind, metric: metric.name) }
            return MarkupText.escaped(values.joined(separator: "  "))
        }
        var html = "<section><h2>Metrics</h2><table><tr><th>metric</th><th>kind</th><th>values</th></tr>\n"
        for metric in snapshot.metrics.sorted(by: { $0.name < $1.name }) where metric.total.count > 0 {
            html += "<tr><td><code>\(MarkupText.escaped(metric.name))</code></td><td>\(metric.kind.rawValue)</td>"
                + "<td>\(values(metric.total, metric))</td></tr>\n"
            var named = Set<String>()
            for threshold in thresholds where threshold.metricName == metric.name && !threshold.tags.isEmpty
                && named.insert(Metric.key(threshold.tags)).inserted {
                html += "<tr class=\"sub\"><td><code>{\(MarkupText.escaped(Metric.key(threshold.tags)))}</code></td><td></td>"
                    + "<td>\(values(metric.matching(threshold.tags), metric))</td></tr>\n"
            }
            let tagged = metric.series.filter { !$0.key.isEmpty && $0.value.count > 0 }.sorted { $0.key < $1.key }
            guard !tagged.isEmpty else { continue }
            html += "<tr class=\"sub\"><td colspan=\"3\"><details><summary>\(tagged.count) tag set\(tagged.count == 1 ? "" : "s")</summary><table>\n"
            for (key, series) in tagged {
                html += "<tr><td><code>{\(MarkupText.escaped(key))}</code></td><td>\(values(series, metric))</td></tr>\n"
            }
            html += "</table></details></td></tr>\n"
        }
        return html + "</table></section>\n"
    }

    /// Locust's stats table.
    private static func methodsSection(_ rows: [MethodStats], elapsed: Double) -> String {
        guard !rows.isEmpty else { return "" }
        var html = "<section><h2>SDK calls by method</h2><table><tr><th>type</th><th>name</th><th>calls</th><th>failures</th>"
            + "<th>p(50)</th><th>p(95)</th><th>p(99)</th><th>max</th><th>calls/s</th></tr>\n"
        for row in rows {
            let digest = row.figures.seconds
            let figures = ["\(row.figures.calls)", "\(row.figures.failures)", ScenarioSummary.duration(digest.percentile(50)),
                           ScenarioSummary.duration(digest.percentile(95)), ScenarioSummary.duration(digest.percentile(99)),
                           ScenarioSummary.duration(digest.count > 0 ? digest.max : 0),
                           String(format: "%.2f", row.callsPerSecond(over: elapsed))]
            html += "<tr><td>\(MarkupText.escaped(row.type))</td><td><code>\(MarkupText.escaped(row.name))</code></td>"
                + figures.map { "<td class=\"n\">\($0)</td>" }.joined() + "</tr>\n"
        }
        return html + "</table></section>\n"
    }

    private static func errorsSection(_ errors: [ScenarioMetrics.ErrorCount]) -> String {
        guard !errors.isEmpty else { return "" }
        var html = "<section><h2>Errors that failed iterations</h2><table><tr><th>count</th><th>error</th></tr>\n"
        for error in errors { html += "<tr><td>\(error.count)</td><td><code>\(MarkupText.escaped(error.message))</code></td></tr>\n" }
        return html + "</table></section>\n"
    }

    /// The run's version and options, what was changed from the dashboard, and its script (folded).
    private static func runSection(_ run: RunFacts) -> String {
        let facts = [("version", run.version)] + run.options.sorted { $0.key < $1.key }.map { ("options.\($0.key)", $0.value) }
        var html = "<section><h2>Run</h2><table>\n"
        for (name, value) in facts {
            html += "<tr><th>\(MarkupText.escaped(name))</th><td><code>\(MarkupText.escaped(value))</code></td></tr>\n"
        }
        html += "</table>\n"
        if let changes = run.liveChanges {
            html += "<p>Changed from the dashboard while it ran:</p><ul>\n"
            for change in changes { html += "<li>\(MarkupText.escaped(change))</li>\n" }
            html += "</ul>\n"
        }
        if let script = run.scriptText {
            html += "<details><summary>the script</summary><pre>\(MarkupText.escaped(script))</pre></details>\n"
        }
        return html + "</section>\n"
    }

    private static func mark(_ holds: Bool) -> String {
        holds ? "<span class=\"ok\">✓</span>" : "<span class=\"ko\">✗</span>"
    }

    /// The charts of the timeline; with `clockTimes`, their time axes show the clock's
    /// times of day in that time zone rather than the seconds since the start.
    static func charts(_ timeline: Timeline, clockTimes: TimeZone? = nil) -> String {
        let step = timeline.sliceSeconds
        let origin = clockTimes.flatMap { zone in timeline.origin.map { (date: $0, zone: zone) } }
        func points(_ value: (Timeline.Slice) -> Double?) -> [(Double, Double)] {
            timeline.slices.enumerated().compactMap { index, slice in value(slice).map { (Double(index) * step, $0) } }
        }
        func percentile(_ digest: (Timeline.Slice) -> TrendDigest, _ percent: Double) -> [(Double, Double)] {
            points { digest($0).count > 0 ? digest($0).percentile(percent) : nil }
        }
        var charts = [
            SVGChart(title: "VUs", origin: origin, unit: .count, lines: [("vus", "#1a73e8", points(\.vus))]),
            SVGChart(title: "Iterations per second", origin: origin, unit: .count, lines: [
                ("ended", "#1a73e8", points { Double($0.iterations) / step }),
                ("failed", "#c5221f", points { Double($0.failedIterations) / step }),
            ]),
            SVGChart(title: "Message round trip", origin: origin, unit: .seconds, lines: [
                ("p(50)", "#1a73e8", percentile(\.roundTrip, 50)), ("p(95)", "#e37400", percentile(\.roundTrip, 95)),
            ]),
            SVGChart(title: "First response", origin: origin, unit: .seconds, lines: [
                ("p(50)", "#1a73e8", percentile(\.firstResponse, 50)), ("p(95)", "#e37400", percentile(\.firstResponse, 95)),
            ]),
            SVGChart(title: "Chat wait", origin: origin, unit: .seconds, lines: [
                ("p(50)", "#1a73e8", percentile(\.chatWait, 50)), ("p(80)", "#e37400", percentile(\.chatWait, 80)),
            ]),
        ]
        // The embedded sandbox's queue and agents (none against a remote platform).
        if timeline.slices.contains(where: { $0.queueLength != nil }) {
            charts.append(SVGChart(title: "Queue and agents", origin: origin, unit: .count, lines: [
                ("queue_length", "#c5221f", points(\.queueLength)), ("agents_busy", "#1a73e8", points(\.agentsBusy)),
            ]))
        }
        return charts.map(\.svg).joined(separator: "\n")
    }
}

/// A line chart as inline SVG: axes with round ticks, one polyline per series, a legend.
struct SVGChart {
    enum Unit { case count, seconds }

    var title: String
    /// The clock time of the time axis' 0 and the zone of its labels, which are then
    /// times of day; nil: they are durations since the start.
    var origin: (date: Date, zone: TimeZone)?
    var unit: Unit
    var lines: [(name: String, colour: String, points: [(Double, Double)])]

    static let width = 560.0, height = 240.0
    static let left = 56.0, right = 16.0, top = 30.0, bottom = 34.0

    var svg: String {
        let all = lines.flatMap(\.points)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(Self.height))\" "
            + "viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(MarkupText.escaped(title))\">"
        out += "<text x=\"\(Self.left)\" y=\"18\" style=\"font-size:13px;font-weight:600;fill:#1d232b\">\(MarkupText.escaped(title))</text>"
        let plotWidth = Self.width - Self.left - Self.right, plotHeight = Self.height - Self.top - Self.bottom
        guard !all.isEmpty else {
            out += "<rect x=\"\(Self.left)\" y=\"\(Self.top)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"#f4f6f8\"/>"
            out += "<text x=\"\(Self.left + plotWidth / 2 - 30)\" y=\"\(Self.top + plotHeight / 2)\">no samples</text></svg>"
            return out
        }
        let maxX = max(1, all.map(\.0).max()!), yTicks = Self.ticks(upTo: max(all.map(\.1).max()!, unit == .count ? 1 : 0.001))
        let maxY = yTicks.last!
        func x(_ value: Double) -> Double { Self.left + value / maxX * plotWidth }
        func y(_ value: Double) -> Double { Self.top + plotHeight - value / maxY * plotHeight }
        for tick in yTicks {
            out += "<line x1=\"\(Self.left)\" x2=\"\(Self.left + plotWidth)\" y1=\"\(y(tick))\" y2=\"\(y(tick))\" stroke=\"#e3e7eb\"/>"
            let label = unit == .seconds ? ScenarioSummary.duration(tick) : ScenarioSummary.number(tick)
            out += "<text x=\"\(Self.left - 6)\" y=\"\(y(tick) + 4)\" text-anchor=\"end\">\(label)</text>"
        }
        for tick in Self.ticks(upTo: maxX) where tick <= maxX {
            // A label at the right edge ends there rather than overflowing it.
            let anchor = x(tick) > Self.left + plotWidth - 24 ? "end" : "middle"
            out += "<text x=\"\(x(tick))\" y=\"\(Self.top + plotHeight + 16)\" text-anchor=\"\(anchor)\">\(timeLabel(tick))</text>"
        }
        out += "<line x1=\"\(Self.left)\" x2=\"\(Self.left)\" y1=\"\(Self.top)\" y2=\"\(Self.top + plotHeight)\" stroke=\"#8a949e\"/>"
        out += "<line x1=\"\(Self.left)\" x2=\"\(Self.left + plotWidth)\" y1=\"\(Self.top + plotHeight)\" y2=\"\(Self.top + plotHeight)\" stroke=\"#8a949e\"/>"
        var legend = Self.left + plotWidth
        for line in lines.reversed() {
            legend -= 14 + Double(line.name.count) * 7 + 10
            out += "<rect x=\"\(legend)\" y=\"9\" width=\"10\" height=\"10\" fill=\"\(line.colour)\"/>"
            out += "<text x=\"\(legend + 14)\" y=\"18\">\(MarkupText.escaped(line.name))</text>"
            guard !line.points.isEmpty else { continue }
            let path = line.points.map { String(format: "%.1f,%.1f", x($0.0), y($0.1)) }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(line.colour)\" stroke-width=\"2\" points=\"\(path)\"/>"
            // Few points are marked too: one alone draws no line.
            if line.points.count <= 60 {
                for point in line.points {
                    out += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" ", x(point.0), y(point.1)) + "fill=\"\(line.colour)\"/>"
                }
            }
        }
        return out + "</svg>"
    }

    /// A time axis' label: the clock's time of day at `seconds` past the origin, or the
    /// duration since the start.
    func timeLabel(_ seconds: Double) -> String {
        guard let origin else { return ScenarioSummary.duration(seconds) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = origin.zone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: origin.date.addingTimeInterval(seconds))
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// Round tick values from 0 to at least `top`: steps of 1, 2 or 5 times a power of ten.
    static func ticks(upTo top: Double) -> [Double] {
        guard top.isFinite, top > 0 else { return [0, 1] }
        let rough = top / 4
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let count = Int((top / step).rounded(.up))
        return (0...max(1, count)).map { Double($0) * step }
    }
}
