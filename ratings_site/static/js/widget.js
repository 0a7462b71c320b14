// Inside a widget (ratings_site/templates/embed/base.html): tell the page that frames it
// how tall the widget is, whenever that changes, for the optional embed.js on the club's
// site to size the frame. Only a height is sent, so any page may hear it.
(function () {
  "use strict";
  if (window.parent === window) {
    return;
  }
  var last = 0;
  function report() {
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ ratingsWidget: "height", height: height }, "*");
    }
  }
  if ("ResizeObserver" in window) {
    new ResizeObserver(report).observe(document.documentElement);
  }
  window.addEventListener("load", report);
  report();
})();
