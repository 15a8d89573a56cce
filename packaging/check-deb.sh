#!/usr/bin/env bash
# Builds the .deb from a build folder, unpacks it into a scratch root with
# dpkg -x, and runs the installed parascope: --version, and eval on an
# installed example scenario.
set -euo pipefail
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cd "$build"
cpack -G DEB -B "$scratch/out" >/dev/null
deb=$(ls "$scratch"/out/*.deb)
echo "built $(basename "$deb")"
dpkg-deb --field "$deb" Package Version Depends
dpkg -x "$deb" "$scratch/root"

bin="$scratch/root/usr/bin/parascope"
share="$scratch/root/usr/share"
for f in "$bin" "$share/applications/io.parascope.Parascope.desktop" \
         "$share/metainfo/io.parascope.Parascope.metainfo.xml" \
         "$share/mime/packages/io.parascope.Parascope.xml" \
         "$share/icons/hicolor/scalable/apps/io.parascope.Parascope.svg" \
         "$share/parascope/examples/llama-70b-h100.parascope.json"; do
  [ -e "$f" ] || { echo "missing from the package: ${f#$scratch/root}"; exit 1; }
done
dpkg-deb --field "$deb" Depends | grep -q libqt6charts6 || { echo "Depends lacks Qt Charts"; exit 1; }

env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$bin" --version
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
  "$bin" eval --check "$share/parascope/examples/llama-70b-h100.parascope.json"
echo "installed parascope runs"
