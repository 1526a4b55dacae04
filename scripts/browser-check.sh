#!/usr/bin/env bash
# Checks an opspec HTML report in headless Chromium, as a reader would use it: it loads with
# no console error, a status filter hides rows, a check's anchor opens its drill-down, a
# citation link shows the YAML line, a matrix cell sets the filters (tests/browser/check.html
# does the clicking). With a second argument, also saves screenshots there.
#
#   scripts/browser-check.sh REPORT_DIR [SCREENSHOT_DIR] [CHECK_ID_TO_OPEN]
#
# Exit status: 0 when every check passed, 1 when one failed, 3 when no Chromium is installed
# (Debian: apt-get install chromium).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "$1" && pwd)
shots=${2:-}
open=${3:-}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "browser-check: no Chromium found (apt-get install chromium)" >&2
    exit 3
fi
cp "$here/tests/browser/check.html" "$dir/browser-check.html"
flags=(--headless --no-sandbox --disable-gpu --allow-file-access-from-files --hide-scrollbars
       --user-data-dir="$(mktemp -d)")
query=""
[ -n "$open" ] && query="?open=$open"
log=$(mktemp)
started=$(date +%s%N)
timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --virtual-time-budget=20000 \
    --dump-dom "file://$dir/browser-check.html$query" > "$dir/browser-check.dom" 2> "$log"
echo "browser-check: Chromium ran for $(( ($(date +%s%N) - started) / 1000000 )) ms"
result=$(sed -n '/<pre id="result">/,/<\/pre>/p' "$dir/browser-check.dom" | sed -e 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
echo "$result"
status=0
if ! grep -q "RESULT PASS" <<< "$result"; then status=1; fi
# Console messages and uncaught exceptions of the report page.
if grep -E 'CONSOLE|Uncaught' "$log" | grep -v 'browser-check.html' > "$dir/browser-console.txt"; then
    echo "browser-check: the report logged to the console:" >&2
    cat "$dir/browser-console.txt" >&2
    status=1
fi
if [ -n "$shots" ]; then
    mkdir -p "$shots"
    timeout 60 "$browser" "${flags[@]}" --window-size=1300,1000 --screenshot="$shots/report-matrix.png" \
        "file://$dir/index.html#all" 2>/dev/null
    if [ -n "$open" ]; then
        timeout 60 "$browser" "${flags[@]}" --window-size=1300,1000 --virtual-time-budget=5000 \
            --screenshot="$shots/report-drill-down.png" "file://$dir/browser-check.html?shot=$open" 2>/dev/null
    fi
    timeout 60 "$browser" "${flags[@]}" --window-size=1300,1000 --virtual-time-budget=5000 \
        --screenshot="$shots/report-histograms.png" "file://$dir/browser-check.html?shot=ulp" 2>/dev/null
    echo "browser-check: screenshots in $shots"
fi
rm -f "$log"
exit $status
