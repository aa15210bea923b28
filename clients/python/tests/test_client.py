"""Client and AsyncClient against a real stashd and HTTP server: every operation, successes
and refusals, events, wait, and a daemon that stops answering."""
import asyncio
import os
import time
from typing import Any, Dict, List

import pytest

from stash_client import (
    AsyncClient, BundleFile, Client, Download, EventsLost, ExportProgress, HlsOptions, Progress, Removed, SettingsChanged,
    StashError, StateChanged, TextTrack)


@pytest.fixture
def client(daemon):
    with Client(daemon.socket, timeout=30) as c:
        yield c


def url(daemon, path):
    return daemon.base_url + path


def refused(code, part, call, *args, **kwargs):
    with pytest.raises(StashError) as failure:
        call(*args, **kwargs)
    assert failure.value.code == code, failure.value.message
    assert part in failure.value.message
    return failure.value


def test_hello(client):
    assert client.daemon_version
    assert "bundles" in client.features and "events" in client.features
    hello = client.hello()
    assert hello.protocol_version == 1 and hello.daemon_version == client.daemon_version


def test_nothing_listening_is_unavailable(daemon):
    refused("UNAVAILABLE", "cannot reach stashd", Client, os.path.join(daemon.work, "nothing.sock"))


def test_a_file_with_its_options_and_progress_until_completed(daemon, client):
    with client.events(ids=["py-file"]) as events:
        added = client.add(url(daemon, "/slow/600000/py-file.bin"), id="py-file", title="Épisode 1",
                           headers={"X-Test": "python"}, app_data=b"\x00\x01\xff", group="py/tests")
        assert added.created and added.state in ("QUEUED", "PREPARING")
        progress = []
        for event in events:
            if isinstance(event, Progress):
                progress.append(event.progress)
            if isinstance(event, StateChanged) and event.download.state == "COMPLETED":
                break
    assert progress and all(0 <= p <= 100 for p in progress)
    record = client.get("py-file")
    assert isinstance(record, Download)
    assert (record.state, record.progress, record.downloaded_bytes, record.total_bytes) == ("COMPLETED", 100, 600000,
                                                                                          600000)
    assert record.title == "Épisode 1" and record.group == "py/tests" and record.app_data == b"\x00\x01\xff"
    assert [(h.name, h.value) for h in record.headers] == [("X-Test", "python")]
    assert record.error is None and record.hls is None and not record.created
    assert os.path.getsize(record.asset_path) == 600000
    assert client.has("py-file") and client.has("py-file").state == "COMPLETED"
    assert not client.has("py-nothing") and client.has("py-nothing").state == "NOT_DOWNLOADED"
    again = client.add(url(daemon, "/slow/600000/py-file.bin"))
    assert again.id == "py-file" and not again.created


def test_a_bundle(daemon, client):
    files = [BundleFile(url(daemon, "/data/70000/py-b1.bin"), path="pages/1.bin", size=70000),
             {"url": url(daemon, "/data/80000/py-b2.bin"), "path": "pages/2.bin"},
             url(daemon, "/data/90000/py-b3.bin")]
    added = client.add(id="py-bundle", title="Chapter 1", files=files)
    assert added.bundle and added.files_total == 3
    record = client.wait("py-bundle", timeout=20)
    assert record.state == "COMPLETED"
    record = client.get("py-bundle")
    assert [f.path for f in record.files] == ["pages/1.bin", "pages/2.bin", "py-b3.bin"]
    assert all(f.done for f in record.files) and record.downloaded_bytes == 240000


def test_content_checks(daemon, client):
    """An error page served with 200 as a chapter page fails when an image is expected, naming
    the file, what was expected and what came; each file of a bundle may have its own rule."""
    client.add(url(daemon, "/page/py-page.jpg"), id="py-page", expect="image", min_size=10)
    record = client.wait("py-page", timeout=20)
    assert record.state == "FAILED" and record.error is not None and record.error.kind == "ERROR_VALIDATION"
    assert record.error.message == "py-page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')"
    assert (record.expect, record.min_size) == ("image", 10)
    client.cancel("py-page")
    files = [BundleFile(url(daemon, "/data/3000/py-r1.bin"), min_size=3000),
             {"url": url(daemon, "/data/3000/py-r2.bin"), "min_size": 4000}]
    client.add(id="py-rules", files=files)
    record = client.wait("py-rules", timeout=20)
    assert record.state == "FAILED", record
    assert record.error is not None and "expected at least 4000 bytes, got 3000 bytes" in record.error.message
    assert [(f.expect, f.min_size) for f in client.get("py-rules").files] == [("", 3000), ("", 4000)]
    client.cancel("py-rules")
    refused("INVALID_ARGUMENT", "expect 'picture'", client.add, url(daemon, "/data/10/x.jpg"), expect="picture")
    refused("INVALID_ARGUMENT", "files[0].min_size: -1 is not a byte count", client.add,
            files=[{"url": url(daemon, "/data/10/x.jpg"), "min_size": -1}])


