import CCAIKit
import CCAIScripting
import CCAIWire
import Foundation

/// The figures of issue 18, measured on the real `ccai` binary (built beside this one:
/// `swift build -c release`), as users run it:
///
/// - `vu_memory_bytes_N`: RSS growth per VU while N VUs each hold a chat whose agent has
///   answered (`(RSS(N) - RSS(1)) / (N - 1)`), at 1,000 and 10,000 VUs;
/// - `vus_10000`: 10,000 VUs each start a chat, exchange 3 messages with an echoing agent
///   script and end it, the sandbox in the same process;
/// - `sandbox_throughput_ratio`: `wrk` (1 thread, 50 connections) on an authenticated
///   `GET /queue_menus` of a served sandbox, over the same against nginx serving the same
///   JSON as a static file, one after the other.
struct ScenarioBenchmarks {
    let folder: URL
    let binary: String

    init() throws {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("ccai").path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw BenchmarkFailure("the ccai binary is not beside ccai-bench (\(beside)): build both with swift build -c release")
        }
        binary = beside
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-scenarios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            return function(agent)
              while true do
                local message = agent.wait_for_message{ timeout = 600 }
                if message == nil then return end
                agent.send(message.text)
              end
            end
            """.write(to: folder.appendingPathComponent("echo.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "Bench", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Echo", channels = { chat = {} } } },
                     agents = { { name = "Echo", menus = { 1 }, script = "echo.lua" } },
                     limits = { requests_per_second = 1e9, burst = 1e9, chats_per_hour = 1000000 } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "Bench", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Echo", channels = { chat = {} } } },
                     limits = { requests_per_second = 1e9, burst = 1e9, chats_per_hour = 1000000 } }
            """.write(to: folder.appendingPathComponent("sandbox-no-agent.lua"), atomically: true, encoding: .utf8)
        // HOLD: each VU holds where STAGE says ("state": its state made, nothing asked of the
        // platform; "queued": its chat started and its event stream open; by default its
        // chat answered by the agent), prints "ready <vu>" and sleeps HOLD seconds.
        try """
            ccai.initialize_chat()
            -- A memory figure holds every VU, however long 10,000 first answers take.
            local patience = ccai.env.HOLD and 600 or 120
            local function echoed(text)
              ccai.chat.send_message(text)
              return ccai.chat.wait_for("messages_received", { timeout = patience, match = function(m) return m[1].sender.type == "agent" end })
            end
            return {
              options = { vus = 1 },
              run = function(ctx)
                if ccai.env.HOLD then
                  local stage = ccai.env.STAGE or "answered"
                  if stage ~= "state" then ccai.chat.start{ menu_id = 1 } end
                  if stage == "answered" then echoed("hello") end
                  print("ready " .. ctx.vu)
                  ccai.sleep(tonumber(ccai.env.HOLD))
                else
                  ccai.chat.start{ menu_id = 1 }
                  for i = 1, 3 do ccai.check(echoed("hello " .. i)[1].text == "hello " .. i, "echoed") end
                end
                ccai.chat.end_chat()
              end,
            }
            """.write(to: folder.appendingPathComponent("chats.lua"), atomically: true, encoding: .utf8)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }

    private var sandbox: String { folder.appendingPathComponent("sandbox.lua").path }
    private var chats: String { folder.appendingPathComponent("chats.lua").path }

    // MARK: - Memory per VU

    func vuMemory() async throws -> [BenchmarkResult] {
        let one = try await residentBytes(holding: 1)
        var results: [BenchmarkResult] = []
        for count in [1_000, 10_000] {
            let many = try await residentBytes(holding: count)
            let perVU = Double(many - one) / Double(count - 1)
            results.append(BenchmarkResult(
                name: "vu_memory_bytes_\(count)", value: perVU, target: "<= 98304",
                detail: String(format: "RSS %.0f MiB with %d VUs each in a chat the agent answered, %.0f MiB with 1; k6: 1-5 MB per VU",
                               Double(many) / 1_048_576, count, Double(one) / 1_048_576)))
        }
        return results
    }

    /// The names of ``vuParts()``'s figures.
    static let vuPartFigures = ["vu_part_state_bytes", "vu_part_chat_bytes", "vu_part_agent_bytes"]

    /// Where a VU's bytes go: the RSS per VU of 1,000 VUs held at three stages, each over
    /// the same with 1 VU, and the differences between stages. `vu_part_state_bytes`: a VU
    /// that has only its state (the file's top level run: its Lua state, the SDK instance
    /// not yet signed in, its metrics view); `vu_part_chat_bytes`: what a chat started and
    /// queued adds (the sign-in, the chat service and its event stream on the client's side;
    /// the end user, token, chat and its subscriber on the sandbox's), against a sandbox with
    /// no agent; `vu_part_agent_bytes`: what the agent's answer adds (the agent script's
    /// own state, its session, the messages sent and received).
    func vuParts() async throws -> [BenchmarkResult] {
        let count = 1_000
        func perVU(_ stage: String, sandbox: String) async throws -> Double {
            let one = try await residentBytes(holding: 1, stage: stage, sandbox: sandbox)
            let many = try await residentBytes(holding: count, stage: stage, sandbox: sandbox)
            return Double(many - one) / Double(count - 1)
        }
        let noAgent = folder.appendingPathComponent("sandbox-no-agent.lua").path
        let state = try await perVU("state", sandbox: noAgent)
        let queued = try await perVU("queued", sandbox: noAgent)
        let answered = try await perVU("answered", sandbox: sandbox)
        let how = "RSS per VU at \(count) VUs over 1 VU, ccai run with the sandbox in the process"
        return [
            BenchmarkResult(name: "vu_part_state_bytes", value: state, target: "-",
                            detail: "a VU holding its state only (top level run, nothing asked of the platform); \(how)"),
            BenchmarkResult(name: "vu_part_chat_bytes", value: queued - state, target: "-",
                            detail: String(format: "what a started chat adds, queued with no agent (sign-in, chat service, event "
                                           + "stream; the sandbox's end user, token, chat): %.0f - %.0f", queued, state)),
            BenchmarkResult(name: "vu_part_agent_bytes", value: answered - queued, target: "-",
                            detail: String(format: "what the agent's answer adds (its script's state and session, two messages): "
                                           + "%.0f - %.0f", answered, queued)),
        ]
    }

    /// The RSS of `ccai run` once `count` VUs each hold at `stage` (``vuParts()``).
    private func residentBytes(holding count: Int, stage: String = "answered", sandbox: String? = nil) async throws -> Int {
        let child = try ChildProcess(binary, ["run", chats, "--sandbox", sandbox ?? self.sandbox, "--vus", "\(count)", "--env", "HOLD=600",
                                              "--env", "STAGE=\(stage)", "--quiet"],
                                     output: .pipe, errors: .null)
        defer {
            child.terminate()
            child.wait()
        }
        let ready = try await Self.offThePool { () -> Bool in
            var seen = 0, line = Data()
            while seen < count, let byte = try child.standardOutput?.read(upToCount: 1), !byte.isEmpty {
                if byte == Data("\n".utf8) {
                    if line.starts(with: Data("ready ".utf8)) { seen += 1 }
                    line = Data()
                } else {
                    line.append(byte)
                }
            }
            return seen == count
        }
        guard ready else { throw BenchmarkFailure("ccai run ended before its \(count) VUs were held at '\(stage)'") }
        return Self.residentKilobytes(of: child.pid) * 1024
    }

    // MARK: - 10,000 VUs

    func tenThousandVUs() async throws -> [BenchmarkResult] {
        let summary = folder.appendingPathComponent("vus_10000.json").path
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try await ChildProcess.run(binary, ["run", chats, "--sandbox", sandbox, "--vus", "10000", "--quiet",
                                                         "--summary-out", summary], timeout: 1_800, errorsTo: .pipe)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard result.status == 0 else {
            throw BenchmarkFailure("10,000 VUs: exit \(result.status): \(String(decoding: result.errors.suffix(2_000), as: UTF8.self))")
        }
        let snapshot = try ScenarioReport.read(summary).snapshot()
        let trips = snapshot.metric(.messageRoundTrip).total.digest
        guard snapshot.failedIterations == 0 else {
            throw BenchmarkFailure("10,000 VUs: \(snapshot.failedIterations) of \(snapshot.iterations) iterations failed")
        }
        return [BenchmarkResult(
            name: "vus_10000", value: seconds, target: "<= 45",
            detail: String(format: "s wall: %d iterations, %d failed, %.0f iterations/s; round trip p50 %.0f ms, p95 %.0f ms; "
                           + "each VU a chat with 3 echoed messages, sandbox in the process",
                           snapshot.iterations, snapshot.failedIterations, Double(snapshot.iterations) / seconds,
                           trips.percentile(50) * 1000, trips.percentile(95) * 1000))]
    }

    // MARK: - A day in virtual time

    /// `virtual_day_speedup`: simulated seconds per wall second of examples/staffing's day
    /// (08:00 to 19:30, about 960 chats on 16 agents, CSATs, after-hours deflection), the
    /// whole `ccai run` process timed, start-up included.
    func virtualDaySpeedup() async throws -> [BenchmarkResult] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = root.appendingPathComponent("examples/staffing")
        let summary = folder.appendingPathComponent("virtual_day.json").path
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try await ChildProcess.run(binary, ["run", example.appendingPathComponent("day.lua").path,
                                                         "--sandbox", example.appendingPathComponent("sandbox.lua").path,
                                                         "--quiet", "--seed", "1", "--summary-out", summary],
                                                timeout: 600, errorsTo: .pipe)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard result.status == 0 else {
            throw BenchmarkFailure("the staffing day: exit \(result.status): \(String(decoding: result.errors.suffix(2_000), as: UTF8.self))")
        }
        let report = try ScenarioReport.read(summary)
        let simulated = report.elapsedSeconds
        let chats = try report.snapshot().metric(.chatWait).total.count
        return [BenchmarkResult(
            name: "virtual_day_speedup", value: simulated / seconds, target: ">= 1000",
            detail: String(format: "simulated s per wall s: %.1f simulated hours in %.1f s wall, %d chats taken "
                           + "(examples/staffing/day.lua, seed 1)", simulated / 3600, seconds, chats))]
    }

    // MARK: - A served sandbox against nginx

    func sandboxThroughputRatio() async throws -> [BenchmarkResult] {
        for tool in ["/usr/bin/wrk", "/usr/sbin/nginx"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchmarkFailure("\(tool) is missing: ./scripts/bootstrap bench installs wrk and nginx-light")
        }
        let server = try ChildProcess(binary, ["sandbox", "serve", "--config", sandbox, "--listen", "127.0.0.1:0"],
                                      output: .pipe, errors: .null)
        defer {
            server.terminate()
            server.wait()
        }
        let url = try await Self.offThePool { () -> String in
            var line = Data()
            while let byte = try server.standardOutput?.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
            return String(decoding: line, as: UTF8.self)
        }
        guard url.hasPrefix("http://127.0.0.1:") else { throw BenchmarkFailure("sandbox serve printed '\(url)'") }
        let http = HTTPClient()
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(["identifier": "bench-wrk"], issuedAt: Date(), lifetime: 3600)
        let signIn = try await http.send(HTTPClientRequest(method: "POST", url: url + "/auth/end_user", headers: ["Content-Type": "application/json"],
                                                           body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8)))
        let token = try JSONDecoder().decode(AuthResponse.self, from: signIn.body).authToken
        let menus = try await http.send(HTTPClientRequest(url: url + "/queue_menus", headers: ["Authorization": "Bearer \(token)"]))
        guard menus.status == 200 else { throw BenchmarkFailure("GET /queue_menus answered \(menus.status)") }

        let www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try menus.body.write(to: www.appendingPathComponent("queue_menus.json"))
        let port = try Self.freePort()
        let configuration = folder.appendingPathComponent("nginx.conf")
        try """
            worker_processes auto;
            daemon off;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/nginx-error.log;
            events { worker_connections 1024; }
            http {
              access_log off;
              client_body_temp_path \(folder.path)/body;
              proxy_temp_path \(folder.path)/proxy;
              fastcgi_temp_path \(folder.path)/fastcgi;
              uwsgi_temp_path \(folder.path)/uwsgi;
              scgi_temp_path \(folder.path)/scgi;
              server {
                listen 127.0.0.1:\(port);
                root \(www.path);
                location = /queue_menus { default_type application/json; try_files /queue_menus.json =404; }
              }
            }
            """.write(to: configuration, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let nginx = try ChildProcess("/usr/sbin/nginx", ["-c", configuration.path, "-p", folder.path], output: .null, errors: .null)
        defer {
            nginx.terminate()
            nginx.wait()
        }
        let nginxURL = "http://127.0.0.1:\(port)/queue_menus"
        for _ in 0..<100 {
            if (try? await http.send(HTTPClientRequest(url: nginxURL)))?.status == 200 { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let ours = try await Self.wrk(url + "/queue_menus", token: token)
        let theirs = try await Self.wrk(nginxURL, token: token)
        // The same again while a second process keeps one core busy (a shell spinning in
        // `while :; do :; done`, as another job on the machine would).
        let spinner = try ChildProcess("/bin/sh", ["-c", "while :; do :; done"], output: .null, errors: .null)
        defer {
            spinner.terminate()
            spinner.wait()
        }
        let oursBusy = try await Self.wrk(url + "/queue_menus", token: token)
        let theirsBusy = try await Self.wrk(nginxURL, token: token)
        return [
            BenchmarkResult(
                name: "sandbox_throughput_ratio", value: ours / theirs, target: ">= 0.5",
                detail: String(format: "authenticated GET /queue_menus: %.0f requests/s from ccai sandbox serve, %.0f from nginx "
                               + "(the same %d bytes as a static file); wrk -t1 -c50 -d10s, one after the other",
                               ours, theirs, menus.body.count)),
            BenchmarkResult(
                name: "sandbox_throughput_ratio_busy", value: oursBusy / theirsBusy, target: ">= 0.3",
                detail: String(format: "the same while a spinning shell keeps one core busy: %.0f from ccai, %.0f from nginx",
                               oursBusy, theirsBusy)),
        ]
    }

    /// Requests a second `wrk` measured (1 thread, 50 connections, 10 s; errors and non-2xx answers count as failures).
    static func wrk(_ url: String, token: String) async throws -> Double {
        let result = try await ChildProcess.run("/usr/bin/wrk", ["-t1", "-c50", "-d10s", "-H", "Authorization: Bearer \(token)", url],
                                                timeout: 60)
        let text = String(decoding: result.output, as: UTF8.self)
        if text.contains("Non-2xx or 3xx responses") { throw BenchmarkFailure("wrk got failures from \(url):\n\(text)") }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let value = Double(line.split(separator: " ").last ?? "")
        else { throw BenchmarkFailure("wrk printed no rate:\n\(text)") }
        return value
    }

    // MARK: - Against Locust

    /// The same chat flow (bench/locust/peer.lua and bench/locust/locustfile.py) against a
    /// fresh served sandbox each (bench/locust/sandbox.lua) at `users` users for `seconds`:
    /// ccai's memory per user and iterations per second over Locust's.
    func peerRatios(users: Int = 1_000, seconds: Int = 60) async throws -> [BenchmarkResult] {
        let root = FileManager.default.currentDirectoryPath
        let locust = root + "/.venv/bin/locust"
        guard FileManager.default.isExecutableFile(atPath: locust) else {
            throw BenchmarkFailure("\(locust) is missing: ./scripts/python-venv installs Locust (run ccai-bench from the package root)")
        }
        let config = root + "/bench/locust/sandbox.lua"
        let ours = try await peerRun(users: users, seconds: seconds, config: config) { url in
            ["run", root + "/bench/locust/peer.lua", "--host", url, "--company-key", "dev-key", "--company-secret", "dev-secret",
             "--vus", "\(users)", "--duration", "\(seconds)s", "--quiet", "--summary-out", folder.appendingPathComponent("peer.json").path]
        } launch: { arguments in try ChildProcess(binary, arguments, output: .null, errors: .null) } completed: {
            try ScenarioReport.read(folder.appendingPathComponent("peer.json").path).snapshot().iterations
        }
        let oursIdle = try await peerRun(users: 1, seconds: 10, config: config) { url in
            ["run", root + "/bench/locust/peer.lua", "--host", url, "--company-key", "dev-key", "--company-secret", "dev-secret",
             "--vus", "1", "--duration", "10s", "--quiet"]
        } launch: { arguments in try ChildProcess(binary, arguments, output: .null, errors: .null) } completed: { 0 }
        let stats = folder.appendingPathComponent("locust").path
        let theirs = try await peerRun(users: users, seconds: seconds, config: config) { url in
            ["-f", root + "/bench/locust/locustfile.py", "--headless", "-u", "\(users)", "-r", "100", "-t", "\(seconds)s",
             "--host", url, "--csv", stats, "--only-summary"]
        } launch: { arguments in try ChildProcess(locust, arguments, output: .null, errors: .null) } completed: {
            try Self.locustIterations(stats + "_stats.csv")
        }
        let theirsIdle = try await peerRun(users: 0, seconds: 10, config: config) { url in
            ["-f", root + "/bench/locust/locustfile.py", "--headless", "-u", "0", "-t", "10s", "--host", url, "--only-summary"]
        } launch: { arguments in try ChildProcess(locust, arguments, output: .null, errors: .null) } completed: { 0 }
        let ourMemory = Double(ours.rss - oursIdle.rss) / Double(users), theirMemory = Double(theirs.rss - theirsIdle.rss) / Double(users)
        let ourRate = Double(ours.iterations) / ours.seconds, theirRate = Double(theirs.iterations) / theirs.seconds
        // CPU milliseconds a chat: each process's cores in use over the load, over the chats a second.
        let ourCPU = ours.cores.tool / ourRate * 1000, theirCPU = theirs.cores.tool / theirRate * 1000
        let serverCPU = (ours: ours.cores.server / ourRate * 1000, theirs: theirs.cores.server / theirRate * 1000)
        return [
            BenchmarkResult(name: "peer_memory_ratio", value: ourMemory / theirMemory, target: "<= 2.5",
                            detail: String(format: "RSS per user at %d users: ccai %.0f KiB, Locust %.0f KiB (the same chat flow, "
                                           + "each against a fresh ccai sandbox serve)", users, ourMemory / 1024, theirMemory / 1024)),
            BenchmarkResult(name: "peer_throughput_ratio", value: ourRate / theirRate, target: ">= 1.5",
                            detail: String(format: "chats a second at %d users for %d s: ccai %.1f (%d), Locust %.1f (%d)",
                                           users, seconds, ourRate, ours.iterations, theirRate, theirs.iterations)),
            BenchmarkResult(name: "peer_cpu_per_chat_ratio", value: ourCPU / theirCPU, target: "-",
                            detail: String(format: "CPU a chat in the same runs: ccai %.2f ms (%.2f cores), Locust %.2f ms (%.2f cores); "
                                           + "the sandbox %.2f ms (%.2f cores) under ccai, %.2f ms (%.2f cores) under Locust",
                                           ourCPU, ours.cores.tool, theirCPU, theirs.cores.tool,
                                           serverCPU.ours, ours.cores.server, serverCPU.theirs, theirs.cores.server)),
        ]
    }

    /// The live dashboard's cost: chats a second of the peer flow at `users` VUs for
    /// `seconds`, with `--dashboard` and a page reading its event stream over those
    /// without; three runs of each, alternated, the best of each kept (the flow's rate moves
    /// by about 10% from run to run on this machine).
    func dashboardThroughputRatio(users: Int = 1_000, seconds: Int = 30) async throws -> BenchmarkResult {
        let root = FileManager.default.currentDirectoryPath
        let config = root + "/bench/locust/sandbox.lua", summary = folder.appendingPathComponent("dashboard.json").path
        var rates: [Bool: [Double]] = [:]
        for watched in [false, true, false, true, false, true] {
            let port = try Self.freePort()
            var reader: ChildProcess?
            let run = try await peerRun(users: users, seconds: seconds, config: config) { url in
                ["run", root + "/bench/locust/peer.lua", "--host", url, "--company-key", "dev-key", "--company-secret", "dev-secret",
                 "--vus", "\(users)", "--duration", "\(seconds)s", "--quiet", "--summary-out", summary]
                    + (watched ? ["--dashboard", "127.0.0.1:\(port)"] : [])
            } launch: { arguments in
                let tool = try ChildProcess(binary, arguments, output: .null, errors: .null)
                // A page: its event stream, read until the run ends it.
                if watched {
                    reader = try ChildProcess("/usr/bin/curl", ["-sN", "--retry", "60", "--retry-connrefused", "--retry-delay", "1",
                                                                "-o", "/dev/null", "http://127.0.0.1:\(port)/events"],
                                              output: .null, errors: .null)
                }
                return tool
            } completed: {
                try ScenarioReport.read(summary).snapshot().iterations
            }
            if let reader { _ = try await Self.offThePool { reader.wait() } }
            rates[watched, default: []].append(Double(run.iterations) / run.seconds)
        }
        let with = rates[true]?.max() ?? 0, without = rates[false]?.max() ?? 1
        return BenchmarkResult(name: "dashboard_throughput_ratio", value: with / without, target: ">= 0.95",
                               detail: String(format: "chats a second at %d VUs for %d s against a served sandbox: %.1f with "
                                              + "--dashboard and a page watching, %.1f without (best of three each, alternated)",
                                              users, seconds, with, without))
    }

    /// Runs one tool against a fresh served sandbox; its RSS in its last second of load,
    /// the iterations it completed, how long it ran, and the cores the tool and the sandbox
    /// used on average from the tool's start to its last second of load.
    private func peerRun(users: Int, seconds: Int, config: String, arguments: (String) -> [String],
                         launch: ([String]) throws -> ChildProcess, completed: () throws -> Int) async throws
        -> (rss: Int, iterations: Int, seconds: Double, cores: (tool: Double, server: Double))
    {
        let server = try ChildProcess(binary, ["sandbox", "serve", "--config", config, "--listen", "127.0.0.1:0"], output: .pipe, errors: .null)
        defer {
            server.terminate()
            server.wait()
        }
        let url = try await Self.offThePool { () -> String in
            var line = Data()
            while let byte = try server.standardOutput?.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
            return String(decoding: line, as: UTF8.self)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let serverAtStart = Self.cpuSeconds(of: server.pid)
        let tool = try launch(arguments(url))
        var rss = 0
        var cpu = (tool: 0.0, server: serverAtStart, at: start)
        let stop = DispatchTime.now().uptimeNanoseconds + UInt64(seconds - 1) * 1_000_000_000
        while DispatchTime.now().uptimeNanoseconds < stop {
            try await Task.sleep(nanoseconds: 500_000_000)
            rss = max(rss, Self.residentKilobytes(of: tool.pid) * 1024)
            cpu = (Self.cpuSeconds(of: tool.pid), Self.cpuSeconds(of: server.pid), DispatchTime.now().uptimeNanoseconds)
        }
        let status = try await Self.offThePool { tool.wait() }
        guard status == 0 else { throw BenchmarkFailure("\(arguments(url).first ?? "") at \(users) users exited \(status)") }
        let window = max(Double(cpu.at - start) / 1e9, 1e-3)
        return (rss, try completed(), Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
                (cpu.tool / window, (cpu.server - serverAtStart) / window))
    }

    /// The chats Locust completed: its `chat_iteration` row's requests less its failures.
    static func locustIterations(_ path: String) throws -> Int {
        // Its lines end with CRLF, one Character in Swift: split on any line break.
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init),
            let requests = header.firstIndex(of: "Request Count"), let failures = header.firstIndex(of: "Failure Count"),
            let name = header.firstIndex(of: "Name"),
            let row = lines.dropFirst().map({ $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
                .first(where: { $0.count > max(requests, failures, name) && $0[name] == "chat_iteration" })
        else { throw BenchmarkFailure("no chat_iteration row in \(path):\n" + lines.prefix(12).joined(separator: "\n")) }
        return (Int(row[requests]) ?? 0) - (Int(row[failures]) ?? 0)
    }

    // MARK: - Helpers

    static func residentKilobytes(of pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// The CPU seconds (user and system) a process has used so far, from `/proc/PID/stat`.
    static func cpuSeconds(of pid: pid_t) -> Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // The fields after the command's closing parenthesis start at the third, the state;
        // utime and stime are the 14th and 15th, in clock ticks.
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A loopback port free now.
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkFailure("no free loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }

    static func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

/// A benchmark that could not be measured, and why.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
