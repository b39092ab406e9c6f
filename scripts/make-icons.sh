#!/usr/bin/env bash
# Draws the app's PNG icons from its SVG (home screens on iOS and Android want PNGs): run after
# changing Sources/CardboxHTTP/Web/Icons/icon.svg, and commit the PNGs. Needs libvips' `vips`
# (apt install libvips-tools).
set -euo pipefail
cd "$(dirname "$0")/../Sources/CardboxHTTP/Web/Icons"
# iOS rounds a home-screen icon itself and shows see-through corners black: its 180 px icon is
# drawn square.
square=$(mktemp --suffix=.svg)
trap 'rm -f "$square"' EXIT
sed '0,/rx="96" /s///' icon.svg > "$square"
for size in 180 192 512; do
    source=icon.svg
    [ "$size" = 180 ] && source=$square
    # strip: no dates or tool names in the file, so the same SVG always gives the same bytes.
    vips thumbnail "$source" "icon-$size.png[strip,compression=9]" "$size"
    echo "icon-$size.png: $(stat -c %s "icon-$size.png") bytes"
done