def test_content_rules_are_refused_to_a_daemon_without_the_feature(daemon):
    """A daemon without "content-check" would keep any body: rules are refused before they are
    sent, by both clients; an add without rules still goes through."""
    with Client(daemon.socket, timeout=30) as client:
        client.features = tuple(f for f in client.features if f != "content-check")
        cases: List[Dict[str, Any]] = [
            {"expect": "image"}, {"min_size": 1}, {"files": [BundleFile(url(daemon, "/data/10/a.jpg"), expect="image")]},
            {"files": [url(daemon, "/data/10/b.jpg"), {"url": url(daemon, "/data/10/c.jpg"), "min_size": 1}]}]
        for options in cases:
            uri = None if "files" in options else url(daemon, "/data/10/py-nocheck.jpg")
            refused("UNIMPLEMENTED", "feature \"content-check\"", client.add, uri, id="py-nocheck", **options)
        refused("NOT_FOUND", "py-nocheck", client.get, "py-nocheck")
        assert client.add(url(daemon, "/data/10/py-nocheck.jpg"), id="py-nocheck").id == "py-nocheck"
        client.wait("py-nocheck", timeout=20)
        client.cancel("py-nocheck")

    async def add_with_rules():
        async with await AsyncClient.connect(daemon.socket, timeout=30) as aclient:
            aclient.features = tuple(f for f in aclient.features if f != "content-check")
            await aclient.add(url(daemon, "/data/10/py-nocheck.jpg"), id="py-nocheck-async", expect="image")
    with pytest.raises(StashError) as failure:
        asyncio.run(add_with_rules())
    assert failure.value.code == "UNIMPLEMENTED" and "feature \"content-check\"" in failure.value.message
def test_replace(daemon, client):
    """A COMPLETED file fetched again and swapped in, COMPLETED all along, and a bundle too; a
    daemon without the feature is refused before anything is sent."""
    client.add(url(daemon, "/data/3000/py-rep.bin"), id="py-rep")
    assert client.wait("py-rep", timeout=20).state == "COMPLETED"
    answer = client.add(url(daemon, "/data/3000/py-rep.bin"), id="py-rep", replace=True)
    assert answer.state == "COMPLETED" and not answer.created
    deadline = time.monotonic() + 20
    while client.get("py-rep").state_reason != "replaced by a new copy" and time.monotonic() < deadline:
        time.sleep(0.01)
    record = client.get("py-rep")
    assert (record.state, record.state_reason) == ("COMPLETED", "replaced by a new copy")
    client.add(id="py-rep-bundle", files=[url(daemon, "/data/100/py-rep-page.jpg")])
    assert client.wait("py-rep-bundle", timeout=20).state == "COMPLETED"
    client.add(id="py-rep-bundle", files=[url(daemon, "/data/100/py-rep-page.jpg")], replace=True)
    deadline = time.monotonic() + 20
    while client.get("py-rep-bundle").state_reason != "replaced by a new copy" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.get("py-rep-bundle").state_reason == "replaced by a new copy"
    client.features = tuple(f for f in client.features if f != "replace-any")
    refused("UNIMPLEMENTED", "feature \"replace-any\"", client.add, id="py-rep-bundle",
            files=[url(daemon, "/data/100/py-rep-page.jpg")], replace=True)
    client.features = tuple(f for f in client.features if f != "replace")
    refused("UNIMPLEMENTED", "feature \"replace\"", client.add, url(daemon, "/data/3000/py-rep.bin"), id="py-rep", replace=True)
    client.cancel("py-rep")
    client.cancel("py-rep-bundle")


def test_list_and_pages(daemon, client):
    client.add(url(daemon, "/data/1000/py-l1.bin"), id="py-l1", group="py-list/a")
    client.add(url(daemon, "/data/2000/py-l2.bin"), id="py-l2", group="py-list/b")
    for id in ("py-l1", "py-l2"):
        client.wait(id, timeout=20)
    listed = client.list(state="COMPLETED", group="py-list")
    assert sorted(d.id for d in listed) == ["py-l1", "py-l2"]
    page = client.list_page(group="py-list", page_size=1)
    assert len(page.downloads) == 1 and page.total == 2 and page.next_page_token
    assert page.totals.bytes_downloaded == 3000 and page.totals.states == {"COMPLETED": 2}
    rest = client.list_page(group="py-list", page_size=1, page_token=page.next_page_token)
    assert rest.downloads[0].id != page.downloads[0].id and not rest.next_page_token
    assert client.list(state=["FAILED", "STOPPED"], group="py-list") == []
    refused("INVALID_ARGUMENT", "5000", client.list_page, page_size=5000)
    refused("INVALID_ARGUMENT", "'DONE' is not a state", client.list, state="DONE")


