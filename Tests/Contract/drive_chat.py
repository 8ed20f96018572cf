"""A customer's chat driven by a client generated from docs/openapi.yaml (scripts/contract).

    python drive_chat.py CLIENT_PARENT BASE_URL COMPANY_KEY JWT DOCS_FOLDER

CLIENT_PARENT holds the package `sandbox_client` that openapi-python-client generated.
The chat: sign in, read the menus, start a chat on the Night Desk (its virtual agent
answers around the clock), upload an image, send a message, read the answer from the
event stream (httpx-sse), download the image back, end the chat, download the
transcript. Every event of the stream must be a message of docs/asyncapi.yaml whose data
its payload schema accepts. Exits 0 when all of it held, 1 with the reason otherwise.
"""

import collections
import io
import pathlib
import queue
import sys
import threading
import time

import httpx
import yaml
from httpx_sse import connect_sse
from openapi_schema_validator import OAS30Validator

client_parent, base_url, company_key, jwt, docs = sys.argv[1:6]
sys.path.insert(0, client_parent)

from sandbox_client import AuthenticatedClient, Client  # noqa: E402
from sandbox_client.api.default import (  # noqa: E402
    authenticate,
    download_chat_transcript,
    download_media,
    end_chat,
    get_queue_menus,
    send_media,
    send_message,
    start_chat,
)
from sandbox_client.models import (  # noqa: E402
    AuthRequest,
    Chat,
    ChatMessage,
    SendMediaBody,
    SendMediaKind,
    SendMessageBody,
    StartChatBody,
)
from sandbox_client.types import File  # noqa: E402

NIGHT_DESK = 7
# A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a1f0a5b10000000049454e44ae426082"
)


def fail(reason):
    print(f"drive_chat: {reason}", file=sys.stderr)
    sys.exit(1)


def expect(value, kind, what):
    if not isinstance(value, kind):
        fail(f"{what}: expected {kind.__name__}, got {value!r}")
    return value


openapi = yaml.safe_load(pathlib.Path(docs, "openapi.yaml").read_text())
asyncapi = yaml.safe_load(pathlib.Path(docs, "asyncapi.yaml").read_text())
payload_schemas = {
    name: message["payload"]["schema"]["$ref"].split("#", 1)[1]
    for name, message in asyncapi["components"]["messages"].items()
}
checked = collections.Counter()


def check_event(name, data):
    """The event is a message of docs/asyncapi.yaml and its data is what the schema says."""
    if name not in payload_schemas:
        fail(f"the stream sent '{name}', which docs/asyncapi.yaml does not name")
    schema = {"$ref": "#" + payload_schemas[name], "components": openapi["components"]}
    errors = sorted(OAS30Validator(schema).iter_errors(data), key=str)
    if errors:
        fail(f"'{name}' data does not match its schema: {errors[0].message} in {data!r}")
    checked[name] += 1


signed_in = authenticate.sync(client=Client(base_url=base_url), body=AuthRequest(company_key=company_key, jwt=jwt))
if not hasattr(signed_in, "auth_token"):
    fail(f"authenticate: {signed_in!r}")
# The stream sends a keep-alive every 15 seconds: reads wait longer than that.
client = AuthenticatedClient(base_url=base_url, token=signed_in.auth_token, timeout=httpx.Timeout(30.0))

menus = get_queue_menus.sync(client=client)
if not hasattr(menus, "menus"):
    fail(f"get_queue_menus: {menus!r}")


def all_menus(items):
    for menu in items:
        yield menu
        yield from all_menus(menu.children or [])


if NIGHT_DESK not in [menu.id for menu in all_menus(menus.menus)]:
    fail(f"no menu {NIGHT_DESK} among {[menu.id for menu in all_menus(menus.menus)]}")

events = queue.Queue()


# The stream starts after the end user's newest event at sign-in, as the SDK's does.
since = signed_in.latest_event_id if isinstance(signed_in.latest_event_id, int) else None


def read_stream():
    try:
        headers = {"Last-Event-ID": str(since)} if since is not None else {}
        with connect_sse(client.get_httpx_client(), "GET", "/events", headers=headers) as source:
            source.response.raise_for_status()
            for event in source.iter_sse():
                # A block with no event and no data (the stream's opening `retry:`) is no event.
                if event.event == "message" and not event.data:
                    continue
                events.put((event.event, event.json()))
    except Exception as error:  # the main thread reports it
        events.put(("(stream failed)", repr(error)))


threading.Thread(target=read_stream, daemon=True).start()


def wait_for(what, matches, seconds=20):
    """The first event that `matches`, checking each against the document on the way."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            fail(f"no {what} within {seconds} seconds")
        try:
            name, data = events.get(timeout=left)
        except queue.Empty:
            continue
        if name == "(stream failed)":
            fail(f"the event stream failed: {data}")
        check_event(name, data)
        if matches(name, data):
            return data


chat = expect(start_chat.sync(client=client, body=StartChatBody(menu_id=NIGHT_DESK)), Chat, "start_chat")
wait_for("chat_received of the new chat", lambda name, data: name == "chat_received" and data["id"] == chat.id)

upload = expect(
    send_media.sync(
        chat.id,
        client=client,
        kind=SendMediaKind.IMAGE,
        body=SendMediaBody(file=File(payload=io.BytesIO(PIXEL), file_name="pixel.png", mime_type="image/png")),
    ),
    ChatMessage,
    "send_media",
)
if not upload.media or upload.media.name != "pixel.png" or upload.media.mime_type != "image/png":
    fail(f"send_media stored {upload.media!r}")

sent = expect(
    send_message.sync(chat.id, client=client, body=SendMessageBody(text="when are you open?", client_message_id="contract-1")),
    ChatMessage,
    "send_message",
)
answer = wait_for(
    "the virtual agent's answer",
    lambda name, data: name == "messages_received"
    and any(m["sender"]["type"] == "virtual_agent" and m["sequence"] > sent.sequence for m in data),
)
text = next(m["text"] for m in answer if m["sender"]["type"] == "virtual_agent" and m["sequence"] > sent.sequence)
if "9:00-17:00" not in text:
    fail(f"the answer does not give the hours: {text!r}")

image = download_media.sync(upload.media.id, client=client)
if not isinstance(image, File) or image.payload.read() != PIXEL:
    fail(f"download_media did not give back the image: {image!r}")

expect(end_chat.sync(chat.id, client=client), Chat, "end_chat")
wait_for(
    "chat_received of the ended chat",
    lambda name, data: name == "chat_received" and data["id"] == chat.id and data["status"] == "ended",
)

transcript = download_chat_transcript.sync(chat.id, client=client)
if not isinstance(transcript, File) or not transcript.payload.read().startswith(b"%PDF-"):
    fail(f"download_chat_transcript did not give a PDF: {transcript!r}")

print(f"drive_chat: chat {chat.id} ran through a generated client: image, answer '{text}', transcript")
print("drive_chat: events checked against docs/asyncapi.yaml: " + ", ".join(f"{n} x{c}" for n, c in sorted(checked.items())))
