"""The golden frames of Tests/GoldenFrames through the Python client's codec: each request
frame is what the client's request builders write for the described call, byte for byte, and
each server frame decodes to the described values. The frames' bytes come from protobuf's own
encoder (generate.py); the C client and the Swift codec are held to the same files."""
import base64
import glob
import json
import os
from dataclasses import fields, is_dataclass

import pytest

from conftest import ROOT
from stash_client import records, wire
from stash_client.options import AddOptions

GOLDEN = os.path.join(ROOT, "Tests", "GoldenFrames")
import sys  # noqa: E402
sys.path.insert(0, GOLDEN)
import generate  # noqa: E402


def frames(kind):
    out = []
    for path in sorted(glob.glob(os.path.join(GOLDEN, "*.json"))):
        with open(path, encoding="utf-8") as f:
            description = json.load(f)
        if description["message"] == kind:
            with open(path[:-5] + ".bin", "rb") as f:
                out.append(pytest.param(description, f.read(), id=os.path.basename(path)[:-5]))
    return out


def test_the_bytes_are_those_of_the_descriptions():
    assert generate.check() == []


def _pairs(headers):
    return [(h["name"], h.get("value", "")) for h in headers or ()]


def _number(value):
    return int(value) if value is not None else 0


def build(value):
    """The client's request for a described one, made by the builders Client and AsyncClient use."""
    (op,) = [key for key in value if key != "id"]
    body = value[op]
    if op == "hello":
        request = wire.hello(body["client_name"])
    elif op == "add_download":
        options: AddOptions = {}
        for key in ("sha256", "force", "group", "append", "replace", "network", "on_battery"):
            if key in body:
                options[key] = body[key]  # type: ignore[literal-required]
        if "headers" in body:
            options["headers"] = _pairs(body["headers"])
        if "app_data" in body:
            options["app_data"] = base64.b64decode(body["app_data"])
        if "files" in body:
            options["files"] = [records.BundleFile(f["url"], f.get("path", ""), _number(f.get("size")), f.get("sha256", ""),
                                                   expect=f.get("expect", ""), min_size=_number(f.get("min_size")))
                                for f in body["files"]]
        if "text_tracks" in body:
            options["text_tracks"] = [dict(t) for t in body["text_tracks"]]
        if "rate_limit" in body:
            options["rate_limit"] = _number(body["rate_limit"])
        if "expect" in body:
            options["expect"] = body["expect"]
        if "min_size" in body:
            options["min_size"] = _number(body["min_size"])
        if "priority" in body:
            options["priority"] = body["priority"]
        if "hls" in body:
            hls = dict(body["hls"])
            hls["bandwidth"] = _number(hls.get("bandwidth"))
            options["hls"] = records.HlsOptions(**hls)
        if "drm" in body:
            drm = dict(body["drm"])
            drm["license_headers"] = [records.Header(n, v) for n, v in _pairs(drm.get("license_headers"))]
            options["drm"] = records.DrmParams(**drm)
        request = wire.add(body.get("uri"), body.get("id"), body.get("title"), options)
    elif op in ("get_download", "has_download", "pause", "resume", "cancel"):
        request = wire.by_id(op, body["id"])
    elif op == "pause_all":
        request = wire.empty(op)
    elif op == "set_download":
        if "network" in body or "on_battery" in body:
            request = wire.set_desktop_rules(body["id"], body.get("network"), body.get("on_battery"))
        elif "headers" in body or "clear_headers" in body:
            request = wire.set_headers(body["id"], _pairs(body.get("headers")), body.get("clear_headers", False))
        elif "license_headers" in body or "clear_license_headers" in body:
            request = wire.set_headers(body["id"], _pairs(body.get("license_headers")), body.get("clear_license_headers", False),
                                       license=True)
        elif "uri" in body:
            request = wire.set_uri(body["id"], body["uri"], body.get("file"))
        elif "rate_limit" in body:
            request = wire.set_rate_limit(body["id"], int(body["rate_limit"]))
        else:
            request = wire.set_priority(body["id"], body.get("priority", "PRIORITY_NORMAL"))
    elif op == "move":
        place = body["place"].removeprefix("MOVE_PLACE_").lower()
        other = body.get("other", "")
        request = wire.move(body["id"], place == "top", place == "bottom", other if place == "before" else None,
                            other if place == "after" else None)
    elif op in ("pause_group", "resume_group", "cancel_group"):
        request = wire.group(op, body["group"], body.get("include_failed", False))
    elif op == "list_downloads":
        request = wire.list_downloads(body.get("states"), body.get("group"), body.get("page_size", 0), body.get("page_token"))
    elif op == "stop":
        request = wire.stop(body["id"], body.get("reason"))
    elif op == "subscribe":
        request = wire.subscribe(body.get("ids"), body.get("min_progress_step", 0), body.get("min_interval_ms", 0),
                                 _number(body.get("replay_from_seq")), body.get("states"))
    elif op == "set_config":
        request = wire.set_config({e["key"]: e["value"] for e in body["entries"]})
    elif op == "verify":
        request = wire.verify(body.get("deep", False), body.get("repair", False), body.get("dry_run", False))
    elif op == "get_manifest_info":
        request = wire.plan(body["uri"], _pairs(body.get("headers")), body.get("start"), body.get("end"))
    elif op == "add_subtitles":
        request = wire.subtitles(op, body["id"], body.get("languages"), body.get("text_tracks"))
    elif op == "get_playback_key":
        request = wire.playback_key(body["id"], body.get("key_id"))
    elif op == "forget":
        request = wire.forget(body["id"], body["move_to"])
    elif op == "adopt":
        request = wire.adopt(body["path"], body["id"], body.get("url"), body.get("sha256"), body.get("link", False))
    elif op == "export" and body.get("file"):
        formats = {"EXPORT_FORMAT_MP4": "mp4", "EXPORT_FORMAT_MKV": "mkv"}
        request = wire.export_file(body["id"], body["file"], formats.get(body.get("format", "")), body.get("force", False),
                                   body.get("link", False))
    elif op == "export":
        request = wire.export(body["id"], body["dir"], body.get("decrypt", False))
    else:
        raise AssertionError(f"no builder for {op}: add it here")
    request.id = int(value["id"])
    return request