def test_pause_resume_stop_cancel(daemon, client):
    with client.events(ids=["py-big"]) as events:
        client.add(url(daemon, "/slow/40000000/py-big.bin"), id="py-big")
        for event in events:
            if isinstance(event, StateChanged) and event.download.state == "DOWNLOADING":
                break
        assert client.pause("py-big").state == "PAUSED"
        assert client.resume("py-big").state != "PAUSED"
        stopped = client.stop("py-big", reason="waiting for Wi-Fi")
        assert (stopped.state, stopped.state_reason) == ("STOPPED", "waiting for Wi-Fi")
        assert client.cancel("py-big") is None
        assert any(isinstance(event, Removed) for event in events)
    refused("NOT_FOUND", "py-big", client.get, "py-big")
    refused("NOT_FOUND", "py-big", client.cancel, "py-big")


def test_refusals_name_the_field_and_keep_the_connection(daemon, client):
    error = refused("INVALID_ARGUMENT", "../bad", client.add, url(daemon, "/data/10/x"), id="../bad")
    assert error.status == 1 and str(error).startswith("INVALID_ARGUMENT: ")
    refused("INVALID_ARGUMENT", "ftp", client.add, "ftp://example.org/x")
    client.add(url(daemon, "/data/10/py-taken.bin"), id="py-taken")
    refused("ALREADY_EXISTS", "py-taken", client.add, url(daemon, "/data/10/other.bin"), id="py-taken")
    refused("INVALID_ARGUMENT", "unknown option tittle", client.add, url(daemon, "/data/10/x"), tittle="x")
    refused("NOT_FOUND", "py-nothing", client.get, "py-nothing")
    refused("INVALID_ARGUMENT", "id", client.get, None)
    client.wait("py-taken", timeout=20)
    refused("FAILED_PRECONDITION", "COMPLETED", client.pause, "py-taken")
    assert client.has("py-taken")


def test_config(client):
    assert client.config_get().max_parallel >= 1
    config = client.config_set({"max-parallel": 4, "files-per-download": 6})
    assert (config.max_parallel, config.files_per_download) == (4, 6)
    assert client.config_get("max-parallel") == 4
    assert client.config_set("max-parallel", 3).max_parallel == 3
    refused("INVALID_ARGUMENT", "max-parallel", client.config_set, "max-parallel", 0)
    refused("INVALID_ARGUMENT", "no-such-key", client.config_set, "no-such-key", 1)
    refused("INVALID_ARGUMENT", "no-such-key", client.config_get, "no-such-key")
    # The desktop's settings are words (docs/DESKTOP.md).
    assert client.config_set("network", "unmetered").network == "unmetered"
    assert client.config_set("on-battery", "pause").on_battery == "pause"
    assert client.config_set("notify", "all").notify == "all"
    assert client.config_set("notify", "none").notify == ""
    assert client.config_set("inhibit-sleep", "no").inhibit_sleep == "no"
    assert client.config_set("inhibit-sleep", "delay").inhibit_sleep == ""
    refused("INVALID_ARGUMENT", "cellular", client.config_set, "network", "cellular")
    back = client.config_set({"network": "any", "on-battery": "continue"})
    assert (back.network, back.on_battery) == ("", "")  # the defaults read as ""


def test_info_stats_verify_purge(daemon, client):
    client.add(url(daemon, "/data/5000/py-info.bin"), id="py-info")
    client.wait("py-info", timeout=20)
    info = client.info()
    assert info.data_dir.startswith(daemon.work) and info.socket_path == daemon.socket
    assert info.last_verify is not None and isinstance(info.bytes_by_state, dict)
    # No NetworkManager on the tests' buses: said in words, and nothing holds.
    assert info.network_service != "" and info.power_service != "" and info.sleep_inhibitor != ""
    assert not info.metered and not info.on_battery
    stats = client.stats()
    assert stats.counts.get("COMPLETED", 0) >= 1
    report = client.verify(deep=True, dry_run=True)
    assert report.deep and report.findings == () and report.downloads_checked >= 1
    os.mkdir(os.path.join(daemon.work, "data", "assets", "py-orphan"))
    purged = client.purge()
    assert any("py-orphan" in path for path in purged.paths)


