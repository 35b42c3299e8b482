// git ralph serve: a form with data-confirm (cancel, a best-of's merge) asks before it
// posts. The loop page's buttons post their form in the background and say what the
// command answered in place, so that the live output, its sections and what was typed
// elsewhere stay as they are; the loop's state, and so the buttons, follow from the live
// stream (live.js). Without this script the forms post as forms, and the page comes back
// with the answer.
(function () {
  "use strict";
  var background = !!(window.fetch && window.DOMParser && window.URLSearchParams);
  Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
    if (background && form.closest("#state-panel")) {
      return; // asked below, before its post in the background
    }
    form.addEventListener("submit", function (e) {
      if (!window.confirm(form.getAttribute("data-confirm"))) {
        e.preventDefault();
      }
    });
  });
  if (!background) {
    return;
  }
  // say shows the command's answer where the page shows it after a post
  function say(text, failed) {
    var p = document.getElementById("said");
    if (!p) {
      var bar = document.querySelector("#state-panel .statebar");
      if (!bar) {
        return;
      }
      p = document.createElement("p");
      p.id = "said";
      bar.parentNode.insertBefore(p, bar.nextSibling);
    }
    p.className = "said" + (failed ? " error" : "");
    p.textContent = text; // the server's words as text, never as HTML
  }
  // answer reads the reply: the loop's page (after the server's redirect), whose #said is
  // the command's answer, or an error's plain text
  function answer(form, r) {
    return r.text().then(function (body) {
      if (!r.ok) {
        say(body.trim() || "error: " + r.status, true);
        return;
      }
      var said = new DOMParser().parseFromString(body, "text/html").getElementById("said");
      if (!said) {
        say("done", false);
        return;
      }
      var failed = said.classList.contains("error");
      say(said.textContent, failed);
      if (!failed) {
        var text = form.querySelector("input[type=text]");
        if (text) {
          text.value = "";
        }
      }
    });
  }
  var forms = document.querySelectorAll("#state-panel form");
  Array.prototype.forEach.call(forms, function (form) {
    var busy = false;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var ask = form.getAttribute("data-confirm");
      if (busy || (ask && !window.confirm(ask))) {
        return;
      }
      busy = true;
      fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin" })
        .then(function (r) { return answer(form, r); })
        .catch(function (err) { say("error: " + err.message + " (the dashboard may have stopped)", true); })
        .then(function () { busy = false; });
    });
  });
})();
