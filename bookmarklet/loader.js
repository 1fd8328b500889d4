// The sitewise bookmarklet: the install page turns this file into a one-line javascript: URL, with
// __SITEWISE_SERVER__ replaced by the server's address as a string literal. It only loads the current
// reader script from the server (so fixes reach readers without reinstalling); a second click closes.
(function () {
  var server = __SITEWISE_SERVER__;
  if (window.sitewise && window.sitewise.close) { window.sitewise.close(); return; }
  var script = document.createElement("script");
  // Hourly cache-buster on top of the server's ETag revalidation (some proxies ignore no-cache).
  var url = server + "/bookmarklet/sitewise.js?v=" + Math.floor(Date.now() / 36e5);
  try {
    script.src = url;
  } catch (refused) {
    // A page that requires Trusted Types (require-trusted-types-for 'script') takes a script URL only from
    // a policy; its trusted-types directive may forbid ours too.
    try {
      script.src = trustedTypes.createPolicy("sitewise", {createScriptURL: function (given) { return given; }}).createScriptURL(url);
    } catch (forbidden) {
      alert("sitewise cannot load its script on this page: its Content-Security-Policy allows only the page's own Trusted Types policies.");
      return;
    }
  }
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
