#!/bin/sh
# page.sh SVG... > page.html - an HTML page holding the SVGs and a script
# that lays every <text> out in the browser and writes its verdict into
# <pre id="verdict">: "ok N texts" when each has a width and lies inside
# its picture, else what is wrong (tests/figure.test reads it with
# chromium --dump-dom).
cat <<'HEAD'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>figures</title></head><body>
HEAD
for f in "$@"; do
	cat "$f"
done
cat <<'TAIL'
<pre id="verdict">the script did not run</pre>
<script>
(function () {
	var bad = [], n = 0;
	document.querySelectorAll("svg").forEach(function (svg) {
		var W = svg.width.baseVal.value, H = svg.height.baseVal.value;
		svg.querySelectorAll("text").forEach(function (t) {
			n++;
			var b = t.getBBox();
			if (!(t.getComputedTextLength() > 0) || !(b.width > 0 && b.height > 0))
				bad.push("no width: " + t.textContent);
			else if (b.x < -1 || b.y < -1 || b.x + b.width > W + 1 || b.y + b.height > H + 1)
				bad.push("outside its picture: " + t.textContent);
		});
	});
	document.getElementById("verdict").textContent = bad.length ?
		bad.length + " of " + n + " texts wrong: " + bad.slice(0, 5).join(" | ") :
		"ok " + n + " texts";
})();
</script>
</body></html>
TAIL
