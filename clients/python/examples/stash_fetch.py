"""stash_fetch.py: asks stashd to keep a URL and prints its progress from events until it is done.

    python3 stash_fetch.py URL [ID]      (the socket: $STASH_SOCKET, else the daemon's default)

Exit status: 0 completed, 1 failed or cancelled, 2 usage, 3 the daemon refused or cannot be reached.
"""
import os
import sys
from typing import List

from stash_client import Client, EventsLost, Progress, Removed, StashError, StateChanged


def main(argv: List[str]) -> int:
    if len(argv) not in (2, 3):
        print((__doc__ or "").strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    url, id = argv[1], argv[2] if len(argv) == 3 else None
    try:
        with Client(os.environ.get("STASH_SOCKET") or None) as stash:
            # Subscribed before the add, so no event of the new download slips between the two.
            with stash.events() as events:
                download = stash.add(url, id=id)
                print(("added" if download.created else "already there:"), download.id)
                while download.state not in ("COMPLETED", "FAILED"):
                    event = next(events)
                    if isinstance(event, Progress) and event.id == download.id:
                        total = f" of {event.total_bytes}" if event.total_bytes >= 0 else ""
                        print(f"{event.progress:3}%  {event.downloaded_bytes}{total} bytes  {event.speed} B/s")
                    elif isinstance(event, StateChanged) and event.download.id == download.id:
                        download = event.download
                        print(download.state, download.state_reason)
                    elif isinstance(event, Removed) and event.id == download.id:
                        print("cancelled")
                        return 1
                    elif isinstance(event, EventsLost):
                        download = stash.get(download.id)  # some events were dropped: read the record
            if download.state == "FAILED":
                print("failed:", download.error.message if download.error else download.state_reason)
                return 1
            print(f"completed: {download.asset_path} ({download.downloaded_bytes} bytes)")
            return 0
    except StashError as error:
        print(f"stash_fetch: {error}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
