"""The Apps API as an integrator writes against it from the public pages alone, with no
code of this project: HTTP Basic credentials (the subdomain and an API token), the
published paths under /apps/api/v1, and a webhook receiver that verifies every delivery
as the chat platform API guide describes (X-Signature "primary=<sig> secondary=<sig>",
each the Base64 HMAC-SHA256 of X-Signature-Timestamp followed by the body).

It starts `ccai sandbox serve` itself, with a configuration whose webhooks come to this
receiver, then: wrong credentials get 401; an end user is created; the wait times are
read; a chat starts; chat_created and the agent's greeting arrive signed; a message is
sent and answered; the chat is finished and chat_ended arrives; a burst past the
published 10 requests a second gets 429 with Retry-After.

Usage: drive_apps.py WORK_DIR CCAI_BINARY
"""

import base64
import hashlib
import hmac
import http.server
import json
import queue
import subprocess
import sys
import threading

import httpx

SUBDOMAIN = "contract"
TOKEN = "contract-api-token-0123456789"
PRIMARY = "contract-primary-secret-0123"
SECONDARY = "contract-secondary-secret-4567"


def signature_valid(headers, body):
    """The guide's check: either secret's signature matches (secrets rotate)."""
    header, timestamp = headers.get("X-Signature"), headers.get("X-Signature-Timestamp")
    if not header or not timestamp:
        return False
    given = dict(part.split("=", 1) for part in header.split(" ") if "=" in part)
    for name, secret in (("primary", PRIMARY), ("secondary", SECONDARY)):
        expected = base64.b64encode(hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()).decode()
        if name in given and hmac.compare_digest(given[name], expected):
            return True
    return False


class Receiver(http.server.BaseHTTPRequestHandler):
    events = queue.Queue()
    refused = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not signature_valid(self.headers, body):
            Receiver.refused.append(body)
            self.send_response(401)
            self.end_headers()
            return
        Receiver.events.put(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *arguments):
        pass


def next_event(name, chat_id, timeout=30):
    """The next delivery of `chat_id` named `name` (others of the chat are skipped)."""
    while True:
        event = Receiver.events.get(timeout=timeout)
        assert "id" in event and "timestamp" in event and "data" in event, event
        if event["chat_id"] == chat_id and event["event"] == name:
            return event


def main(work, binary):
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    config = f"{work}/apps-sandbox.lua"
    with open(config, "w") as file:
        file.write(f"""
return {{ company = {{ name = "Contract", languages = {{ "en" }}, time_zone = "UTC", key = "contract-key",
                       secret = "contract-secret", subdomain = "{SUBDOMAIN}" }},
          menus = {{ {{ id = 1, name = "Help", channels = {{ chat = {{}} }} }} }},
          agents = {{ {{ name = "Ava", menus = {{ 1 }} }} }},
          api_credentials = {{ {{ name = "contract", token = "{TOKEN}" }} }},
          webhooks = {{ url = "http://127.0.0.1:{receiver.server_port}/hooks", primary_secret = "{PRIMARY}",
                        secondary_secret = "{SECONDARY}" }} }}
""")
    sandbox = subprocess.Popen([binary, "sandbox", "serve", "--listen", "127.0.0.1:0", "--config", config],
                               stdout=subprocess.PIPE, stderr=open(f"{work}/apps-serve.log", "w"), text=True)
    try:
        base = sandbox.stdout.readline().strip() + "/apps/api/v1"
        drive(base)
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=30)
        receiver.shutdown()


def drive(base):
    with httpx.Client(auth=(SUBDOMAIN, TOKEN), timeout=30) as client:
        wrong = httpx.get(f"{base}/wait_times", params={"lang": "en"}, auth=(SUBDOMAIN, "not-the-token"))
        assert wrong.status_code == 401, wrong.text
        user = client.post(f"{base}/end_users", json={"identifier": "contract-customer", "name": "Jo"})
        assert user.status_code == 200 and user.json()["identifier"] == "contract-customer", user.text
        waits = client.get(f"{base}/wait_times", params={"lang": "en"}).json()
        assert waits[0]["menu_id"] == 1 and "chat" in waits[0] and "available_agents" in waits[0], waits

        started = client.post(f"{base}/chats", json={"chat": {"end_user_id": user.json()["id"], "menu_id": 1, "lang": "en"}})
        assert started.status_code == 201, started.text
        chat = started.json()
        created = next_event("chat_created", chat["id"])
        assert created["data"]["id"] == chat["id"], created
        greeting = next_event("agent_message", chat["id"])
        assert greeting["data"]["sender"]["name"] == "Ava", greeting

        sent = client.post(f"{base}/chats/{chat['id']}/message", json={"message": {"type": "text", "content": "My order?"}})
        assert sent.status_code == 201, sent.text
        answer = next_event("agent_message", chat["id"])
        assert "My order?" in answer["data"]["content"], answer

        finished = client.patch(f"{base}/chats/{chat['id']}", json={"chat": {"status": "finished"}})
        assert finished.status_code == 200 and finished.json()["status"] == "finished", finished.text
        ended = next_event("chat_ended", chat["id"])
        assert ended["data"]["status"] == "finished", ended
        assert client.get(f"{base}/chats/{chat['id']}").json()["ends_at"], "the chat object has ended"

        statuses = [client.get(f"{base}/end_users", params={"id": user.json()["id"]}) for _ in range(15)]
        limited = [answer for answer in statuses if answer.status_code == 429]
        assert limited and limited[0].headers.get("Retry-After"), [answer.status_code for answer in statuses]
    assert not Receiver.refused, f"deliveries that failed the signature check: {Receiver.refused}"
    print(f"drive_apps: chat {chat['id']} through the Apps API, webhooks verified: chat_created, agent_message x2, "
          f"chat_ended; 401 for wrong credentials, 429 past the rate")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
