#!/usr/bin/env python3
"""Issue #22, acceptance 3: vkcube-wayland (vulkan-tools) on Mesa 25's
Vulkan WSI (lavapipe from bookworm-backports, unpacked into a private
prefix under the build tree, used only here through VK_ICD_FILENAMES)
against vitrail headless at 60 Hz in FIFO mode for 10 s.

Oracles, none of which is vitrail's code: the client's own WAYLAND_DEBUG
log (it binds wp_fifo_manager_v1 and wp_commit_timing_manager_v1 and
sends set_barrier/wait_barrier and set_timestamp), and the presentation
times the client received, checked against the refresh period; a gap
over 2 periods is allowed only where vitrail's frame log marks a dropped
frame inside it. Then 5 s with its workspace switched away (hidden): it
must go on committing with barriers at the refresh rate, its frames
discarded. In sanitizer builds (vitrail several times slower) only what
vkcube binds and sends, and that it is not stalled while hidden, are
checked. Exit 77 (skip) when Mesa 25 or vkcube-wayland cannot be
had (no network, no apt), saying why.

usage: vkcube_fifo.py VITRAIL BUILD_DIR
       vkcube_fifo.py --fetch BUILD_DIR   (only unpack Mesa 25)"""
import csv, glob, json, os, re, shutil, signal, subprocess, sys, tempfile, time

SKIP = 77
PERIOD_NS = 1e9 / 60
SECONDS = 10
HIDDEN = 5
PKGS = ["mesa-vulkan-drivers", "libdrm2", "libdrm-amdgpu1"]


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def mesa25(build):
    """the private prefix, fetched once (idempotent): Mesa 25's lavapipe
    and the libdrm it needs, from bookworm-backports; the sanitizer builds
    use the one setup.sh unpacked into the plain build beside them"""
    prefix = os.path.join(build, "mesa25")
    plain = os.path.join(os.path.dirname(build), "build", "mesa25")
    if (not os.path.exists(os.path.join(prefix, ".done")) and
            os.path.exists(os.path.join(plain, ".done"))):
        prefix = plain
    done = os.path.join(prefix, ".done")
    if not os.path.exists(done):
        shutil.rmtree(prefix, ignore_errors=True)
        dl = tempfile.mkdtemp(prefix="mesa25-")
        try:
            for p in PKGS:
                r = subprocess.run(["apt-get", "download", p + "/bookworm-backports"],
                                   cwd=dl, capture_output=True, text=True, timeout=300)
                if r.returncode:
                    skip("cannot download %s from bookworm-backports: %s"
                         % (p, (r.stderr or r.stdout).strip()[-300:]))
            for deb in glob.glob(os.path.join(dl, "*.deb")):
                subprocess.run(["dpkg-deb", "-x", deb, prefix], check=True)
        except (OSError, subprocess.SubprocessError) as e:
            skip("cannot fetch Mesa 25: %s" % e)
        finally:
            shutil.rmtree(dl, ignore_errors=True)
        open(done, "w").close()
    libdir = os.path.join(prefix, "usr/lib/x86_64-linux-gnu")
    lvp = os.path.join(libdir, "libvulkan_lvp.so")
    if not os.path.exists(lvp):
        skip("no libvulkan_lvp.so in " + prefix)
    icd = os.path.join(prefix, "lvp25_icd.json")
    with open(icd, "w") as f:
        json.dump({"file_format_version": "1.0.0",
                   "ICD": {"library_path": lvp, "api_version": "1.4.305"}}, f)
    return icd, libdir


def count_barriers(log):
    with open(log, errors="replace") as f:
        return len(re.findall(r"-> wp_fifo_v1@\d+\.set_barrier\(", f.read()))


