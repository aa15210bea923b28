"""The shared scenario (README.md) through stash_client.

usage: scenario.py SOCKET BASE_URL PREFIX"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from stash_client import Client, Progress, Removed, StashError, StateChanged  # noqa: E402


def refused(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except StashError as error:
        return error
    return None


def main(socket_path, base, p):
    file_id, bundle_id = f"{p}-file", f"{p}-bundle"
    with Client(socket_path, timeout=60) as client:
        wanted = "bundles and events" if {"bundles", "events"} <= set(client.features) else f"lacking: {client.features}"
        print(f"hello: protocol {client.hello().protocol_version}, features {wanted}")
        with client.events(ids=[file_id, bundle_id]) as events:
            print(f"subscribed: {file_id} {bundle_id}")
            added = client.add(f"{base}/slow/1048576/{file_id}.bin", id=file_id, title="A file")
            print(f"added {added.id}: {'created' if added.created else 'not created'} {added.state}")
            files = [f"{base}/data/100000/{p}-b{n}.bin" for n in (1, 2, 3)]
            bundle = client.add(id=bundle_id, title="A bundle", files=files)
            print(f"added {bundle.id}: {'created' if bundle.created else 'not created'}, a bundle of {bundle.files_total} files")
            completed, progress_seen = {}, False
            while len(completed) < 2:
                event = next(events)
                if isinstance(event, Progress) and event.id == file_id and file_id not in completed:
                    progress_seen = True
                elif isinstance(event, StateChanged) and event.download.state in ("COMPLETED", "FAILED"):
                    completed[event.download.id] = event.download
            print(f"progress {file_id}: {'seen before it completed' if progress_seen else 'none'}")
            done = completed[file_id]
            print(f"completed {file_id}: {done.downloaded_bytes} bytes" if done.state == "COMPLETED" else f"{file_id}: {done.state}")
            done = completed[bundle_id]
            print(f"completed {bundle_id}: {done.files_done} of {done.files_total} files, {done.downloaded_bytes} bytes"
                  if done.state == "COMPLETED" else f"{bundle_id}: {done.state}")
            has = client.has(file_id)
            print(f"has {file_id}: {str(has.exists).lower()} {has.state}")
            record = client.get(bundle_id)
            print(f"get {bundle_id}: {sum(f.done for f in record.files)} files done")
            client.cancel(file_id)
            print(f"cancelled {file_id}")
            for event in events:
                if isinstance(event, Removed) and event.id == file_id:
                    print(f"removed {file_id}")
                    break
        has = client.has(file_id)
        print(f"has {file_id}: {str(has.exists).lower()} {has.state}")
        error = refused(client.add, f"{base}/data/10/{p}-bad.bin", id="../bad")
        print(f"refused add ../bad: {error.code} naming ../bad" if error and "../bad" in error.message else f"add ../bad: {error}")
        error = refused(client.get, f"{p}-nothing")
        print(f"refused get {p}-nothing: {error.code} naming {p}-nothing"
              if error and f"{p}-nothing" in error.message else f"get {p}-nothing: {error}")
        client.cancel(bundle_id)
        print(f"cancelled {bundle_id}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
