"""The operations of PROTOCOL.md section 5, named after the `stash` command line, written once
for both clients: each builds its Request and hands it to the client's ``_call``, which returns
the result (Client) or an awaitable of it (AsyncClient)."""
from . import wire


class Operations:
    """Calls shared by Client and AsyncClient. Every one raises StashError when the daemon
    refuses (its ``code`` and ``message`` name what and why) or cannot be reached."""

    def _call(self, request, expected, transform=None):
        raise NotImplementedError

    def hello(self):
        """Hello again (connecting said it): the daemon's protocol version, version and features."""
        return self._call(wire.hello(self.client_name), "hello")

    def add(self, url=None, id=None, title=None, **options):
        """Adds a download and returns its record (``created`` False when the same id or content
        was there already).

        ``url`` is the file's (or HLS master's) URL; for a bundle leave it out and give
        ``files``. ``id`` empty: the daemon picks one. Options: ``sha256`` (hex digest),
        ``headers`` (dict or pairs), ``files`` (URLs, BundleFile or dicts), ``hls`` (HlsOptions
        or dict), ``drm`` (DrmParams or dict), ``force`` (add even when another download holds
        the content), ``app_data`` (bytes, at most 64 KiB), ``group`` ("one-piece/ch-12"),
        ``append`` (add ``files`` to the bundle ``id``), ``text_tracks`` (TextTrack or dicts).
        """
        return self._call(wire.add(url, id, title, options), "download")

    def get(self, id):
        """The download's record (NOT_FOUND for an unknown id)."""
        return self._call(wire.by_id("get_download", id), "download")

    def has(self, id):
        """HasResult: true when the download exists, with its state; cheap."""
        return self._call(wire.by_id("has_download", id), "has")

    def list_page(self, state=None, group=None, page_size=0, page_token=None):
        """One page of ListDownloads: DownloadPage with the downloads, ``next_page_token`` ("" on
        the last page), ``total`` and the ``totals`` of every match. ``state`` is a state's name
        or a list of them; ``group`` takes that group and those under it."""
        return self._call(wire.list_downloads(state, group, page_size, page_token), "list")

    def pause(self, id):
        """Pauses a download (its partial files stay); returns the record."""
        return self._call(wire.by_id("pause", id), "download")

    def resume(self, id):
        """Queues a PAUSED, FAILED or STOPPED download again; returns the record."""
        return self._call(wire.by_id("resume", id), "download")

    def cancel(self, id):
        """Stops a download and deletes its files and record before it returns."""
        return self._call(wire.by_id("cancel", id), None, lambda result: None)

    def stop(self, id, reason=None):
        """Stops a download for the app's reason (STOPPED); only its resume lifts it."""
        return self._call(wire.stop(id, reason), "download")

    def forget(self, id, move_to):
        """Moves a COMPLETED download's files to the folder ``move_to`` and drops its record."""
        return self._call(wire.forget(id, move_to), "download")

    def adopt(self, path, id, url=None, sha256=None, link=False):
        """Takes a file or folder at the absolute ``path`` as the COMPLETED download ``id``."""
        return self._call(wire.adopt(path, id, url, sha256, link), "download")

    def pause_all(self):
        """Pauses every download that can be; returns how many."""
        return self._call(wire.empty("pause_all"), "count")

    def resume_all(self):
        """Resumes every PAUSED and FAILED download (not the STOPPED); returns how many."""
        return self._call(wire.empty("resume_all"), "count")

    def cancel_all(self):
        """Cancels every download; returns how many."""
        return self._call(wire.empty("cancel_all"), "count")

    def pause_group(self, group):
        """Pauses what can be paused of ``group`` and the groups under it ("one-piece" takes
        "one-piece/ch-12", not "one-piece-2") in one request; returns how many. Needs a daemon
        with the feature "group-ops" (an older one answers UNIMPLEMENTED)."""
        return self._call(wire.group("pause_group", group), "count")

    def resume_group(self, group, include_failed=False):
        """Resumes the PAUSED downloads of ``group`` and those under it, the FAILED ones too with
        ``include_failed``, never the STOPPED ones; returns how many ("group-ops")."""
        return self._call(wire.group("resume_group", group, include_failed), "count")

    def cancel_group(self, group):
        """Cancels every download of ``group`` and those under it, deleting their files; returns
        how many ("group-ops")."""
        return self._call(wire.group("cancel_group", group), "count")

    def stats(self):
        """Speed, downloads per state, transfers running, bytes received since the start."""
        return self._call(wire.empty("get_stats"), "stats")

    def info(self):
        """SystemInfo: paths, disk space, bytes held (per state), the last verify, warnings."""
        return self._call(wire.empty("get_system_info"), "system_info")

    def config_set(self, key, value=None):
        """Sets ``key`` to ``value``, or every entry of a dict ``key`` (all or none); returns the
        Config after the change. Keys as in PROTOCOL.md section 10 ("max-parallel")."""
        entries = key if isinstance(key, dict) else {key: value}
        return self._call(wire.set_config(entries), "config")

    def verify(self, deep=False, repair=False, dry_run=False):
        """Compares the registry with the disk; returns the VerifyReport."""
        return self._call(wire.verify(deep, repair, dry_run), "verify")

    def purge(self):
        """Deletes what no download owns; returns what was deleted."""
        return self._call(wire.empty("purge"), "purge")

    def plan(self, uri, headers=None):
        """What an HLS stream offers (variants, renditions, sizes); nothing is stored."""
        return self._call(wire.plan(uri, headers), "manifest_info")

    def export(self, id, dir, decrypt=False):
        """Writes a COMPLETED HLS download to the absolute folder ``dir`` as a playable package."""
        return self._call(wire.export(id, dir, decrypt), "export")

    def subtitles_get(self, id):
        """The subtitle renditions and text tracks a download keeps."""
        return self._call(wire.by_id("get_subtitles", id), "subtitles")

    def subtitles_add(self, id, languages=None, text_tracks=None):
        """Adds languages of an HLS download, or text tracks to any download; returns the record."""
        return self._call(wire.subtitles("add_subtitles", id, languages, text_tracks), "download")

    def subtitles_remove(self, id, languages):
        """Removes languages (renditions and text tracks) offline; returns the record."""
        return self._call(wire.subtitles("remove_subtitles", id, languages, None), "download")

    def license_get(self, id):
        """Asks the licence server for the download's keys (DownloadLicense)."""
        return self._call(wire.by_id("download_license", id), "license")

    def license_check(self, id):
        """The licence's status now."""
        return self._call(wire.by_id("check_license", id), "license")

    def license_renew(self, id):
        return self._call(wire.by_id("renew_license", id), "license")

    def license_release(self, id):
        """Gives the licence back and deletes its keys."""
        return self._call(wire.by_id("release_license", id), "license")

    def license_release_all(self):
        """Releases every licence held; returns how many."""
        return self._call(wire.empty("release_all_licenses"), "count")

    def playback_key(self, id, key_id=None):
        """A 16-byte content key for a player (only to the daemon's own user, while the licence
        is valid); ``key_id`` None: the licence's first key."""
        return self._call(wire.playback_key(id, key_id), "playback_key")
