"""stash_client: talk to stashd, the stash offline-download daemon, from Python.

    from stash_client import Client

    with Client() as stash:                      # the daemon's default socket
        d = stash.add("https://example.org/a.mp3", id="a", title="A song")
        print(stash.wait(d.id).state)            # COMPLETED

``Client`` blocks; ``AsyncClient`` is the same for asyncio. Records are dataclasses laid out as
the messages of proto/stash/v1/stash.proto, with states as names; failures raise StashError
with the status code's name. The wire is PROTOCOL.md's: u32 big-endian length-prefixed
protobuf frames on a Unix socket. The package is typed (py.typed): mypy checks an app's calls.
"""
from .aio import AsyncClient, AsyncEventStream
from .client import Client, EventStream, default_socket_path
from .errors import StashError
from .options import AddOptions
from .records import (
    TERMINAL_STATES, BundleFile, Config, Download, DownloadError, DownloadPage, DrmParams, EventsLost, ExportProgress,
    ExportResult, ExportTrack, Finding, GroupTotals, HasResult, Header, HelloResult, HlsOptions, LicenseEvent, LicenseStatus, ManifestInfo,
    PlaybackKey, Progress, PurgeResult, Removed, RenditionInfo, SettingsChanged, StateChanged, Stats, Subtitles, SystemInfo, TextTrack,
    VariantInfo, VerifyReport)
from .budget import MAX_DECODED_BYTES
from .wire import MAX_FRAME_LENGTH, PROTOCOL_VERSION

__all__ = [
    "AddOptions", "AsyncClient", "AsyncEventStream", "BundleFile", "Client", "Config", "Download", "DownloadError", "DownloadPage",
    "DrmParams", "EventStream", "EventsLost", "ExportProgress", "ExportResult", "ExportTrack", "Finding", "GroupTotals", "HasResult", "Header",
    "HelloResult", "HlsOptions", "LicenseEvent", "LicenseStatus", "MAX_DECODED_BYTES", "MAX_FRAME_LENGTH", "ManifestInfo",
    "PROTOCOL_VERSION", "PlaybackKey", "Progress", "PurgeResult", "Removed", "RenditionInfo", "SettingsChanged", "StashError",
    "StateChanged", "Stats", "Subtitles", "SystemInfo", "TERMINAL_STATES", "TextTrack", "VariantInfo", "VerifyReport",
    "default_socket_path",
]
