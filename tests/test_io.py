"""The shared atomic writer: never replaces stdout, a device, a FIFO or a symlink."""

import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from metricrank._io import atomic_write


def test_regular_file_replaced_atomically(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(p) as fh:
            fh.write(b"half")
            raise RuntimeError("crash")
    assert p.read_text() == "old"
    with atomic_write(p) as fh:
        fh.write(b"new")
    assert p.read_text() == "new"
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_a_missing_directory_is_named_not_the_temporary_file(tmp_path):
    # (mkstemp's FileNotFoundError named '.out.txt.<random>.tmp', a file the caller never asked for)
    target = tmp_path / "no" / "out.txt"
    with pytest.raises(FileNotFoundError, match=f"cannot write {target}: directory {target.parent} does not exist"):
        with atomic_write(target) as fh:
            fh.write(b"x")
    assert not (tmp_path / "no").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes to any directory")
def test_an_unwritable_directory_is_named(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match=f"cannot write {locked / 'out.txt'}: directory {locked} is not"):
            with atomic_write(locked / "out.txt") as fh:
                fh.write(b"x")
    finally:
        locked.chmod(0o700)


def test_symlink_is_kept_and_its_target_replaced(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_write(link) as fh:
        fh.write(b"new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    with atomic_write(fifo) as fh:
        fh.write(b"through the pipe")
    assert reader.communicate(timeout=10)[0] == b"through the pipe"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_device_is_written_through_not_replaced(tmp_path):
    # a private null device (never the system's /dev/null: a broken writer would replace it)
    dev = tmp_path / "null"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here")
    with atomic_write(dev) as fh:
        fh.write(b"discarded")
    assert stat.S_ISCHR(os.stat(dev).st_mode)


def test_dash_writes_to_stdout(tmp_path):
    code = ("from metricrank._io import atomic_write\n"
            "with atomic_write('-') as fh: fh.write(b'to stdout')\n"
            "print(' and more')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, cwd=tmp_path)
    assert proc.stdout == b"to stdout and more\n"


def test_link_to_proc_fd_is_written_through(tmp_path):
    # like /dev/stdout -> /proc/self/fd/1, but a private link: stdout redirected (>>) to a file
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    out = tmp_path / "captured.txt"
    out.write_bytes(b"kept;")
    code = ("import sys\nfrom metricrank._io import atomic_write\n"
            f"with atomic_write({str(link)!r}) as fh: fh.write(b'via link')\n")
    with open(out, "ab") as fh:
        subprocess.run([sys.executable, "-c", code], stdout=fh, check=True)
    assert out.read_bytes() == b"kept;via link"
    assert link.is_symlink()


def test_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        with atomic_write(tmp_path) as fh:
            fh.write(b"x")


# --- figures ------------------------------------------------------------------------------------

@pytest.fixture
def figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    yield fig
    plt.close(fig)


@pytest.mark.parametrize("name, magic", [("f.png", b"\x89PNG"), ("f", b"\x89PNG"), ("f.pdf", b"%PDF"),
                                         ("f.svg", b"<?xml"), ("f.PNG", b"\x89PNG")])
def test_save_figure_writes_the_format_of_the_suffix(figure, tmp_path, name, magic):
    import matplotlib.pyplot as plt

    from metricrank._io import save_figure

    save_figure(figure, tmp_path / name, dpi=50)
    assert (tmp_path / name).read_bytes().startswith(magic)
    assert not plt.fignum_exists(figure.number)  # closed: pyplot would keep it alive


def test_save_figure_writes_a_stream_as_png(figure):
    import io

    from metricrank._io import save_figure

    stream = io.BytesIO()
    save_figure(figure, stream, dpi=50)
    assert stream.getvalue().startswith(b"\x89PNG")


def _half_written_then_failing(fig, fname, **kwargs):
    if hasattr(fname, "write"):
        fname.write(b"\x89PNG half a figure")
    else:  # a plot that saves straight to its path
        with open(fname, "wb") as fh:
            fh.write(b"\x89PNG half a figure")
    raise RuntimeError("the renderer failed")


def _combination_plot(tmp_path):
    from metricrank.analysis import optimal_combination

    scores = np.linspace(0, 1, 8)
    return optimal_combination(scores, scores[::-1], np.arange(8) % 3, qid=np.repeat([0, 1], 4), metric="NDCG").plot


def _optimality_plot(tmp_path):
    from metricrank.analysis.optimality import OptimalityResult

    return OptimalityResult(n_directions=4, n_ascent=1, n_unchanged=0, base_value=0.5, gains=np.zeros(4), step=0.1,
                            metric="NDCG", profile_steps=np.arange(3.0), profile_values=np.array([0.4, 0.5, 0.45])).plot


@pytest.mark.parametrize("plot_of", [None, _combination_plot, _optimality_plot],
                         ids=["save_figure", "OptimalCombination.plot", "OptimalityResult.plot"])
def test_a_failed_figure_leaves_the_old_file(figure, tmp_path, monkeypatch, plot_of):
    """A save that fails part-way leaves the file as it was, no temporary file, and no figure open."""
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from metricrank._io import save_figure

    path = tmp_path / "plot.png"
    path.write_bytes(b"the old figure")
    draw = (lambda p: save_figure(figure, p, dpi=50)) if plot_of is None else plot_of(tmp_path)
    monkeypatch.setattr(Figure, "savefig", _half_written_then_failing)
    open_before = set(plt.get_fignums())
    with pytest.raises(RuntimeError, match="the renderer failed"):
        draw(path)
    assert path.read_bytes() == b"the old figure"
    assert sorted(os.listdir(tmp_path)) == ["plot.png"]
    assert set(plt.get_fignums()) == (open_before - {figure.number} if plot_of is None else open_before)