def test_hls_plan_export_subtitles_and_licences(daemon, client):
    plan = client.plan(url(daemon, "/hls/master.m3u8"))
    assert [v.height for v in plan.variants] == [360, 720]
    assert plan.variants[0].codecs == ("avc1.4d401e", "mp4a.40.2") and plan.variants[0].duration == 6.5
    refused("INVALID_ARGUMENT", "ftp", client.plan, "ftp://x/master.m3u8")
    client.add(url(daemon, "/hls/master.m3u8"), id="py-hls", hls=HlsOptions(quality="low", max_height=720))
    assert client.wait("py-hls", timeout=20).hls == HlsOptions(quality="low", max_height=720, segment_concurrency=8)
    exported = client.export("py-hls", os.path.join(daemon.work, "py-export"))
    assert exported.files >= 4 and not exported.decrypted
    # The harness's segments are made up: no media to remux, and that is said.
    refused("FAILED_PRECONDITION", "cannot write", client.export_file, "py-hls", os.path.join(daemon.work, "py-hls.mkv"))
    refused("INVALID_ARGUMENT", "avi", client.export_file, "py-hls", os.path.join(daemon.work, "py-hls.avi"), "avi")

    # Part of the stream: the second segment alone (4 s to 6.5 s), its end clamped.
    assert "time-range" in client.features
    window = client.plan(url(daemon, "/hls/master.m3u8"), start=4, end=100)
    assert (window.start, window.end) == (4, 6.5) and window.duration == 6.5
    assert window.warnings[0].startswith("hls.end 100 is past the end of the stream, which lasts 6.5 s")
    assert window.variants[0].estimated_bytes == 700_000 * 2.5 / 8
    assert client.plan(url(daemon, "/hls/master.m3u8")).start is None, "no range asked, none answered"
    refused("INVALID_ARGUMENT", "lasts 6.5 s", client.plan, url(daemon, "/hls/master.m3u8"), start=6.5)
    refused("INVALID_ARGUMENT", "hls.end nan", client.add, url(daemon, "/hls/master.m3u8"), hls=HlsOptions(end=float("nan")))
    client.add(url(daemon, "/hls/master.m3u8"), id="py-clip", hls=HlsOptions(quality="low", start=4, end=100))
    clip = client.wait("py-clip", timeout=20)
    assert clip.hls is not None and (clip.hls.start, clip.hls.end) == (4, 6.5) and clip.files_total == 1

    client.add(url(daemon, "/data/4000/py-sub.bin"), id="py-sub")
    client.wait("py-sub", timeout=20)
    record = client.subtitles_add("py-sub", text_tracks=[TextTrack(url(daemon, "/data/300/py-en.vtt"), "en", "English")])
    assert record.has_subtitles and len(record.text_tracks) == 1
    client.wait("py-sub", timeout=20)
    assert client.get("py-sub").state == "COMPLETED"
    assert [t.path for t in client.subtitles_get("py-sub").text_tracks] == ["subtitles/en.vtt"]
    assert client.subtitles_remove("py-sub", ["en"]).text_tracks == ()

    refused("FAILED_PRECONDITION", "py-sub", client.license_check, "py-sub")
    refused("FAILED_PRECONDITION", "py-sub", client.license_get, "py-sub")
    refused("FAILED_PRECONDITION", "py-sub", client.license_renew, "py-sub")
    refused("NOT_FOUND", "py-nothing", client.license_release, "py-nothing")
    assert client.license_release_all() == 0
    refused("FAILED_PRECONDITION", "licence", client.playback_key, "py-sub")


def test_dash_plan_and_add(daemon, client):
    """An MPD (made by ffmpeg, clients/tests/harness.py) planned and downloaded like HLS."""
    assert "dash" in client.features
    plan = client.plan(url(daemon, "/dash/manifest.mpd"))
    assert [(v.width, v.height, v.bandwidth) for v in plan.variants] == [(256, 144, 200_000), (426, 240, 600_000)]
    assert plan.duration == 4 and len(plan.audio) == 1
    client.add(url(daemon, "/dash/manifest.mpd"), id="py-dash", hls=HlsOptions(quality="low"))
    done = client.wait("py-dash", timeout=20)
    assert done.state == "COMPLETED" and done.quality.startswith("426x240,"), done.quality
    assert done.files_done == done.files_total == 2 * (1 + 2), "video and audio, each an init and two segments"
    assert os.path.exists(os.path.join(daemon.work, "data", "assets", "py-dash", "manifest.mpd"))


def test_export_a_single_file(daemon, client):
    client.add(url(daemon, "/data/5000/py-one.bin"), id="py-one")
    done = client.wait("py-one", timeout=20)
    target = os.path.join(daemon.work, "py-one.copy")
    with client.events(ids=["py-one"]) as stream:
        copied = client.export_file("py-one", target)
        progress = stream.next(time.monotonic() + 10)
        while progress is not None and not (isinstance(progress, ExportProgress) and progress.progress == 100):
            progress = stream.next(time.monotonic() + 10)
    assert isinstance(progress, ExportProgress) and progress.file == target and progress.bytes_done == 5000
    assert (copied.file, copied.bytes, copied.format, copied.tracks, copied.linked) == (target, 5000, "EXPORT_FORMAT_UNSPECIFIED", (), False)
    with open(target, "rb") as a, open(done.asset_path, "rb") as b:
        assert a.read() == b.read()
    refused("ALREADY_EXISTS", "force", client.export_file, "py-one", target)
    linked = client.export_file("py-one", target, force=True, link=True)
    assert linked.linked and os.stat(target).st_ino == os.stat(done.asset_path).st_ino


