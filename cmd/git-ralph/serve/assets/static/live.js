// git ralph serve: the loop page's live output, from the server-sent events of
// /loops/NAME/live. Lines go in with textContent: never parsed as HTML.
(function () {
  "use strict";
  var out = document.getElementById("live");
  var state = document.getElementById("live-state");
  if (!out || !window.EventSource) {
    return;
  }
  var keep = 2000; // lines kept on the page; the log has them all
  var src = new EventSource(out.getAttribute("data-src"));
  function atBottom() {
    return out.scrollHeight - out.scrollTop - out.clientHeight < 40;
  }
  function append(text, cls) {
    var follow = atBottom();
    var line = document.createElement("span");
    line.className = "line" + (cls ? " " + cls : "");
    line.textContent = text + "\n";
    out.appendChild(line);
    while (out.childNodes.length > keep) {
      out.removeChild(out.firstChild);
    }
    if (follow) {
      out.scrollTop = out.scrollHeight;
    }
  }
  src.onmessage = function (e) {
    append(e.data, "");
  };
  src.addEventListener("iteration", function (e) {
    out.textContent = "";
    append("— iteration " + e.data + " —", "mark");
  });
  src.addEventListener("state", function (e) {
    if (state) {
      state.textContent = e.data;
    }
  });
  src.onerror = function () {
    if (state) {
      state.textContent = "(disconnected: reconnecting…)";
    }
  };
})();
