#!/bin/sh
# vitrail's set-up script: installs what is missing (Debian 12), builds, and
# runs the main job (demo) or every test (test). See README.md.
set -eu
cd "$(dirname "$0")"

PACKAGES="meson ninja-build pkg-config gcc libc6-dev libwlroots-dev
libwayland-dev wayland-protocols libinput-dev libxkbcommon-dev libvulkan-dev
mesa-vulkan-drivers libpixman-1-dev libfreetype-dev libpng-dev libdrm-dev libgbm-dev
libharfbuzz-dev libfontconfig-dev libjson-c-dev libjpeg-dev libcairo2-dev
check glslang-tools scdoc weston foot grim wayland-utils wl-clipboard swaylock
xvfb xauth fonts-dejavu-core clang clang-format libclang-rt-14-dev wlcs swaybg
wlr-randr adwaita-icon-theme wtype xwayland x11-apps libxcb1-dev vulkan-tools"

install_packages() {
	missing=""
	for p in $PACKAGES; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
				grep -q "ok installed"; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && return 0
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "setup: installing$missing"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends $missing
}

# Packages from bookworm-backports, each with the version it must reach:
# wayland-protocols 1.43 carries the XML of the newer standard protocols
# (fifo, commit timing, cursor shape, ...) that protocol/meson.build reads
# from its pkgdatadir. The suite is added to apt's sources on the mirror
# Debian's own entry names.
BACKPORTS="wayland-protocols:1.43"

install_backports() {
	need=""
	for pv in $BACKPORTS; do
		have=$(dpkg-query -W -f='${Version}' "${pv%%:*}" 2>/dev/null || true)
		if [ -z "$have" ] || dpkg --compare-versions "$have" lt "${pv#*:}"; then
			need="$need ${pv%%:*}/bookworm-backports"
		fi
	done
	[ -z "$need" ] && return 0
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	if ! grep -rqs "bookworm-backports" /etc/apt/sources.list \
			/etc/apt/sources.list.d/; then
		mirror=$(sed -n 's,^URIs: *\(.*/debian\)/*$,\1,p' \
			/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
		[ -n "$mirror" ] || mirror=$(sed -n \
			's,^deb  *\([^ ]*/debian\)/* bookworm .*,\1,p' \
			/etc/apt/sources.list 2>/dev/null | head -n 1)
		[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
		echo "setup: adding bookworm-backports ($mirror) to apt's sources"
		echo "deb $mirror bookworm-backports main" |
			$sudo tee /etc/apt/sources.list.d/vitrail-backports.list >/dev/null
	fi
	echo "setup: installing$need"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends $need
}

# build DIR [meson options...]
build() {
	dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	fi
	ninja -C "$dir"
}

# run_suite DIR LABEL [meson test options]: run the tests, keeping the
# counts for the summary
run_suite() {
	dir=$1
	label=$2
	shift 2
	status=0
	meson test -C "$dir" --print-errorlogs --num-processes 2 \
		--timeout-multiplier "${VITRAIL_TIMEOUT_MULTIPLIER:-1}" "$@" || status=1
	log="$dir/meson-logs/testlog.json"
	ok=$(grep -c '"result": "OK"' "$log" || true)
	# known failures of open issues (meson should_fail) that failed as
	# expected count as passed; one that passes fails the run
	xfail=$(grep -c '"result": "EXPECTEDFAIL"' "$log" || true)
	ok=$((ok + xfail))
	bad=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" || true)
	skip=$(grep -c '"result": "SKIP"' "$log" || true)
	echo "$label: $ok passed ($xfail known failures), $bad failed, $skip skipped"
	# the names of the failed tests, repeated in the last lines
	names=$(grep '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" |
		sed -n 's/.*"name": "\([^"]*\)".*"result": "\([A-Z]*\)".*/\1 (\2)/p' |
		tr '\n' ' ' || true)
	if [ -n "$names" ]; then
		failures="$failures
$label: $names"
		# why each failed, for the summary's last lines (the full logs
		# scroll far above them)
		reasons="$reasons$(python3 - "$log" "$label" <<'PY'
import json, sys
bad = ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS")
keys = (":F:", ":E:", "Assertion", "ERROR:", "error:", "Error:", "timed out")
for line in open(sys.argv[1]):
    test = json.loads(line)
    if test["result"] not in bad:
        continue
    out = (test.get("stdout") or "") + (test.get("stderr") or "")
    lines = [l for l in out.splitlines() if any(k in l for k in keys)]
    print("\n%s: %s (%s):" % (sys.argv[2], test["name"], test["result"]))
    for l in (lines or out.splitlines())[-8:]:
        print("  " + l[:300])
PY
)"
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + skip))
	return $status
}

case "${1:-}" in
demo)
	install_packages
	install_backports
	build build -Dbuildtype=debugoptimized
	out="$PWD/build/demo"
	rm -rf "$out"
	mkdir -p "$out"
	./build/compositor/vitrail --demo --exit-after "${VITRAIL_DEMO_SECONDS:-6}" \
		--screenshot-dir "$out" --stats "$out/stats.txt" \
		--frame-log "$out/frames.csv"
	;;
test)
	install_packages
	install_backports
	passed=0 failed=0 skipped=0 rc=0 failures= reasons=
	# -O2 (with assertions): realistic timings for the demo and the
	# benchmark, and the optimizer's warnings are errors too.
	build build -Dbuildtype=debugoptimized
	# Mesa 25's Vulkan WSI (bookworm-backports) for the test fifo-vkcube,
	# unpacked into build/mesa25/ only (not installed); once; without
	# network that test skips
	python3 tests/tools/vkcube_fifo.py --fetch build || true
	# The hostile cases whose outcome is not deterministic yet (suite
	# hostile-manual) are run by hand for now (see README). The soak
	# (suite soak, a minute of clients coming and going) runs in all
	# three builds.
	run_suite build "tests" --no-suite hostile-manual || rc=1
	# The whole suite again with AddressSanitizer + UBSan.
	build build-asan -Db_sanitize=address,undefined -Db_lundef=false
	export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
	export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
	export VITRAIL_TIMEOUT_MULTIPLIER=3
	run_suite build-asan "tests (asan+ubsan)" --no-suite hostile-manual || rc=1
	unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
	# The whole suite again with ThreadSanitizer (the renderer's threads,
	# in the tests and in vitrail itself); only Mesa's own races are
	# suppressed by name. The validation layer's locks confuse TSan, and
	# lavapipe's locks overflow its deadlock detector, which stays on for
	# the unit suite only (tests/meson.build).
	build build-tsan -Db_sanitize=thread
	export TSAN_OPTIONS="halt_on_error=1:detect_deadlocks=0:suppressions=$PWD/tests/tsan.supp"
	export VITRAIL_TEST_NO_VALIDATION=1
	export VITRAIL_TIMEOUT_MULTIPLIER=4
	# The fuzz harnesses are their own ASan builds everywhere and run 5 s
	# each outside the plain build.
	run_suite build-tsan "tests (tsan)" --num-processes 1 \
		--no-suite hostile-manual || rc=1
	if [ -n "$failures" ]; then
		echo "why:$reasons"
		echo
		echo "failed:$failures"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	exit $rc
	;;
*)
	echo "usage: $0 demo|test" >&2
	echo "  demo  build and run vitrail headless with two outputs and demo" >&2
	echo "        clients; writes screenshots and frame statistics" >&2
	echo "  test  build and run every test, also under ASan+UBSan" >&2
	exit 2
	;;
esac