@pytest.mark.parametrize("description, golden", frames("Request"))
def test_requests_encode_to_the_golden_bytes(description, golden):
    assert wire.frame(build(description["value"])) == golden


# The names proto3 leaves out of JSON as their number 0.
_ZERO_NAMES = {"OK", "NOT_DOWNLOADED", "ERROR_NONE", "FINDING_UNKNOWN", "LICENSE_EVENT_UNKNOWN", "EXPORT_FORMAT_UNSPECIFIED",
               "EXPORT_TRACK_UNKNOWN", "PRIORITY_NORMAL"}


def as_json(value, state_key="count"):
    """A client record as proto3 JSON would hold it: 64-bit numbers compared as numbers, bytes as
    base64, a state map as the list of entries it came from."""
    if is_dataclass(value):
        out = {}
        for item in fields(value):
            key = "bytes" if item.name == "bytes_by_state" else "count"
            out[item.name] = as_json(getattr(value, item.name), key)
        return out
    if isinstance(value, dict):
        return [{"state": state, state_key: number} for state, number in value.items()]
    if isinstance(value, (tuple, list)):
        return [as_json(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def decoded_as_json(message):
    if message.is_event:
        event = message.event
        kind = {records.StateChanged: "state_changed", records.Progress: "progress", records.Removed: "removed",
                records.LicenseEvent: "license", records.EventsLost: "events_lost",
                records.ExportProgress: "export_progress", records.SettingsChanged: "settings_changed"}[type(event)]
        body = {k: v for k, v in as_json(event).items() if k not in ("seq", "time")}
        return {"event": {"seq": event.seq, "time": event.time, kind: body}}
    response = {"id": message.response_id}
    if message.error is not None:
        response["status"] = {"code": message.error.code, "message": message.error.message}
    elif message.result_name == "download":
        record = as_json(message.result)
        response["download"] = {"created": record.pop("created"), "download": record}
    elif message.result_name == "count":
        response["count"] = {"affected": message.result}
    elif message.result_name is not None:
        response[message.result_name] = as_json(message.result)
    return {"response": response}


def is_default(value):
    if isinstance(value, dict):
        return all(is_default(v) for v in value.values())
    return value in (None, 0, "", False, "0", []) or (isinstance(value, str) and value in _ZERO_NAMES)


def assert_same(expected, actual, path="value"):
    """Equal as proto3 JSON: a field left out equals its default; 64-bit numbers are strings
    there and numbers here."""
    if isinstance(expected, dict) or isinstance(actual, dict):
        expected, actual = expected or {}, actual or {}
        assert isinstance(expected, dict) and isinstance(actual, dict), f"{path}: {expected!r} != {actual!r}"
        for key in sorted(set(expected) | set(actual)):
            assert_same(expected.get(key), actual.get(key), f"{path}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list):
        assert len(expected) == len(actual), f"{path}: {len(actual)} entries, expected {len(expected)}"
        for index, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{index}]")
    elif is_default(expected) and is_default(actual):
        return
    elif isinstance(actual, (int, float)) and not isinstance(actual, bool) and isinstance(expected, (str, int, float)):
        number = int(expected) if isinstance(actual, int) else float(expected)
        assert number == actual, f"{path}: {actual!r}, expected {expected!r}"
    else:
        assert expected == actual, f"{path}: {actual!r}, expected {expected!r}"


@pytest.mark.parametrize("description, golden", frames("ServerMessage"))
def test_server_messages_decode_to_the_described_values(description, golden):
    buffer = wire.FrameBuffer()
    buffer.feed(golden)
    payload = buffer.next_payload()
    assert payload is not None, "a whole frame"
    message = wire.decode(payload)
    if description.get("unknown_in") == "event":
        assert message.is_event and message.event is None, "an event of a later kind is skipped"
        return
    assert_same(description["value"], decoded_as_json(message))
