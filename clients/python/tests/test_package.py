"""The package as pip builds it: typed (PEP 561), so an app's mypy checks its calls against
the client's annotations and the generated classes' stub, and made for a supported Python."""
import email
import glob
import os
import shutil
import subprocess
import sys
import zipfile

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "clients", "python")


def test_the_wheel_ships_py_typed_the_generated_stub_and_a_supported_python(tmp_path):
    # Built from a copy: an in-tree build would leave build/ and egg-info in the sources.
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", ".mypy_cache", "build", "*.egg-info"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--quiet", "--wheel-dir", str(tmp_path / "dist"), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (wheel,) = glob.glob(str(tmp_path / "dist" / "*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(metadata_name))
    assert "stash_client/py.typed" in names
    assert "stash_client/stash_pb2.pyi" in names and "stash_client/stash_pb2.py" in names
    assert metadata["Requires-Python"] == ">=3.11"


def test_the_async_client_offers_every_operation_of_the_blocking_one_with_the_same_parameters():
    # Written out twice (a coroutine cannot share a typed body with a blocking call): the two
    # lists must not drift apart.
    import inspect

    from stash_client import AsyncClient, Client

    def public(cls):
        return {name: member for name, member in vars(cls).items()
                if callable(member) and not name.startswith("_") and name != "connect"}

    blocking, concurrent = public(Client), public(AsyncClient)
    assert sorted(blocking) == sorted(concurrent)
    for name, method in blocking.items():
        other = concurrent[name]
        assert inspect.signature(method) == inspect.signature(other).replace(
            return_annotation=inspect.signature(method).return_annotation), name
        if name not in ("events", "close"):
            assert inspect.iscoroutinefunction(other), f"AsyncClient.{name} is not a coroutine"