def test_forget_and_adopt(daemon, client):
    client.add(url(daemon, "/data/7000/py-forget.bin"), id="py-forget")
    client.wait("py-forget", timeout=20)
    folder = os.path.join(daemon.work, "py-handed-over")
    os.mkdir(folder)
    moved = client.forget("py-forget", folder)
    assert moved.asset_path.startswith(folder) and os.path.getsize(moved.asset_path) == 7000
    adopted = client.adopt(moved.asset_path, "py-adopted", url=url(daemon, "/data/7000/py-forget.bin"))
    assert adopted.state == "COMPLETED" and adopted.created
    refused("INVALID_ARGUMENT", "relative/path", client.adopt, "relative/path", "py-x")


def test_wait_times_out_and_sees_a_cancel(daemon, client):
    client.add(url(daemon, "/slow/40000000/py-wait.bin"), id="py-wait")
    with pytest.raises(TimeoutError, match="py-wait"):
        client.wait("py-wait", timeout=0.3)
    with Client(daemon.socket) as other:
        timer = __import__("threading").Timer(0.3, other.cancel, ["py-wait"])
        timer.start()
        refused("NOT_FOUND", "cancelled", client.wait, "py-wait", timeout=20)
        timer.join()


def stale_outcome_then_paused(daemon, id):
    """A download that fails, is resumed to fail again, then gets a good URL and is paused: the
    steps a wait subscribed before them finds in its stream, older than the PAUSED it reads."""
    with Client(daemon.socket, timeout=30) as other:
        other.resume(id)
        assert other.wait(id, timeout=20).state == "FAILED"
        other.set_uri(id, url(daemon, "/slow/1000000/" + id + ".bin"))
        other.resume(id)
        return other.pause(id)


def test_wait_skips_a_stale_outcome_in_its_stream(daemon, client, monkeypatch):
    client.add(url(daemon, "/missing/py-stale"), id="py-stale")
    assert client.wait("py-stale", timeout=20).state == "FAILED"
    read = client.get

    def read_after_changes(id):
        stale_outcome_then_paused(daemon, id)
        record = read(id)
        assert record.state == "PAUSED"
        with Client(daemon.socket, timeout=30) as other:
            other.resume(id)
        return record

    monkeypatch.setattr(client, "get", read_after_changes)
    assert client.wait("py-stale", timeout=20).state == "COMPLETED"


def test_async_wait_skips_a_stale_outcome_in_its_stream(daemon, monkeypatch):
    async def scenario():
        async with await AsyncClient.connect(daemon.socket, timeout=30) as client:
            await client.add(url(daemon, "/missing/py-stale-async"), id="py-stale-async")
            assert (await client.wait("py-stale-async", timeout=20)).state == "FAILED"
            read = client.get

            async def read_after_changes(id):
                stale_outcome_then_paused(daemon, id)
                record = await read(id)
                assert record.state == "PAUSED"
                await client.resume(id)
                return record

            monkeypatch.setattr(client, "get", read_after_changes)
            assert (await client.wait("py-stale-async", timeout=20)).state == "COMPLETED"

    asyncio.run(scenario())


def test_async_client(daemon):
    async def scenario():
        async with await AsyncClient.connect(daemon.socket, timeout=30) as client:
            assert client.daemon_version and "events" in client.features
            added = await client.add(url(daemon, "/slow/300000/py-async.bin"), id="py-async")
            assert added.created
            # Calls in flight together on one connection, answered by id.
            record, has, stats = await asyncio.gather(client.get("py-async"), client.has("py-async"), client.stats())
            assert record.id == "py-async" and has.exists and stats.active_transfers >= 0
            assert (await client.wait("py-async", timeout=20)).state == "COMPLETED"
            assert [d.id for d in await client.list(group="")].count("py-async") == 1
            assert await client.config_get("max-parallel") >= 1
            async with client.events(ids=["py-async"]) as events:
                await client.cancel("py-async")
                kinds = []
                async for event in events:
                    kinds.append(type(event).__name__)
                    if isinstance(event, Removed):
                        break
            assert kinds[-1] == "Removed" and "StateChanged" in kinds
            with pytest.raises(StashError) as failure:
                await client.get("py-async")
            assert failure.value.code == "NOT_FOUND"
        with pytest.raises(StashError) as failure:
            await AsyncClient.connect(os.path.join(daemon.work, "nothing.sock"))
        assert failure.value.code == "UNAVAILABLE"
    asyncio.run(scenario())


def test_every_download_at_once(fresh_daemon):
    with Client(fresh_daemon.socket) as client:
        client.add(url(fresh_daemon, "/slow/40000000/py-all-1.bin"), id="py-all-1")
        client.add(url(fresh_daemon, "/slow/40000000/py-all-2.bin"), id="py-all-2")
        assert client.pause_all() == 2
        assert client.resume_all() == 2
        assert client.cancel_all() == 2
        assert client.list() == []


