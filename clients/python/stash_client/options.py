"""What callers pass in beyond plain strings and numbers: the shapes the clients accept for
headers and for the options of ``add``. A record class (Header, BundleFile, ...) or a dict with
its field names is accepted wherever one is expected."""
from typing import Any, Iterable, List, Mapping, Optional, Tuple, TypedDict, Union

from .records import BundleFile, DrmParams, Header, HlsOptions, TextTrack

Headers = Union[Mapping[str, str], Iterable[Union[Header, Tuple[str, str], List[str]]]]
"""HTTP headers: a dict, or (name, value) pairs, or Header records."""

BundleFiles = Iterable[Union[str, BundleFile, Mapping[str, Any]]]
"""A bundle's files: URLs, BundleFile records or dicts."""

TextTracks = Iterable[Union[TextTrack, Mapping[str, Any]]]


class AddOptions(TypedDict, total=False):
    """The options of ``add`` (PROTOCOL.md, AddDownload); a name not here is refused with
    INVALID_ARGUMENT naming it."""

    sha256: Optional[str]
    headers: Optional[Headers]
    files: Optional[BundleFiles]
    hls: Union[HlsOptions, Mapping[str, Any], None]
    drm: Union[DrmParams, Mapping[str, Any], None]
    force: bool
    app_data: Optional[bytes]
    group: Optional[str]
    append: bool
    text_tracks: Optional[TextTracks]
    rate_limit: int
    expect: Optional[str]
    min_size: int
    priority: Optional[str]
    replace: bool
    network: str  # "any" or "unmetered"; not given: the daemon's config (feature "desktop")
    on_battery: str  # "continue" or "pause"