def main():
    if sys.argv[1] == "--fetch":
        mesa25(os.path.abspath(sys.argv[2]))
        return
    vitrail, build = sys.argv[1], sys.argv[2]
    sanitized = os.environ.get("VITRAIL_TEST_SANITIZER", "none") not in ("", "none")
    vkcube = shutil.which("vkcube-wayland")
    if not vkcube:
        skip("vkcube-wayland is not installed (package vulkan-tools)")
    if not shutil.which("wtype"):
        skip("wtype is not installed")
    icd, libdir = mesa25(os.path.abspath(build))
    out = tempfile.mkdtemp(prefix="vkcube-fifo-")
    env = dict(os.environ, XDG_RUNTIME_DIR=out)
    env.pop("WAYLAND_DISPLAY", None)
    sock = "vkfifo-%d" % os.getpid()
    frames = os.path.join(out, "frames.csv")
    with open(os.path.join(out, "ws.conf"), "w") as f:
        f.write("bind Alt+1 workspace 1\nbind Alt+2 workspace 2\n")
    comp = subprocess.Popen([vitrail, "-b", "headless", "-r", "60", "-S", sock,
                             "--no-xwayland", "--frame-log", frames,
                             "-c", os.path.join(out, "ws.conf"),
                             "--exit-after", str(SECONDS + 60)],
                            env=env, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(out, "vitrail.log"), "w"))
    try:
        for _ in range(300):
            if os.path.exists(os.path.join(out, sock)):
                break
            time.sleep(0.1)
        else:
            sys.exit("vitrail did not open its socket")
        cenv = dict(env, WAYLAND_DISPLAY=sock, VK_ICD_FILENAMES=icd,
                    LD_LIBRARY_PATH=libdir, WAYLAND_DEBUG="1")
        log = os.path.join(out, "vkcube.log")
        n = SECONDS * 60
        # 10 s visible, then its workspace is switched away (Alt+2 through
        # wtype's virtual keyboard) for the rest: hidden, it must go on
        cube = subprocess.Popen([vkcube, "--present_mode", "2", "--c",
                                 str(n + HIDDEN * 60 + 120)],
                                env=cenv, stdout=subprocess.DEVNULL,
                                stderr=open(log, "w"))
        t0 = time.time() + SECONDS * 6
        while count_barriers(log) < n and time.time() < t0 and cube.poll() is None:
            time.sleep(0.05)
        off = os.path.getsize(log)
        w = subprocess.run(["wtype", "-M", "alt", "2", "-m", "alt"],
                           env=dict(env, WAYLAND_DISPLAY=sock))
        if w.returncode:
            sys.exit("wtype could not switch the workspace")
        time.sleep(1)
        h0, t1 = count_barriers(log), time.time()
        time.sleep(HIDDEN)
        h1, t2 = count_barriers(log), time.time()
        hidden_rate = (h1 - h0) / (t2 - t1)
        cube.kill()
        cube.wait()
    finally:
        comp.send_signal(signal.SIGTERM)
        comp.wait(timeout=30)
    full = open(log, errors="replace").read()
    text = full[:off]
    hidden = full[off:]
    fail = []
    for g in ("wp_fifo_manager_v1", "wp_commit_timing_manager_v1"):
        if not re.search(r'bind\(\d+, "%s"' % g, text):
            fail.append("vkcube did not bind " + g)
    sb = len(re.findall(r"-> wp_fifo_v1@\d+\.set_barrier\(", text))
    wb = len(re.findall(r"-> wp_fifo_v1@\d+\.wait_barrier\(", text))
    ts = len(re.findall(r"-> wp_commit_timer_v1@\d+\.set_timestamp\(", text))
    print("set_barrier %d, wait_barrier %d, set_timestamp %d" % (sb, wb, ts))
    if sanitized:
        # vitrail runs several times slower: vkcube's pace is not vitrail's
        # refresh; it binds, uses the barriers and is never stalled
        hdisc = len(re.findall(r"wp_presentation_feedback@\d+\.discarded\(", hidden))
        print("%s build: hidden %.1f frames/s, %d discarded" % (
            os.environ["VITRAIL_TEST_SANITIZER"], hidden_rate, hdisc))
        if sb < 60 or wb < 60:
            fail.append("too few fifo barriers: %d set, %d waited" % (sb, wb))
        if hidden_rate < 10:
            fail.append("hidden: %.1f frames/s: stalled" % hidden_rate)
        for f in fail:
            print("FAIL: " + f)
        sys.exit(1 if fail else 0)
    if sb < n * 0.9 or wb < n * 0.9:
        fail.append("too few fifo barriers: %d set, %d waited for %d frames" % (sb, wb, n))
    pres = [int(a) * 2**32 * 10**9 + int(b) * 10**9 + int(c) for a, b, c in re.findall(
        r"wp_presentation_feedback@\d+\.presented\((\d+), (\d+), (\d+),", text)]
    disc = len(re.findall(r"wp_presentation_feedback@\d+\.discarded\(", text))
    print("presented %d, discarded %d" % (len(pres), disc))
    if len(pres) < n * 0.95:
        fail.append("only %d of %d frames presented" % (len(pres), n))
    rows = list(csv.DictReader(open(frames)))
    dropped = [int(r["target_vblank_ns"]) for r in rows if r["dropped"] == "1"]
    gaps = bad = 0
    for a, b in zip(pres, pres[1:]):
        if b - a > 2.5 * PERIOD_NS:
            gaps += 1
            if not any(a < d < b for d in dropped):
                bad += 1
    span = (pres[-1] - pres[0]) / 1e9 if len(pres) > 1 else 0
    rate = (len(pres) - 1) / span if span else 0
    print("%.2f s, %.1f frames/s, %d gaps over 2 periods, %d of them without a "
          "dropped vitrail frame; vitrail dropped %d of %d frames"
          % (span, rate, gaps, bad, len(dropped), len(rows)))
    if bad:
        fail.append("%d gaps over 2 periods not explained by a dropped frame" % bad)
    if rate < 60 * 0.8:
        fail.append("%.1f frames/s, refresh 60" % rate)
    hdisc = len(re.findall(r"wp_presentation_feedback@\d+\.discarded\(", hidden))
    hpres = len(re.findall(r"wp_presentation_feedback@\d+\.presented\(", hidden))
    print("hidden: %.1f frames/s (set_barrier), %d presented, %d discarded"
          % (hidden_rate, hpres, hdisc))
    if hidden_rate < 60 * 0.8:
        fail.append("hidden: %.1f frames/s, refresh 60" % hidden_rate)
    if hdisc < HIDDEN * 60 * 0.8:
        fail.append("hidden: only %d frames discarded: was it hidden?" % hdisc)
    for f in fail:
        print("FAIL: " + f)
    if not fail:
        shutil.rmtree(out, ignore_errors=True)
    else:
        print("logs kept in " + out)
    sys.exit(1 if fail else 0)


main()
