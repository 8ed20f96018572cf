/// `ccai run`'s declaration: its options (``RunOptions``) and the prose of its help.
extension RunCommand {
    static let spec = CommandSpec(
        ["run"], arguments: "SCRIPT", abstract: "run a Lua script in the confined runtime",
        discussion: """
            Runs a Lua script in the confined runtime with the `ccai` module. The run ends
            when the script and every task it spawned have ended.

            A scenario is a script that returns { options = {...}, setup = fn, run = fn(ctx),
            teardown = fn }: it runs in virtual users (VUs), each with its own Lua state, SDK
            instance and end user (vu-1, vu-2, ...). options.vus VUs (default 1) share
            options.iterations (default one per VU), or each loops for options.duration
            ("30s", "5m"); options.stages = { { duration = "30s", target = 100 }, ... }
            ramps the VUs taking part; options.arrival = { rate = 100, time_unit = "1h",
            duration = "12h", max_vus = 200, poisson = true } starts iterations at a rate
            whatever their length (with stages of target rates, a ramping rate); an arrival
            that starts no iteration counts in dropped_iterations, tagged reason no_free_vu
            or run_ending. options.scenarios = { NAME = { executor = "constant_arrival",
            ..., exec = "function", tags = {...}, start_time = "30s" } } runs several
            scenarios at once (executors shared_iterations, constant_vus, ramping_vus,
            constant_arrival, ramping_arrival), their samples tagged scenario. An iteration
            still running at the end gets options.graceful_stop (default 30s); one cut off
            fails as interrupted. Each iteration starts apart from the earlier ones' events.
            run(ctx) gets ctx.vu, ctx.iteration, ctx.scenario and ctx.data (what setup
            returned; setup and teardown run once, as end user vu-setup). ccai.check records
            named checks, ccai.group(name, fn) groups what fn records,
            ccai.metrics.trend|counter|rate|gauge(name) declares metrics of your own
            (m:add(value, tags)); handle_summary(data) returns { stdout = TEXT, ["file"] =
            TEXT } in place of the summary. Built in: checks, iterations,
            iteration_duration_seconds, iteration_failed, dropped_iterations,
            group_duration_seconds, plugin_errors, events_dropped, vus, sdk_call_seconds
            (tagged service, method, status), chat_start_seconds, chat_wait_seconds
            (until an agent or virtual agent takes the chat), chat_first_response_seconds,
            message_round_trip_seconds, csat_rating, and for calls call_wait_seconds,
            call_setup_seconds, call_handle_seconds and call_abandoned (tagged type:
            instant, or scheduled for a callback). While it runs, a progress line on
            standard error (redrawn on a terminal, NO_COLOR honoured; a line a second
            otherwise; none with --quiet); at the end the summary shows the thresholds, the
            checks, the metrics and the errors that failed iterations, each once with its
            count.

            The SDK (ccai.auth, ccai.company, ccai.end_user, ccai.language, ccai.queue_menu,
            ccai.chat, ccai.smart_action, ccai.screen_share, ccai.options) talks to the
            embedded sandbox by default: the built-in company, or --sandbox CONFIG.lua (with
            its agent scripts), reached through its router in this process (--loopback:
            over HTTP on a loopback port). It serves this run only: the sandbox's default
            quotas (limits) do not apply there, those a --sandbox file sets do. With --host
            it talks to that platform instead. The host authenticates the script's end user
            ("vu-1", or what the script sets with ccai.end_user.update_end_user) by signing a JWT; scripts
            never see the secret. Against --host the operator, not the script, decides whom
            a script may be: the host signs only identifiers matching --identities and only
            the signed custom data keys listed by --signed-claims; anything else fails with
            "forbidden", naming the flag.
            """,
        options: RunOptions.options,
        epilogue: """
            A scenario's options.thresholds are pass/fail criteria in k6's expressions, by
            metric: checks = "rate > 0.99", chat_wait_seconds = "p(80) < 20" (a service level
            of 80/20), iterations = "count >= 100", iteration_failed = "rate < 0.01",
            vus = "value == 10", and on tagged sub-metrics ("sdk_call_seconds{method:start}",
            "checks{check:agent answered}", your own "name{tag:value}");
            { threshold = "...", abort_on_fail = true } stops the run as soon as it fails.

            Ctrl-C or SIGTERM stops a run: no new iteration starts, those running get
            graceful_stop, the chats still open are ended, the summary of what ran is
            printed, and the run exits 130 (143 for SIGTERM). A second one stops the
            iterations at once and still writes what was measured and ends the open chats
            (within 5 s); a third quits at once, writing nothing more.

            Exit status: 0 success (in a scenario, failed iterations are counted, not
            fatal), 1 the script, a VU's top level or setup failed (error and traceback on
            stderr) or the run timed out, 2 usage error (a scenario's bad options
            included), 99 a threshold failed, 130 interrupted (Ctrl-C), 143 terminated
            (SIGTERM).
            """)
}
