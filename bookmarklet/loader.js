// The sitewise bookmarklet: the install page turns this file into a one-line javascript: URL, with
// __SITEWISE_SERVER__ replaced by the server's address as a string literal. It only loads the current
// reader script from the server (so fixes reach readers without reinstalling); a second click closes.
(function () {
  var server = __SITEWISE_SERVER__;
  if (window.sitewise && window.sitewise.close) { window.sitewise.close(); return; }
  var script = document.createElement("script");
  // Hourly cache-buster on top of the server's ETag revalidation (some proxies ignore no-cache).
  script.src = server + "/bookmarklet/sitewise.js?v=" + Math.floor(Date.now() / 36e5);
  script.async = true;
  // A CORS request without credentials: no cookie the reader holds for the server's host goes along
  // (the server answers /bookmarklet/ with Access-Control-Allow-Origin: *), and no Referer either.
  script.crossOrigin = "anonymous";
  script.referrerPolicy = "no-referrer";
  script.onload = function () { script.remove(); };
  script.onerror = function () {
    script.remove();
    alert("sitewise could not load its script from " + server + ". This page's Content-Security-Policy may block it, or the server is down.");
  };
  (document.head || document.documentElement).appendChild(script);
})();
