/// The console's page, script and styles (``ConsoleRoutes``), served by the sandbox:
/// nothing loaded from elsewhere. The script builds every element with `textContent`,
/// never markup, so what a customer wrote is shown as the text it is. Its controls carry
/// the accessible names docs/console.md lists (tests and screen readers rely on them).
enum ConsolePage {
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Sandbox console</title>
        <link rel="stylesheet" href="/console/console.css">
        <script src="/console/console.js" defer></script>
        </head>
        <body>
        <header><h1>Sandbox console</h1><span id="message" role="alert"></span>
          <button id="sign-out" type="button" hidden>Sign out</button></header>
        <form id="sign-in">
          <label for="token">Admin token</label>
          <input id="token" name="token" type="password" autocomplete="off" required>
          <button id="sign-in-button" type="submit">Sign in</button>
        </form>
        <main id="console" hidden>
          <section aria-label="Queues"><h2>Queues</h2><div id="queues"></div></section>
          <section aria-label="Chats"><h2>Your chats</h2><div id="chats"></div></section>
          <section aria-label="Calls"><h2>Your calls</h2><div id="calls"></div></section>
          <section aria-label="Live sessions"><h2>Live sessions</h2>
            <table id="live"><thead><tr><th>Session</th><th>Queue</th><th>With</th><th>Status</th><th></th></tr></thead><tbody></tbody></table>
            <div id="watched"></div>
          </section>
          <section aria-label="Agents"><h2>Agents</h2>
            <table id="agents"><thead><tr><th>Agent</th><th>Console</th><th>Queues</th><th>Chats</th><th>Calls</th></tr></thead><tbody></tbody></table>
          </section>
          <section aria-label="Ratings"><h2>Ratings</h2>
            <table id="ratings"><thead><tr><th>Chat</th><th>Rating</th><th>Feedback</th></tr></thead><tbody></tbody></table>
          </section>
          <section aria-label="Survey answers"><h2>Survey answers</h2>
            <table id="surveys"><thead><tr><th>Chat</th><th>Survey</th><th>Answers</th></tr></thead><tbody></tbody></table>
          </section>
        </main>
        </body>
        </html>
        """

    static let styles = """
        [hidden] { display: none !important; }
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #202124; }
        header { display: flex; align-items: center; gap: 1em; } h1 { font-size: 1.3em; } h2 { font-size: 1.05em; }
        #message { color: #c5221f; }
        form#sign-in { display: flex; gap: .5em; align-items: center; margin-top: 1em; }
        button { font: inherit; padding: .2em .8em; }
        .queue, .chat { border: 1px solid #dadce0; border-radius: .3em; padding: .5em .8em; margin: .5em 0; max-width: 48em; }
        .waiting { display: flex; gap: 1em; align-items: center; margin: .2em 0; }
        .messages { max-height: 18em; overflow-y: auto; background: #fafafa; padding: .4em; margin: .4em 0; }
        .messages p { margin: .2em 0; white-space: pre-wrap; } .messages .who { font-weight: bold; margin-right: .4em; }
        .typing { color: #5f6368; font-style: italic; margin: .2em 0; }
        .compose { display: flex; gap: .4em; flex-wrap: wrap; margin: .3em 0; } .compose input[type=text] { flex: 1; min-width: 16em; }
        .asked { color: #3c4043; margin: .2em 0; }
        table { border-collapse: collapse; } th, td { padding: .2em .7em; text-align: left; border-bottom: 1px solid #eee; }
        """

    static let script = #"""
        "use strict";
        (function () {
          const $ = (id) => document.getElementById(id);
          let csrf = sessionStorage.getItem("ccai-console-csrf");
          let timer = null;
          const drafts = new Map();

          function say(text) { $("message").textContent = text; }

          async function call(method, path, body) {
            const headers = { "Content-Type": "application/json" };
            if (csrf) headers["X-CSRF-Token"] = csrf;
            const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined,
                                                  credentials: "same-origin" });
            if (response.status === 401) { signedOut(); throw new Error("signed out"); }
            if (!response.ok) {
              const text = await response.text();
              let message = text;
              try { message = JSON.parse(text).error.message; } catch (error) { /* not JSON */ }
              throw new Error(message);
            }
            return response.status === 204 ? null : response.json();
          }

          function element(tag, text, attributes) {
            const made = document.createElement(tag);
            if (text !== undefined && text !== null) made.textContent = text;
            for (const [name, value] of Object.entries(attributes || {})) made.setAttribute(name, value);
            return made;
          }

          function button(text, label, action) {
            const made = element("button", text, label === text ? { type: "button" } : { type: "button", "aria-label": label });
            made.addEventListener("click", async () => {
              made.disabled = true;
              try { await action(); say(""); await refresh(); } catch (error) { say(error.message); } finally { made.disabled = false; }
            });
            return made;
          }

          // What the person chose in a control, by key, so that a redraw does not lose it.
          const chosen = new Map();
          function remember(key, control) {
            if (chosen.has(key)) control.value = chosen.get(key);
            control.addEventListener("change", () => chosen.set(key, control.value));
            return control;
          }
          const files = new Map();
          let watching = null;

          function select(label, key, options) {
            const made = element("select", null, { "aria-label": label });
            for (const [value, text] of options) made.appendChild(element("option", text, { value }));
            return remember(key, made);
          }

          function table(id, rows) {
            const body = $(id).tBodies[0];
            body.replaceChildren();
            for (const cells of rows) {
              const row = element("tr");
              for (const cell of cells) {
                const data = element("td");
                if (cell instanceof Node) data.appendChild(cell); else data.textContent = cell;
                row.appendChild(data);
              }
              body.appendChild(row);
            }
          }

          function messageList(chat) {
            const messages = element("div", null, { class: "messages", "aria-label": "Messages of chat " + chat.chat_id });
            for (const message of chat.messages) {
              const line = element("p");
              line.appendChild(element("span", (message.sender_name || message.sender_type) + ":", { class: "who" }));
              if (message.media) {
                const query = new URLSearchParams({ chat_id: String(chat.chat_id), media_id: String(message.media.id) });
                line.appendChild(element("a", "file: " + (message.media.name || message.media.type) + " (" + message.media.size + " bytes)",
                                         { href: "/console/api/media?" + query, download: "" }));
              } else {
                line.appendChild(element("span", message.text !== null && message.text !== undefined ? message.text : "(" + message.type + ")"));
              }
              messages.appendChild(line);
            }
            return messages;
          }

          function readFile(file) {
            return new Promise((resolve, reject) => {
              const reader = new FileReader();
              reader.onload = () => resolve(String(reader.result).replace(/^[^,]*,/, ""));
              reader.onerror = () => reject(new Error("the file could not be read"));
              reader.readAsDataURL(file);
            });
          }

          function chatBox(chat, state) {
            const id = chat.chat_id;
            const box = element("div", null, { class: "chat" });
            box.appendChild(element("h3", "Chat " + id + " (" + chat.agent + ", " + chat.status + ")"));
            const messages = messageList(chat);
            box.appendChild(messages);
            if (chat.customer_typing) {
              box.appendChild(element("p", "The customer is typing" + (chat.preview ? ": " + chat.preview : "…"),
                                      { class: "typing", "aria-live": "polite" }));
            }
            for (const action of chat.smart_actions) {
              box.appendChild(element("p", "Smart action " + action.id + ": " + action.type + ", " + action.status, { class: "asked" }));
            }
            for (const form of chat.forms) {
              const answers = Object.entries(form.answers).map(([question, value]) => question + ": " + value).join("; ");
              box.appendChild(element("p", "Form " + form.form + ": " + form.status + (answers ? " (" + answers + ")" : ""), { class: "asked" }));
            }
            const compose = element("div", null, { class: "compose" });
            const input = element("input", null, { type: "text", "aria-label": "Message", "data-chat": String(id) });
            input.value = drafts.get(String(id)) || "";
            let typing = false;
            input.addEventListener("input", () => {
              const now = input.value.length > 0;
              if (now !== typing) {
                typing = now;
                call("POST", "/console/api/typing", { chat_id: id, typing: now }).catch(() => {});
              }
            });
            compose.appendChild(input);
            compose.appendChild(button("Send", "Send", async () => {
              if (!input.value.trim()) return;
              await call("POST", "/console/api/send", { chat_id: id, text: input.value });
              input.value = "";
              drafts.delete(String(id));
            }));
            box.appendChild(compose);

            const tools = element("div", null, { class: "compose" });
            const picker = element("input", null, { type: "file", "aria-label": "File" });
            picker.addEventListener("change", () => { if (picker.files.length) files.set(id, picker.files[0]); });
            tools.appendChild(picker);
            if (files.has(id)) tools.appendChild(element("span", files.get(id).name));
            tools.appendChild(button("Send file", "Send file", async () => {
              const file = files.get(id);
              if (!file) throw new Error("choose a file first");
              await call("POST", "/console/api/file", { chat_id: id, name: file.name, mime_type: file.type, data: await readFile(file) });
              files.delete(id);
            }));
            const kinds = ["photo", "video", "screenshot", "text", "verification", "screen_share"];
            const kind = select("Smart action type", "action-" + id, kinds.map((name) => [name, name]));
            tools.appendChild(kind);
            tools.appendChild(button("Request", "Request smart action",
                                     () => call("POST", "/console/api/smart_action", { chat_id: id, type: kind.value })));
            if (state.forms.length) {
              const form = select("Form", "form-" + id, state.forms.map((choice, index) => [String(index), choice.name]));
              tools.appendChild(form);
              tools.appendChild(button("Send form", "Send form", () => {
                const choice = state.forms[Number(form.value)];
                return call("POST", "/console/api/form", choice.form_id !== undefined && choice.form_id !== null
                  ? { chat_id: id, form_id: choice.form_id } : { chat_id: id, external_form_id: choice.external_form_id });
              }));
            }
            box.appendChild(tools);

            const moves = element("div", null, { class: "compose" });
            const target = select("Transfer to queue", "transfer-" + id,
                                  state.queues.filter((queue) => queue.menu_id !== chat.menu_id).map((queue) => [String(queue.menu_id), queue.name]));
            moves.appendChild(target);
            moves.appendChild(button("Transfer", "Transfer", () => call("POST", "/console/api/transfer", { chat_id: id, menu_id: Number(target.value) })));
            moves.appendChild(button("End chat", "End chat", () => call("POST", "/console/api/end", { chat_id: id })));
            box.appendChild(moves);
            return { box, messages, input };
          }

          function render(state) {
            const consoleAgents = state.agents.filter((agent) => agent.console);
            const queues = $("queues");
            queues.replaceChildren();
            for (const queue of state.queues) {
              const box = element("div", null, { class: "queue" });
              box.appendChild(element("h3", queue.name + " (" + queue.waiting.length + " chats, " + queue.waiting_calls.length + " calls waiting)"));
              const takers = consoleAgents.filter((agent) => agent.menus.includes(queue.menu_id));
              for (const [waiting, kind, verb, path, key] of queue.waiting.map((item) => [item, "Chat", "Take", "take", "chat_id"])
                     .concat(queue.waiting_calls.map((item) => [item, "Call", "Answer", "answer", "call_id"]))) {
                const row = element("div", null, { class: "waiting" });
                row.appendChild(element("span", kind + " " + waiting.id + ", waiting " + Math.round(waiting.waiting_seconds) + " s"));
                for (const agent of takers) {
                  const label = takers.length > 1 ? verb + " as " + agent.name : verb;
                  row.appendChild(button(label, label, () => call("POST", "/console/api/" + path, { [key]: waiting.id, agent: agent.name })));
                }
                box.appendChild(row);
              }
              queues.appendChild(box);
            }

            const chats = $("chats");
            const focusedChat = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.chat : null;
            for (const input of chats.querySelectorAll("input[data-chat]")) drafts.set(input.dataset.chat, input.value);
            chats.replaceChildren();
            if (!state.chats.length) chats.appendChild(element("p", "None: take a waiting chat."));
            for (const chat of state.chats) {
              const { box, messages, input } = chatBox(chat, state);
              chats.appendChild(box);
              messages.scrollTop = messages.scrollHeight;
              if (focusedChat === String(chat.chat_id)) input.focus();
            }

            const calls = $("calls");
            calls.replaceChildren();
            if (!state.calls.length) calls.appendChild(element("p", "None: answer a waiting call."));
            for (const held of state.calls) {
              const box = element("div", null, { class: "chat" });
              box.appendChild(element("h3", "Call " + held.call_id + " (" + held.agent + ", " + held.status + ")"));
              const controls = element("div", null, { class: "compose" });
              const onHold = held.status === "on_hold";
              controls.appendChild(button(onHold ? "Resume" : "Hold", onHold ? "Resume" : "Hold",
                                          () => call("POST", "/console/api/hold", { call_id: held.call_id, on_hold: !onHold })));
              controls.appendChild(button("End call", "End call", () => call("POST", "/console/api/end_call", { call_id: held.call_id })));
              box.appendChild(controls);
              calls.appendChild(box);
            }

            table("live", state.live.map((session) => {
              const actions = element("span");
              if (session.channel === "chat") {
                actions.appendChild(button("Watch", "Watch", async () => { watching = session.id; }));
              }
              if (session.escalatable) {
                actions.appendChild(button("Escalate", "Escalate",
                                           () => call("POST", "/console/api/escalate", { [session.channel + "_id"]: session.id })));
              }
              return [(session.channel === "chat" ? "Chat " : "Call ") + session.id, String(session.menu_id),
                      session.agent || session.virtual_agent || "", session.status, actions];
            }));
            const watched = $("watched");
            watched.replaceChildren();
            if (state.watched) {
              watched.appendChild(element("h3", "Watching chat " + state.watched.chat_id));
              watched.appendChild(messageList(state.watched));
              watched.appendChild(button("Stop watching", "Stop watching", async () => { watching = null; }));
            }

            table("agents", state.agents.map((agent) => [agent.name, agent.console ? "yes" : "no", agent.menus.join(", "),
                                                         agent.chats.join(", "), agent.calls.join(", ")]));
            table("ratings", state.ratings.map((rating) => [String(rating.communication_id), String(rating.rating), rating.feedback || ""]));
            table("surveys", state.surveys.map((survey) => [String(survey.communication_id), String(survey.survey_id),
              Object.entries(survey.answers).map(([question, value]) => question + ": " + value).join("; ")]));
          }

          let shown = "";
          async function refresh() {
            try {
              const state = await call("GET", "/console/api/state" + (watching === null ? "" : "?watch=" + watching));
              // Redrawn only when something changed (a wait's seconds count), so a control is
              // not replaced under the pointer for nothing.
              const text = JSON.stringify(state);
              if (text !== shown) { shown = text; render(state); }
            } catch (error) { if (error.message !== "signed out") say(error.message); }
          }

          function signedIn() {
            $("sign-in").hidden = true;
            $("console").hidden = false;
            $("sign-out").hidden = false;
            refresh();
            if (!timer) timer = setInterval(refresh, 1000);
          }

          function signedOut() {
            csrf = null;
            sessionStorage.removeItem("ccai-console-csrf");
            if (timer) clearInterval(timer);
            timer = null;
            $("sign-in").hidden = false;
            $("console").hidden = true;
            $("sign-out").hidden = true;
          }

          $("sign-in").addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              const answer = await call("POST", "/console/session", { token: $("token").value });
              csrf = answer.csrf_token;
              sessionStorage.setItem("ccai-console-csrf", csrf);
              $("token").value = "";
              say("");
              signedIn();
            } catch (error) { say(error.message); }
          });
          $("sign-out").addEventListener("click", async () => {
            try { await call("DELETE", "/console/session"); } catch (error) { /* signed out anyway */ }
            signedOut();
          });
          if (csrf) signedIn();
        })();
        """#
}