def test_a_group_in_one_request(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        assert "group-ops" in client.features
        # First, before the slow ones take every transfer slot.
        client.add(url(fresh_daemon, "/nowhere"), id="py-broken", group="py/sub")
        assert client.wait("py-broken", timeout=20).state == "FAILED", "no route: the server answers 404"
        for id, group in (("py-top", "py"), ("py-sub", "py/sub"), ("py-next", "py-2")):
            client.add(url(fresh_daemon, f"/slow/40000000/{id}.bin"), id=id, group=group)
        assert client.pause_group("py") == 2
        assert client.get("py-next").state != "PAUSED", "py-2 is another group"
        assert client.resume_group("py/sub") == 1, "the PAUSED one, not the FAILED one"
        assert client.get("py-broken").state == "FAILED"
        assert client.resume_group("py", include_failed=True) == 2, "py-top (PAUSED) and py-broken (FAILED)"

        async def cancel():
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return await aclient.cancel_group("py")
        assert asyncio.run(cancel()) == 3
        assert [d.id for d in client.list()] == ["py-next"]
        refused("INVALID_ARGUMENT", "use PauseAll for every download", client.pause_group, "")
        refused("INVALID_ARGUMENT", "'a//b'", client.resume_group, "a//b", include_failed=True)
        refused("INVALID_ARGUMENT", "group", client.cancel_group, None)


def test_priority_and_queue_order(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        assert "priority" in client.features
        assert client.config_get().preempt is True, "on by default"
        assert client.config_set({"max-parallel": 1, "preempt": 0}).preempt is False
        client.add(url(fresh_daemon, "/slow/40000000/py-run.bin"), id="py-run")
        for id in ("py-a", "py-b"):
            assert client.add(url(fresh_daemon, f"/slow/40000000/{id}.bin"), id=id).priority == "PRIORITY_NORMAL"
        assert client.add(url(fresh_daemon, "/slow/40000000/py-low.bin"), id="py-low", priority="low").priority == "PRIORITY_LOW"
        assert [d.id for d in client.queue()] == ["py-a", "py-b", "py-low"]
        client.move("py-b", top=True)
        assert client.move("py-low", before="py-a").priority == "PRIORITY_NORMAL", "next to py-a, with its priority"
        assert [d.id for d in client.queue()] == ["py-b", "py-low", "py-a"]
        assert client.set_priority("py-a", "high").priority == "PRIORITY_HIGH"
        assert [d.id for d in client.queue()] == ["py-a", "py-b", "py-low"]
        refused("NOT_FOUND", "'nope'", client.move, "nope", top=True)
        refused("FAILED_PRECONDITION", "'py-run' is", client.move, "py-run", bottom=True)
        refused("FAILED_PRECONDITION", "'py-run' is", client.move, "py-a", after="py-run")
        refused("INVALID_ARGUMENT", "itself", client.move, "py-a", before="py-a")
        refused("INVALID_ARGUMENT", "one of top", client.move, "py-a", top=True, bottom=True)
        refused("INVALID_ARGUMENT", "'urgent'", client.set_priority, "py-a", "urgent")
        refused("INVALID_ARGUMENT", "'soon'", client.add, url(fresh_daemon, "/x"), priority="soon")

        async def queue():
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                await aclient.move("py-low", top=True)
                return [d.id for d in await aclient.queue()]
        assert asyncio.run(queue()) == ["py-a", "py-low", "py-b"]
        client.cancel_all()


def test_priority_is_refused_to_a_daemon_without_it(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        client.features = tuple(f for f in client.features if f != "priority")
        refused("UNIMPLEMENTED", "feature \"priority\"", client.set_priority, "a", "high")
        refused("UNIMPLEMENTED", "feature \"priority\"", client.move, "a", top=True)
        refused("UNIMPLEMENTED", "feature \"priority\"", client.add, url(fresh_daemon, "/x"), priority="high")


def test_a_daemon_that_stops_answering(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=0.3) as client:
        fresh_daemon.freeze()
        try:
            refused("UNAVAILABLE", "no answer from stashd within 0.3 s", client.get, "x")
        finally:
            fresh_daemon.thaw()
        refused("UNAVAILABLE", "no answer", client.has, "x")


def test_events_lost_is_a_record():
    assert EventsLost(seq=9, time=1, first_seq=3, last_seq=8, count=6).count == 6


def test_a_new_url_for_a_download(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        client.add(url(fresh_daemon, "/data/70000/py-uri.bin"), id="py-uri")
        client.wait("py-uri", timeout=20)
        renewed = url(fresh_daemon, "/data/70000/py-uri.bin?sig=2")
        assert client.set_uri("py-uri", renewed).uri == renewed
        assert client.get("py-uri").uri == renewed
        for bad, says in (("ftp://h/x", "'ftp://h/x'"), ("", "uri is empty"), (None, "uri: None")):
            with pytest.raises(StashError) as refused:
                client.set_uri("py-uri", bad)  # type: ignore[arg-type]
            assert refused.value.code == "INVALID_ARGUMENT" and says in str(refused.value)
        with pytest.raises(StashError) as refused:
            client.set_uri("nope", renewed)
        assert refused.value.code == "NOT_FOUND" and "'nope'" in str(refused.value)

        async def set_async() -> str:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return (await aclient.set_uri("py-uri", renewed + "3")).uri
        assert asyncio.run(set_async()) == renewed + "3"
        client.features = tuple(f for f in client.features if f != "set-uri")
        with pytest.raises(StashError) as refused:
            client.set_uri("py-uri", renewed)
        assert refused.value.code == "UNIMPLEMENTED" and "set-uri" in str(refused.value)


def test_several_settings_in_one_request_are_applied_whole(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        client.add(url(fresh_daemon, "/data/1000/py-set.bin"), id="py-set")
        client.wait("py-set", timeout=20)
        old = url(fresh_daemon, "/data/1000/py-set.bin")
        renewed = old + "?sig=2"
        with pytest.raises(StashError) as refused:
            client.set_download("py-set", uri=renewed, rate_limit=1024, license_headers={"Authorization": "Bearer t"})
        assert refused.value.code == "INVALID_ARGUMENT" and "no licence server" in str(refused.value)
        kept = client.get("py-set")
        assert (kept.uri, kept.rate_limit) == (old, 0), "a refused field changes nothing"
        changed = client.set_download("py-set", uri=renewed, rate_limit=1024, priority="high", headers={"X-App": "7"})
        assert (changed.uri, changed.rate_limit, changed.priority) == (renewed, 1024, "PRIORITY_HIGH")
        assert [(h.name, h.value) for h in changed.headers] == [("X-App", "7")]

        async def set_async() -> int:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return (await aclient.set_download("py-set", rate_limit=0, clear_headers=True)).rate_limit
        assert asyncio.run(set_async()) == 0
        with pytest.raises(StashError) as refused:
            client.set_download("py-set")
        assert refused.value.code == "INVALID_ARGUMENT" and "no setting" in str(refused.value)


def test_a_new_url_for_a_bundle_file(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        client.add(id="py-furi", files=[url(fresh_daemon, "/data/1000/py-f1.bin"), url(fresh_daemon, "/data/2000/py-f2.bin")])
        client.wait("py-furi", timeout=20)
        renewed = url(fresh_daemon, "/data/2000/py-f2.bin?sig=2")
        changed = client.set_uri("py-furi", renewed, file="py-f2.bin")
        assert [f.url for f in changed.files] == [url(fresh_daemon, "/data/1000/py-f1.bin"), renewed]
        assert client.get("py-furi").files[1].url == renewed
        for path, code, says in (("nope.bin", "NOT_FOUND", "no file 'nope.bin'"), ("", "INVALID_ARGUMENT", "file: ''"),
                                 (None, "INVALID_ARGUMENT", "--file PATH")):
            with pytest.raises(StashError) as refused:
                client.set_uri("py-furi", renewed, file=path)
            assert refused.value.code == code and says in str(refused.value)

        async def set_async() -> str:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return (await aclient.set_uri("py-furi", renewed + "3", file="py-f2.bin")).files[1].url
        assert asyncio.run(set_async()) == renewed + "3"
        client.features = tuple(f for f in client.features if f != "set-file-uri")
        with pytest.raises(StashError) as refused:
            client.set_uri("py-furi", renewed, file="py-f2.bin")
        assert refused.value.code == "UNIMPLEMENTED" and "set-file-uri" in str(refused.value)


def test_new_headers_for_a_download(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        client.add(url(fresh_daemon, "/data/1000/py-hdr.bin"), id="py-hdr", headers={"Authorization": "Bearer old", "X-App": "7"})
        client.wait("py-hdr", timeout=20)
        with client.events(ids=["py-hdr"]) as events:
            changed = client.set_headers("py-hdr", [("authorization", "Bearer new")])
            assert [(h.name, h.value) for h in changed.headers] == [("authorization", "Bearer new"), ("X-App", "7")]
            for event in events:
                if isinstance(event, SettingsChanged):
                    assert event.changed == ("headers",) and event.download.headers == changed.headers
                    break
        assert client.set_headers("py-hdr", clear=True).headers == ()
        big = "v" * (100 * 1024)
        for headers, code, says in (({"": "v"}, "INVALID_ARGUMENT", "header name ''"),
                                    ({"X-Bad": "a\r\nInjected: 1"}, "INVALID_ARGUMENT", "'a\\r\\nInjected: 1'"),
                                    ({"X-Big": big}, "INVALID_ARGUMENT", "102400 bytes; the limit is 8192"),
                                    ([("X-A", "1", "extra")], "INVALID_ARGUMENT", "is not a header"),
                                    (None, "INVALID_ARGUMENT", "none given")):
            with pytest.raises(StashError) as refused:
                client.set_headers("py-hdr", headers)  # type: ignore[arg-type]
            assert refused.value.code == code and says in str(refused.value), str(refused.value)[:300]
        with pytest.raises(StashError) as refused:
            client.set_license_headers("py-hdr", {"Authorization": "Bearer t"})
        assert refused.value.code == "INVALID_ARGUMENT" and "no licence server" in str(refused.value)

        async def set_async() -> int:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return len((await aclient.set_headers("py-hdr", {"X-One": "1"})).headers)
        assert asyncio.run(set_async()) == 1
        client.features = tuple(f for f in client.features if f != "set-headers")
        with pytest.raises(StashError) as refused:
            client.set_headers("py-hdr", {"X-One": "2"})
        assert refused.value.code == "UNIMPLEMENTED" and "set-headers" in str(refused.value)


def test_a_rate_limit_per_download_and_the_schedule(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        added = client.add(url(fresh_daemon, "/data/70000/py-rate.bin"), id="py-rate", rate_limit=1 << 20)
        assert added.rate_limit == 1 << 20
        assert client.wait("py-rate", timeout=20).rate_limit == 1 << 20
        for bad in (-1, 1 << 63, "1M", True):
            with pytest.raises(StashError) as refused:
                client.add(url(fresh_daemon, "/data/10/py-bad.bin"), rate_limit=bad)  # type: ignore[arg-type]
            assert refused.value.code == "INVALID_ARGUMENT" and "rate_limit" in str(refused.value)
        config = client.config_set("rate-schedule", "Mon-Sun 00:00-24:00 2M")
        assert config.rate_schedule == "Mon,Tue,Wed,Thu,Fri,Sat,Sun 00:00-24:00 2M"
        schedule: str = client.config_get("rate-schedule")
        assert schedule == config.rate_schedule
        info = client.info()
        assert info.rate_limit_now == 2 << 20 and info.rate_limit_changes_at == 0
        assert client.set_rate_limit("py-rate", 512 << 10).rate_limit == 512 << 10
        assert client.get("py-rate").rate_limit == 512 << 10
        assert client.set_rate_limit("py-rate", 0).rate_limit == 0
        for bad in (-1, 1 << 63, "1M", True, None):
            with pytest.raises(StashError) as refused:
                client.set_rate_limit("py-rate", bad)  # type: ignore[arg-type]
            assert refused.value.code == "INVALID_ARGUMENT" and "rate_limit" in str(refused.value)
        with pytest.raises(StashError) as refused:
            client.set_rate_limit("nope", 1)
        assert refused.value.code == "NOT_FOUND" and "'nope'" in str(refused.value)

        async def set_async() -> int:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return (await aclient.set_rate_limit("py-rate", 1 << 20)).rate_limit
        assert asyncio.run(set_async()) == 1 << 20
        client.features = tuple(f for f in client.features if f != "set-download")
        with pytest.raises(StashError) as refused:
            client.set_rate_limit("py-rate", 1)
        assert refused.value.code == "UNIMPLEMENTED" and "set-download" in str(refused.value)
        with pytest.raises(StashError) as refused:
            client.config_set("rate-schedule", "Mon-Fri 9:00-18:00 1M")
        assert "rule 1" in str(refused.value) and "9:00-18:00" in str(refused.value)


def test_a_downloads_own_network_and_battery_rules(fresh_daemon):
    with Client(fresh_daemon.socket, timeout=30) as client:
        added = client.add(url(fresh_daemon, "/data/1000/py-rules.bin"), id="py-rules", network="any")
        assert (added.network, added.on_battery) == ("any", "")
        client.wait("py-rules", timeout=20)
        changed = client.set_desktop_rules("py-rules", on_battery="pause")
        assert (changed.network, changed.on_battery) == ("any", "pause")
        for call, says in ((lambda: client.set_desktop_rules("py-rules", network="cellular"), "'cellular'"),
                           (lambda: client.set_desktop_rules("py-rules"), "give network, on_battery or both"),
                           (lambda: client.add(url(fresh_daemon, "/data/10/py-x.bin"), on_battery="stop"), "'stop'")):
            with pytest.raises(StashError) as refused:
                call()
            assert refused.value.code == "INVALID_ARGUMENT" and says in str(refused.value)

        async def set_async() -> str:
            async with await AsyncClient.connect(fresh_daemon.socket) as aclient:
                return (await aclient.set_desktop_rules("py-rules", network="unmetered")).network
        assert asyncio.run(set_async()) == "unmetered"
        client.features = tuple(f for f in client.features if f != "desktop")
        with pytest.raises(StashError) as refused:
            client.set_desktop_rules("py-rules", network="any")
        assert refused.value.code == "UNIMPLEMENTED" and "desktop" in str(refused.value)
