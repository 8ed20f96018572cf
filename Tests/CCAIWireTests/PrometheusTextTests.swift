import CCAIWire
import Testing

@Suite struct PrometheusTextTests {
    @Test func namesLabelsAndValuesCannotBreakALine() {
        var text = PrometheusText()
        text.family("ccai_queue-wait.seconds", .gauge, help: "a help\nwith a line feed and a \\")
        text.sample("ccai_queue-wait.seconds", labels: [("queue name", "say \"hi\"\n\\ back"), ("__name__", "x"), ("9lives", "")], 1.5)
        #expect(text.body == """
            # HELP ccai_queue_wait_seconds a help\\nwith a line feed and a \\\\
            # TYPE ccai_queue_wait_seconds gauge
            ccai_queue_wait_seconds{queue_name="say \\"hi\\"\\n\\\\ back",tag__name__="x",_lives=""} 1.5

            """)
    }

    @Test func numbersAreSpelledAsTheFormatReadsThem() {
        #expect(PrometheusText.number(3) == "3")
        #expect(PrometheusText.number(-0.25) == "-0.25")
        #expect(PrometheusText.number(.nan) == "NaN")
        #expect(PrometheusText.number(.infinity) == "+Inf")
        #expect(PrometheusText.number(-.infinity) == "-Inf")
        #expect(Double(PrometheusText.number(1e20)) == 1e20, "past Int64's exact range: not an integer cast")
        #expect(Double(PrometheusText.number(0.00005)) == 0.00005)
    }

    @Test func aHistogramsBucketsAreCumulative() {
        var histogram = LatencyHistogram()
        for seconds in [0.00001, 0.003, 0.003, 0.2, 60, -1, .nan] { histogram.observe(seconds) }
        var text = PrometheusText()
        histogram.write(into: &text, name: "h", labels: [("route", "GET /x")])
        let lines = text.body.split(separator: "\n")
        #expect(lines.first == #"h_bucket{route="GET /x",le="5e-05"} 3"#, "10 µs, and the negative and NaN ones as 0")
        #expect(lines.contains(#"h_bucket{route="GET /x",le="0.005"} 5"#))
        #expect(lines.contains(#"h_bucket{route="GET /x",le="10"} 6"#))
        #expect(lines.contains(#"h_bucket{route="GET /x",le="+Inf"} 7"#), "a minute is past every bound but +Inf")
        #expect(lines.contains(#"h_count{route="GET /x"} 7"#))
        var merged = histogram
        merged.merge(histogram)
        #expect(merged.count == 14 && merged.buckets == histogram.buckets.map { $0 * 2 })
    }
}
