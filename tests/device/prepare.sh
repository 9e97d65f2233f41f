#!/bin/sh
# Prepares tests/device/run.sh on a Debian 12 machine (this CPU machine):
# a release build of vitrail, the demo client, the Vulkan-export client and
# bench-render, copied with the shared libraries they need (but the C
# library's own, which the device machine has newer) into .devrun/, which
# .gitignore lists and the device tool carries:
#
#   sh tests/device/prepare.sh
#   device run: carry [".devrun"], command "sh tests/device/run.sh",
#               timeout_s 540
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
if [ ! -d build-device ]; then
	meson setup build-device -Dbuildtype=release >/dev/null
fi
ninja -C build-device compositor/vitrail tests/clients/vitrail-demo \
	tests/clients/vitrail-dmabuf-export tests/bench/bench-render >/dev/null
rm -rf .devrun
mkdir -p .devrun/bin .devrun/lib
cp build-device/compositor/vitrail build-device/tests/clients/vitrail-demo \
	build-device/tests/clients/vitrail-dmabuf-export \
	build-device/tests/bench/bench-render .devrun/bin/
# the loader too: the device machine may have none
for f in .devrun/bin/* "$(ldconfig -p | awk '/libvulkan.so.1 /{print $NF; exit}')"; do
	ldd "$f" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
	case "$(basename "$lib")" in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
		ld-linux*.so.* | libresolv.so.* | libgcc_s.so.* | libstdc++.so.*) ;;
	*) cp -L "$lib" .devrun/lib/ ;;
	esac
done
cp -L "$(ldconfig -p | awk '/libvulkan.so.1 /{print $NF; exit}')" .devrun/lib/
du -sh .devrun
