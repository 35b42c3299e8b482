// git ralph serve: while a merge picked on this page runs, the overview is read again
// every two seconds, so that the candidate's row follows the merge queue (queued,
// merging, merged or needs review) without a reload by hand.
(function () {
  "use strict";
  if (document.querySelector(".picked[data-running]")) {
    // reload: the page came by a GET (the POST answered 303), so nothing is posted again
    window.setTimeout(function () { window.location.reload(); }, 2000);
  }
})();
