/* walk.js - appended to an exported lecture page by tests/export.test:
 * steps through the page with the keys a teacher presses (→ to the end,
 * ← once, Home, End) and checks that each time exactly the expected step
 * shows, its figure has a size and every <text> of it is laid out.  The
 * verdict goes into <pre id="walk">: "ok N steps" or what went wrong. */
(function () {
	var steps = document.querySelectorAll("section.step"), bad = [];
	function key(k) {
		document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
	}
	function check(want, how) {
		var on = [];
		steps.forEach(function (s, i) {
			if (getComputedStyle(s).display !== "none")
				on.push(i);
		});
		if (on.length !== 1 || on[0] !== want) {
			bad.push(how + ": steps shown " + JSON.stringify(on) + ", expected [" + want + "]");
			return;
		}
		var svg = steps[want].querySelector("svg"), r = svg.getBoundingClientRect();
		if (!(r.width > 100 && r.height > 40))
			bad.push(how + ": step " + (want + 1) + "'s figure is " + r.width + "×" + r.height);
		var texts = svg.querySelectorAll("text"), empty = 0;
		texts.forEach(function (t) { if (!(t.getComputedTextLength() > 0)) empty++; });
		if (texts.length < 3 || empty)
			bad.push(how + ": step " + (want + 1) + " has " + texts.length + " texts, " +
				 empty + " not laid out");
		var cap = steps[want].querySelector("figcaption");
		if (!cap || cap.getBoundingClientRect().height <= 0)
			bad.push(how + ": step " + (want + 1) + "'s caption does not show");
		if (document.getElementById("count").textContent !== (want + 1) + " / " + steps.length)
			bad.push(how + ": the counter says " + document.getElementById("count").textContent);
	}
	window.lectureShow(0);
	check(0, "start");
	for (var i = 1; i < steps.length; i++) {
		key(i % 2 ? "ArrowRight" : " ");
		check(i, "→ " + i);
	}
	key("ArrowRight");
	check(steps.length - 1, "→ past the end");
	key("ArrowLeft");
	check(steps.length - 2, "←");
	key("Home");
	check(0, "Home");
	key("End");
	check(steps.length - 1, "End");
	var pre = document.createElement("pre");
	pre.id = "walk";
	pre.textContent = bad.length ? bad.slice(0, 5).join(" | ") : "ok " + steps.length + " steps";
	document.body.appendChild(pre);
})();
