#!/bin/sh
# Run WLCS on vitrail's integration module, less the expected failures.
# usage: run-wlcs.sh EXPECTED_FAILURES RUNNER MODULE [wlcs options...]
# RUNNER is empty when wlcs is not installed, "sanitizer:KIND" in a
# sanitizer build: both skip (77). See tests/wlcs/meson.build.
set -eu
expected=$1
runner=$2
module=$3
shift 3
case "$runner" in
sanitizer:*)
	echo "wlcs: skipped in this ${runner#sanitizer:} build: the plain wlcs" \
		"runner cannot load a sanitized module"
	exit 77
	;;
"")
	echo "wlcs: skipped: wlcs is not installed (apt-get install wlcs)"
	exit 77
	;;
esac
if [ ! -x "$runner" ] || [ ! -f "$module" ]; then
	echo "wlcs: skipped: no runner $runner or no module $module"
	exit 77
fi
# expected-failures.txt: "Pattern  reason...", one a line; # comments.
exclude=""
while read -r pattern reason; do
	case "$pattern" in
	""|"#"*) continue ;;
	esac
	if [ -z "$reason" ]; then
		echo "wlcs: $expected: '$pattern' has no reason" >&2
		exit 1
	fi
	exclude="$exclude${exclude:+:}$pattern"
done < "$expected"
filter="*"
[ -z "$exclude" ] || filter="*-$exclude"
exec "$runner" "$module" --gtest_filter="$filter" "$@"
