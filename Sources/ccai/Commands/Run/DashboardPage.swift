/// The dashboard's page, script and styles (``Dashboard``): served by the binary, nothing
/// loaded from elsewhere. The script builds every element with `textContent`, never
/// markup, so a check name or an error a script made is shown as the text it is.
enum DashboardPage {
    /// The page, carrying the token its changes are sent with.
    static func html(token: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="\(token)">
        <title>ccai run: live</title>
        <link rel="stylesheet" href="/dashboard.css">
        <script src="/dashboard.js" defer></script>
        </head>
        <body>
        <header>
          <h1>ccai run <span id="state" role="status" aria-live="polite">connecting</span></h1>
          <div class="controls">
            <button id="pause" type="button">Pause</button>
            <button id="resume" type="button">Resume</button>
            <button id="stop" type="button">Stop</button>
            <span id="message" role="alert"></span>
          </div>
        </header>
        <section class="figures" aria-label="Figures">
          <div><span class="label">Time</span><span id="elapsed" class="value">0 s</span></div>
          <div><span class="label">VUs</span><span id="vus" class="value" aria-label="VUs">0</span></div>
          <div><span class="label">Iterations</span><span id="iterations" class="value" aria-label="Iterations">0</span></div>
          <div><span class="label">Failed</span><span id="failed" class="value" aria-label="Failed iterations">0</span></div>
          <div><span class="label">Dropped</span><span id="dropped" class="value" aria-label="Dropped iterations">0</span></div>
          <div><span class="label">Checks</span><span id="checks-figure" class="value" aria-label="Checks">0 / 0</span></div>
        </section>
        <section id="scenarios" aria-label="Scenarios"></section>
        <section class="charts">
          <figure><figcaption>VUs</figcaption><svg id="chart-vus" viewBox="0 0 400 120" role="img" aria-label="VUs over time"></svg></figure>
          <figure><figcaption>Iterations and failures a second</figcaption><svg id="chart-rate" viewBox="0 0 400 120" role="img" aria-label="Iterations a second"></svg></figure>
          <figure><figcaption>Message round trip p50 and p95 (s)</figcaption><svg id="chart-round-trip" viewBox="0 0 400 120" role="img" aria-label="Round trip"></svg></figure>
          <figure><figcaption>Chat wait p50 and p95 (s)</figcaption><svg id="chart-wait" viewBox="0 0 400 120" role="img" aria-label="Chat wait"></svg></figure>
        </section>
        <section><h2>Thresholds</h2><table id="thresholds"><thead><tr><th>Metric</th><th>Threshold</th><th>Now</th><th>Holds</th></tr></thead><tbody></tbody></table></section>
        <section><h2>Latency (whole run)</h2><table id="trends"><thead><tr><th>Metric</th><th>Count</th><th>p50</th><th>p95</th><th>Max</th></tr></thead><tbody></tbody></table></section>
        <section><h2>SDK calls</h2><table id="methods"><thead><tr><th>Type</th><th>Name</th><th>Calls</th><th>Failures</th><th>p50</th><th>p95</th><th>p99</th><th>Max</th><th>Calls/s</th></tr></thead><tbody></tbody></table></section>
        <section><h2>Checks</h2><table id="checks"><thead><tr><th>Check</th><th>Passes</th><th>Fails</th></tr></thead><tbody></tbody></table></section>
        <section><h2>Top errors</h2><table id="errors"><thead><tr><th>Error</th><th>Count</th></tr></thead><tbody></tbody></table></section>
        <footer id="ending" hidden><span id="ending-text"></span> <a id="report" download="ccai-report.html" hidden>Download the HTML report</a></footer>
        </body>
        </html>
        """
    }

    static let styles = """
        [hidden] { display: none !important; }
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #202124; }
        header { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 1em; }
        h1 { font-size: 1.3em; } h2 { font-size: 1.05em; margin: 1.2em 0 .4em; }
        #state { font-size: .8em; padding: .1em .5em; border-radius: .3em; background: #e8f0fe; }
        #state.paused, #state.stopping { background: #fef7e0; } #state.ended { background: #e6f4ea; }
        button { font: inherit; padding: .3em .9em; margin-right: .3em; }
        #message { color: #c5221f; margin-left: .5em; }
        .figures { display: flex; flex-wrap: wrap; gap: 1.5em; }
        .figures div { display: flex; flex-direction: column; }
        .label { color: #5f6368; font-size: .85em; } .value { font-size: 1.5em; font-variant-numeric: tabular-nums; }
        #scenarios { margin-top: 1em; display: flex; flex-wrap: wrap; gap: 1em; }
        #scenarios fieldset { border: 1px solid #dadce0; border-radius: .3em; }
        #scenarios input { width: 7em; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 1em; margin-top: 1em; }
        figure { margin: 0; } figcaption { color: #5f6368; font-size: .9em; }
        svg { width: 100%; height: auto; background: #fafafa; border: 1px solid #eee; }
        svg .line-a { stroke: #1a73e8; fill: none; stroke-width: 1.5; } svg .line-b { stroke: #c5221f; fill: none; stroke-width: 1.5; }
        svg text { font-size: 10px; fill: #5f6368; }
        table { border-collapse: collapse; } th, td { padding: .2em .7em; text-align: left; border-bottom: 1px solid #eee; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        tr.holds td:last-child { color: #137333; } tr.fails td:last-child { color: #c5221f; font-weight: bold; }
        footer { margin-top: 2em; font-size: 1.1em; }
        """

    static let script = #"""
        "use strict";
        (function () {
          const token = document.querySelector('meta[name="csrf-token"]').content;
          const $ = (id) => document.getElementById(id);
          let ended = false;

          function seconds(value) {
            if (value === null || value === undefined) return "-";
            return value < 1 ? (value * 1000).toFixed(1) + " ms" : value.toFixed(2) + " s";
          }

          function cell(row, text, number) {
            const td = document.createElement("td");
            td.textContent = text;
            if (number) td.className = "number";
            row.appendChild(td);
          }

          function fill(id, rows, build) {
            const body = $(id).tBodies[0];
            body.replaceChildren();
            for (const item of rows) {
              const row = document.createElement("tr");
              build(row, item);
              body.appendChild(row);
            }
          }

          function chart(id, points, lines) {
            const svg = $(id);
            svg.replaceChildren();
            const width = 400, height = 120, top = 12;
            const values = [];
            for (const line of lines) for (const point of points) if (point[line.key] != null) values.push(point[line.key]);
            const most = Math.max(1e-9, ...values);
            const first = points.length ? points[0].seconds : 0, last = points.length ? points[points.length - 1].seconds : 1;
            const span = Math.max(1, last - first);
            const ns = "http://www.w3.org/2000/svg";
            for (const line of lines) {
              let d = "";
              for (const point of points) {
                const value = point[line.key];
                if (value == null) continue;
                const x = ((point.seconds - first) / span) * (width - 4) + 2;
                const y = height - 2 - (value / most) * (height - top - 4);
                d += (d ? " L" : "M") + x.toFixed(1) + " " + y.toFixed(1);
              }
              if (!d) continue;
              const path = document.createElementNS(ns, "path");
              path.setAttribute("d", d);
              path.setAttribute("class", line.style);
              svg.appendChild(path);
            }
            const label = document.createElementNS(ns, "text");
            label.setAttribute("x", "4");
            label.setAttribute("y", "10");
            label.textContent = values.length ? "max " + (Math.round(most * 1000) / 1000) : "no data yet";
            svg.appendChild(label);
          }

          function scenarios(update) {
            const box = $("scenarios");
            // A field being edited is not redrawn under the person's hands.
            if (document.activeElement && document.activeElement.tagName === "INPUT" && box.contains(document.activeElement)) return;
            box.replaceChildren();
            for (const scenario of update.scenarios) {
              const set = document.createElement("fieldset");
              const legend = document.createElement("legend");
              legend.textContent = scenario.name;
              set.appendChild(legend);
              const input = document.createElement("input");
              input.type = "number";
              input.min = "0";
              const label = document.createElement("label");
              if (scenario.model === "arrival") {
                label.textContent = "Rate (per " + scenario.time_unit + " s) ";
                input.setAttribute("aria-label", "Rate of " + scenario.name);
                input.step = "any";
                input.value = String(Math.round(scenario.rate * 100) / 100);
              } else {
                label.textContent = "VU target (of " + scenario.planned_vus + ") ";
                input.setAttribute("aria-label", "VU target of " + scenario.name);
                input.max = String(scenario.planned_vus);
                input.value = String(scenario.vu_target == null ? scenario.planned_vus : scenario.vu_target);
              }
              label.appendChild(input);
              const button = document.createElement("button");
              button.type = "button";
              button.textContent = "Set";
              button.setAttribute("aria-label", "Set " + (scenario.model === "arrival" ? "rate" : "VU target") + " of " + scenario.name);
              button.disabled = !update.controls || ended;
              button.addEventListener("click", async () => {
                const text = input.value.trim();
                if (text === "" || !Number.isFinite(Number(text))) {
                  $("message").textContent = (scenario.model === "arrival" ? "a rate" : "a VU target") + " is a number";
                  return;
                }
                await post(scenario.model === "arrival" ? "rate" : "vus", { scenario: scenario.name, value: Number(text) });
                button.blur();
              });
              set.appendChild(label);
              set.appendChild(button);
              box.appendChild(set);
            }
          }

          function render(update) {
            const state = $("state");
            state.textContent = update.state;
            state.className = update.state;
            $("elapsed").textContent = (update.simulated_time ? update.simulated_time + " (simulated), " : "")
              + Math.round(update.elapsed_seconds) + " s";
            $("vus").textContent = String(update.vus);
            $("iterations").textContent = String(update.iterations);
            $("failed").textContent = String(update.failed_iterations);
            $("dropped").textContent = String(update.dropped_iterations);
            $("checks-figure").textContent = update.checks_passed + " / " + (update.checks_passed + update.checks_failed);
            $("pause").disabled = !update.controls || update.state !== "running";
            $("resume").disabled = !update.controls || update.state !== "paused";
            $("stop").disabled = update.state === "ended";
            chart("chart-vus", update.series, [{ key: "vus", style: "line-a" }]);
            chart("chart-rate", update.series, [{ key: "iterations_per_second", style: "line-a" },
                                                { key: "failures_per_second", style: "line-b" }]);
            chart("chart-round-trip", update.series, [{ key: "round_trip_p50", style: "line-a" }, { key: "round_trip_p95", style: "line-b" }]);
            chart("chart-wait", update.series, [{ key: "chat_wait_p50", style: "line-a" }, { key: "chat_wait_p95", style: "line-b" }]);
            fill("thresholds", update.thresholds, (row, t) => {
              row.className = t.holds ? "holds" : "fails";
              cell(row, t.metric); cell(row, t.expression); cell(row, t.observed == null ? "-" : String(Math.round(t.observed * 1000) / 1000), true);
              cell(row, t.holds ? "yes" : "no");
            });
            fill("trends", update.trends, (row, t) => {
              cell(row, t.metric); cell(row, String(t.count), true); cell(row, seconds(t.p50), true); cell(row, seconds(t.p95), true);
              cell(row, seconds(t.max), true);
            });
            fill("methods", update.methods, (row, m) => {
              cell(row, m.service); cell(row, m.method); cell(row, String(m.calls), true); cell(row, String(m.failures), true);
              cell(row, seconds(m.p50), true); cell(row, seconds(m.p95), true); cell(row, seconds(m.p99), true); cell(row, seconds(m.max), true);
              cell(row, m.per_second.toFixed(2), true);
            });
            fill("checks", update.checks, (row, c) => { cell(row, c.name); cell(row, String(c.passes), true); cell(row, String(c.fails), true); });
            fill("errors", update.errors, (row, e) => { cell(row, e.message); cell(row, String(e.count), true); });
            scenarios(update);
          }

          async function post(action, body) {
            $("message").textContent = "";
            try {
              const response = await fetch("/api/" + action, {
                method: "POST",
                headers: { "X-CSRF-Token": token, "Content-Type": "application/json" },
                body: body ? JSON.stringify(body) : "",
              });
              if (!response.ok) {
                const text = await response.text();
                let message = text;
                try {
                  const parsed = JSON.parse(text);
                  message = (parsed.error && parsed.error.message) || parsed.message || text;
                } catch (error) { /* not JSON */ }
                $("message").textContent = message;
              }
            } catch (error) {
              $("message").textContent = "the run does not answer: " + error;
            }
          }

          $("pause").addEventListener("click", () => post("pause"));
          $("resume").addEventListener("click", () => post("resume"));
          $("stop").addEventListener("click", () => post("stop"));

          const events = new EventSource("/events");
          events.addEventListener("update", (event) => render(JSON.parse(event.data)));
          events.addEventListener("ended", (event) => {
            ended = true;
            events.close();
            const ending = JSON.parse(event.data);
            $("ending").hidden = false;
            $("ending-text").textContent = "The run ended with exit status " + ending.exit_status + ".";
            for (const id of ["pause", "resume", "stop"]) $(id).disabled = true;
            for (const control of $("scenarios").querySelectorAll("input, button")) control.disabled = true;
            if (ending.report) {
              const link = $("report");
              link.href = URL.createObjectURL(new Blob([ending.report], { type: "text/html" }));
              link.hidden = false;
            }
          });
          events.onerror = () => { if (!ended) $("state").textContent = "reconnecting"; };
        })();
        """#
}
