// git ralph serve: the loop page's live output, from the server-sent events of
// /loops/NAME/live, one collapsible section per iteration with each line's time of
// arrival; and its iterations timeline, fetched again (from this server) when an
// iteration ends or the state changes. Lines go in with textContent: never parsed as HTML.
(function () {
  "use strict";
  var out = document.getElementById("live");
  var state = document.getElementById("live-state");
  var badge = document.getElementById("state-badge");
  var timeline = document.getElementById("timeline");
  if (!out || !window.EventSource) {
    return;
  }
  var keep = 2000; // lines kept in a section; the log has them all
  var sections = 8; // iterations kept on the page
  var pre = null; // the current iteration's lines
  var src = new EventSource(out.getAttribute("data-src"));

  function clock() {
    return new Date().toTimeString().slice(0, 8);
  }
  function atBottom() {
    return !pre || pre.scrollHeight - pre.scrollTop - pre.clientHeight < 40;
  }
  // section opens the iteration's section, closing the one before
  function section(title) {
    var empty = document.getElementById("live-empty");
    if (empty) {
      empty.remove();
    }
    var prev = out.querySelectorAll("details");
    for (var i = 0; i < prev.length; i++) {
      prev[i].open = false;
    }
    while (out.querySelectorAll("details").length >= sections) {
      out.removeChild(out.querySelector("details"));
    }
    var d = document.createElement("details");
    d.open = true;
    d.className = "iteration";
    var s = document.createElement("summary");
    s.textContent = title;
    pre = document.createElement("pre");
    d.appendChild(s);
    d.appendChild(pre);
    out.appendChild(d);
  }
  function append(text) {
    if (!pre) {
      section("Output");
    }
    var follow = atBottom();
    var line = document.createElement("span");
    line.className = "line";
    var t = document.createElement("time");
    t.textContent = clock();
    line.appendChild(t);
    line.appendChild(document.createTextNode(text + "\n"));
    pre.appendChild(line);
    while (pre.childNodes.length > keep) {
      pre.removeChild(pre.firstChild);
    }
    if (follow) {
      pre.scrollTop = pre.scrollHeight;
    }
  }

  // the timeline, fetched again a moment after an event (several come together)
  var pending = null;
  function refresh() {
    if (!timeline || pending) {
      return;
    }
    pending = setTimeout(function () {
      pending = null;
      fetch(out.getAttribute("data-timeline"), { credentials: "same-origin" }).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (html) {
        if (html !== null) {
          // our own page's part, every text of it escaped by the server's templates
          var doc = new DOMParser().parseFromString(html, "text/html");
          timeline.replaceChildren.apply(timeline, Array.prototype.slice.call(doc.body.childNodes));
        }
      }).catch(function () {});
    }, 300);
  }

  // the controls that act on the run, each disabled where it would do nothing: Resume
  // while the loop runs unpaused, Pause once it is paused. Of a loop that is not running
  // all three stay: Pause and Resume apply to its next run, Cancel stops what it left.
  function controls(word) {
    var held = /^(paused|pausing)$/.test(word);
    var set = { pause: !held, resume: held || !/^(running|waiting)$/.test(word), cancel: true };
    Object.keys(set).forEach(function (id) {
      var b = document.getElementById(id);
      if (b) {
        b.disabled = !set[id];
      }
    });
  }
  function tone(word) {
    if (/^(running|waiting)$/.test(word)) { return "ok live"; }
    if (/^(paused|pausing)$/.test(word)) { return "pause"; }
    if (/^(finished|merged)$/.test(word)) { return "ok"; }
    if (/^(unreadable|needs-review)/.test(word)) { return "fail"; }
    if (/^(stopped|interrupted|gone)$/.test(word)) { return "warn"; }
    return "";
  }

  src.onmessage = function (e) {
    append(e.data);
  };
  src.addEventListener("iteration", function (e) {
    section("Iteration " + e.data + " · from " + clock());
    refresh();
  });
  src.addEventListener("state", function (e) {
    var word = (e.data.match(/^[a-z-]+/) || [""])[0];
    if (state) {
      state.textContent = e.data;
    }
    if (badge) {
      badge.textContent = word || "?";
      badge.className = "badge state " + tone(word);
    }
    controls(word);
    refresh();
  });
  src.onerror = function () {
    if (state) {
      state.textContent = "(disconnected: reconnecting…)";
    }
  };
})();
