// On a club's website, beside its widget frames: sizes each frame of this rating site to
// the height its widget reports (ratings_site/static/js/widget.js). Optional: without it a
// frame keeps the height its tag gives. Include once:
//   <script src="https://<this site>/static/embed.js" async></script>
(function () {
  "use strict";
  var script = document.currentScript;
  var origin = script ? new URL(script.src, window.location.href).origin : null;
  window.addEventListener("message", function (event) {
    var data = event.data;
    // Only this rating site's frames are listened to, and only their height is taken.
    if (event.origin !== origin || !data || data.ratingsWidget !== "height") {
      return;
    }
    var height = Number(data.height);
    if (!isFinite(height) || height <= 0 || height > 20000) {
      return;
    }
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i += 1) {
      if (frames[i].contentWindow === event.source) {
        frames[i].style.height = Math.ceil(height) + "px";
      }
    }
  });
})();
