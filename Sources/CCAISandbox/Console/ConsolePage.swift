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
          <section aria-label="Agents"><h2>Agents</h2>
            <table id="agents"><thead><tr><th>Agent</th><th>Console</th><th>Queues</th><th>Chats</th><th>Calls</th></tr></thead><tbody></tbody></table>
          </section>
          <section aria-label="Ratings"><h2>Ratings</h2>
            <table id="ratings"><thead><tr><th>Chat</th><th>Rating</th><th>Feedback</th></tr></thead><tbody></tbody></table>
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
        .compose { display: flex; gap: .4em; flex-wrap: wrap; } .compose input[type=text] { flex: 1; min-width: 16em; }
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

          function render(state) {
            const consoleAgents = state.agents.filter((agent) => agent.console);
            const queues = $("queues");
            queues.replaceChildren();
            for (const queue of state.queues) {
              const box = element("div", null, { class: "queue" });
              box.appendChild(element("h3", queue.name + " (" + queue.waiting.length + " waiting)"));
              for (const waiting of queue.waiting) {
                const row = element("div", null, { class: "waiting" });
                row.appendChild(element("span", "Chat " + waiting.chat_id + ", waiting " + Math.round(waiting.waiting_seconds) + " s"));
                const takers = consoleAgents.filter((agent) => agent.menus.includes(queue.menu_id));
                for (const agent of takers) {
                  const label = takers.length > 1 ? "Take as " + agent.name : "Take";
                  row.appendChild(button(label, label,
                                         () => call("POST", "/console/api/take", { chat_id: waiting.chat_id, agent: agent.name })));
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
              const box = element("div", null, { class: "chat" });
              box.appendChild(element("h3", "Chat " + chat.chat_id + " (" + chat.agent + ", " + chat.status + ")"));
              const messages = element("div", null, { class: "messages", "aria-label": "Messages of chat " + chat.chat_id });
              for (const message of chat.messages) {
                const line = element("p");
                line.appendChild(element("span", (message.sender_name || message.sender_type) + ":", { class: "who" }));
                line.appendChild(element("span", message.text !== null && message.text !== undefined ? message.text : "(" + message.type + ")"));
                messages.appendChild(line);
              }
              box.appendChild(messages);
              if (chat.customer_typing) {
                box.appendChild(element("p", "The customer is typing" + (chat.preview ? ": " + chat.preview : "…"),
                                        { class: "typing", "aria-live": "polite" }));
              }
              const compose = element("div", null, { class: "compose" });
              const input = element("input", null, { type: "text", "aria-label": "Message", "data-chat": String(chat.chat_id) });
              input.value = drafts.get(String(chat.chat_id)) || "";
              let typing = false;
              input.addEventListener("input", () => {
                const now = input.value.length > 0;
                if (now !== typing) {
                  typing = now;
                  call("POST", "/console/api/typing", { chat_id: chat.chat_id, typing: now }).catch(() => {});
                }
              });
              compose.appendChild(input);
              compose.appendChild(button("Send", "Send", async () => {
                if (!input.value.trim()) return;
                await call("POST", "/console/api/send", { chat_id: chat.chat_id, text: input.value });
                input.value = "";
                drafts.delete(String(chat.chat_id));
              }));
              const target = element("select", null, { "aria-label": "Transfer to queue" });
              for (const queue of state.queues) if (queue.menu_id !== chat.menu_id) target.appendChild(element("option", queue.name, { value: String(queue.menu_id) }));
              compose.appendChild(target);
              compose.appendChild(button("Transfer", "Transfer", () => call("POST", "/console/api/transfer",
                                                                              { chat_id: chat.chat_id, menu_id: Number(target.value) })));
              compose.appendChild(button("End chat", "End chat", () => call("POST", "/console/api/end", { chat_id: chat.chat_id })));
              box.appendChild(compose);
              chats.appendChild(box);
              messages.scrollTop = messages.scrollHeight;
              if (focusedChat === String(chat.chat_id)) input.focus();
            }
            const agents = $("agents").tBodies[0];
            agents.replaceChildren();
            for (const agent of state.agents) {
              const row = element("tr");
              for (const text of [agent.name, agent.console ? "yes" : "no", agent.menus.join(", "), agent.chats.join(", "), agent.calls.join(", ")]) {
                row.appendChild(element("td", text));
              }
              agents.appendChild(row);
            }
            const ratings = $("ratings").tBodies[0];
            ratings.replaceChildren();
            for (const rating of state.ratings) {
              const row = element("tr");
              for (const text of [String(rating.communication_id), String(rating.rating), rating.feedback || ""]) row.appendChild(element("td", text));
              ratings.appendChild(row);
            }
          }

          let shown = "";
          async function refresh() {
            try {
              const state = await call("GET", "/console/api/state");
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
