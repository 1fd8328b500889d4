/*
 * sitewise reader: what the bookmarklet does in the reader's page. Served by the sitewise server at
 * /bookmarklet/sitewise.js with collect.js bundled in front (so window.sitewiseCollect exists); the
 * loader (loader.js) injects that script and a second click closes everything again.
 *
 * Phases of a run:
 *   1. collect    window.sitewiseCollect() records the page's text blocks and hands back each block's
 *                 element. Blocks inside editable regions are dropped: the reader's own typing is never
 *                 sent. A page of more blocks than the server takes (20,000) is refused by collect.js
 *                 before its blocks are described: the panel says why, and nothing is sent.
 *   2. upload     POST /api/pages (gzip when the browser can), no cookies (credentials: "omit"). The page
 *                 goes in collect.js' style-table form (each distinct style once), which the server
 *                 expands: a block costs ~270 bytes instead of ~930, so a page of the most blocks the
 *                 server takes (20,000) fits its body limit.
 *   3. rules      GET /rules/<site>. When the site is learned, pick the template whose `match` selector
 *                 is on this page and select the blocks inside an `include` selector but not inside an
 *                 `exclude` one (a shadow host counting as its shadow tree's parent, as in selector
 *                 paths), a passage repeated word for word once (docs/rules.md). Otherwise (or
 *                 when no template matches) POST /api/extract with the page and highlight the blocks the
 *                 server returns (MSS).
 *   4. show       outline the article blocks (inline styles, restored on close) and open a panel in a
 *                 shadow root (page CSS cannot reach it) in the top layer, a dialog that takes the focus
 *                 and says its status in live regions: method, pages learned from, highlight toggle,
 *                 copy text, report a wrong or missing block (POST /api/feedback: click a block, or
 *                 move a ring through the blocks with Tab or the arrow keys and press Enter). It
 *                 minimises to a chip (the highlight stays) and expands again.
 * When the page's Content-Security-Policy blocks the server, the panel says so.
 * window.sitewise exposes close(), ready (a promise of the run's state) and a few read-only helpers.
 * Like collect.js it runs inside pages that patch built-ins, so it uses collect.js' pristine ones
 * (window.sitewiseBuiltins): arrays, maps and sets of the fresh realm, JSON read and written there,
 * string and DOM methods called uncurried.
 */
(function () {
  "use strict";

  if (window.sitewise && window.sitewise.close) {  // loaded twice: behave like a second click
    window.sitewise.close();
    return;
  }

  var builtins = window.sitewiseBuiltins;
  var realm = builtins.realm, list = builtins.list, stringify = builtins.stringify, parse = builtins.parse;
  var stringReplace = builtins.stringReplace, stringSlice = builtins.stringSlice, stringIndexOf = builtins.stringIndexOf;
  var stringToLowerCase = builtins.stringToLowerCase, stringSplit = builtins.stringSplit;
  var stringMatch = builtins.stringMatch;
  var closest = builtins.closest, queryAll = builtins.queryAll, createElement = builtins.createElement;
  var attribute = builtins.attribute;

  var SCRIPT = document.currentScript;
  var SERVER = serverOf(SCRIPT);
  // Highlight colours: a warm outline and wash that read on light and dark pages alike. The wash is an inset
  // shadow, painted over the block's own background rather than instead of it (white text on a dark block
  // became white on pale yellow), and like the outline it takes no room: the page does not reflow.
  var HIGHLIGHT_STYLE = {
    "outline": "2px solid rgba(232, 170, 20, 0.95)",
    "outline-offset": "2px",
    "box-shadow": "inset 0 0 0 100vmax rgba(255, 226, 120, 0.35)"
  };
  var HOVER_STYLE = {"outline": "2px dashed rgba(200, 40, 40, 0.95)", "outline-offset": "2px"};
  // The keyboard's block in report mode: a focus ring, thicker and blue, told apart from the highlight's
  // amber and the pointer's dashed red.
  var RING_STYLE = {"outline": "3px solid rgba(26, 115, 232, 1)", "outline-offset": "2px"};
  // Every property the marks set: what restyle() and close() give back to the page.
  var MARK_STYLES = realm.Object.assign({}, HIGHLIGHT_STYLE, HOVER_STYLE, RING_STYLE);
  // The ringed block is announced by this much of its text: enough to know it, short enough to hear on
  // every key press.
  var ANNOUNCED_TEXT_CHARS = 60;
  // Feedback carries at most this much of a block's text (the server caps it at 10,000).
  var FEEDBACK_TEXT_CHARS = 2000;
  // Editable regions hold the reader's typing, not page text: never sent.
  var EDITABLE = "[contenteditable]:not([contenteditable=\"false\"]), input, textarea, select, form [role=textbox]";
  var PANEL_Z_INDEX = "2147483647";
  var PANEL_BODY_ID = "sitewise-body";  // what the minimise toggle shows and hides (aria-controls)
  var DOCUMENT_FRAGMENT_NODE = 11;  // Node.DOCUMENT_FRAGMENT_NODE: a shadow root
  // The rule set format this script applies (docs/rules.md).
  var RULES_FORMAT = 1;
  // A selected passage the page repeats word for word is shown once when it has at least this many
  // words: sitewise.learn.rules.MIN_REPEAT_WORDS, so the highlight is what apply_rules gives.
  var MIN_REPEAT_WORDS = 4;
  // A template learned from fewer pages than this is checked against the fallback, which the server has:
  // sitewise.pipeline.MIN_TRUSTED_TEMPLATE_PAGES (a site's page kind seen once or twice may have a template
  // that fits other kinds' markup and selects the wrong region).
  var MIN_TRUSTED_TEMPLATE_PAGES = 3;
  // A template's recurring lines leave the article, but never a section head of one of these elements:
  // sitewise.learn.rules.SECTION_HEAD_TAGS.
  var SECTION_HEAD_TAGS = new realm.Set(list("h1", "h2", "h3", "h4", "h5", "h6"));
  // The name of collect.js' Error that refuses a page (more blocks than the server takes): its message says why.
  var PAGE_REFUSED = "PageRefused";
  // Whitespace as Python's \s and str.strip see it (apply_rules compares passages with these spaces
  // collapsed): JavaScript's \s lacks U+001C-U+001F and U+0085 and has U+FEFF.
  var PYTHON_SPACES = builtins.regExp(/[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g);
  var EDGE_SPACE = builtins.regExp(/^ | $/g);
  var SPACE_RUNS = builtins.regExp(/\s+/g);
  // Python's \w+ runs: letters and digits of any script, and "_".
  var WORDS = builtins.regExp(/[\p{L}\p{N}_]+/gu);
  var TRAILING_DOT = builtins.regExp(/\.$/);
  var LAST_WORD = builtins.regExp(/ [^ ]*$/);  // after collapseSpaces: a cut text's last, maybe partial, word
  // What the page's HTML is sent without: scripts and what never shows as text (a template but one that
  // holds a shadow root, see withSanitisedHtml).
  var SHADOW_ROOT_TEMPLATE = "template[shadowrootmode]";
  var UNSENT = "script, style, noscript, template:not([shadowrootmode]), iframe, object, embed, svg, canvas";

  var collectorGlobals = list("sitewiseCollect", "sitewiseCollectJSON", "sitewiseBuiltins");
  var restores = list();      // undo functions, run in reverse on close
  var styled = new realm.Map();  // element -> {property: [value, priority]} saved before we styled it
  var cspBlocked = false;
  var closed = false;
  var state = {
    server: SERVER, site: null, url: location.href, method: null, ruleVersion: null, template: null,
    pagesLearnedFrom: null, pagesStored: null, pagesNeeded: null, upload: null, blocks: 0, article: list(), highlight: true,
    learnedVersion: null,  // the site's current rule version, when it is learned (whether or not they fit this page)
    error: null
  };
  var page = null;
  var elements = list();       // block index -> element
  var indexOf = new realm.Map();  // element -> block index
  var panel = null;
  var reporting = null;       // report mode while it is on: its listeners, the pointer's block, the keyboard's ring

  listen(document, "securitypolicyviolation", function (event) {
    if (stringIndexOf("" + (event.blockedURI || ""), SERVER) === 0) cspBlocked = true;
  });

  var api = {
    close: close,
    state: state,
    server: SERVER,
    articleText: articleText,
    highlightedElements: function () { return state.highlight ? articleElements() : list(); },
    ready: null
  };

  // -- the run -------------------------------------------------------------------------------------

  function run() {
    panel = createPanel();
    panel.status("Reading the page…");
    if (typeof window.sitewiseCollect !== "function") {
      return Promise.reject(new Error("the collector (collect.js) did not load"));
    }
    try {
      page = window.sitewiseCollect({collector: "bookmarklet", styleTable: true, elements: elements});
    } catch (error) {
      return Promise.reject(error);  // said in the panel (fail), not thrown at the page
    }
    dropEditableBlocks();
    state.site = siteOf(page.url);
    state.blocks = page.blocks.length;
    panel.status("Sending the page and asking for " + state.site + "'s rules…");
    var uploaded = upload(page);
    return fetchRules(state.site).then(function (rules) {
      if (rules) state.learnedVersion = rules.version;
      var article = rules ? articleByRules(rules) : null;
      if (article) return article;
      return articleByServer();
    }).then(function (article) {
      if (closed) return;
      state.article = article;
      applyHighlight();
      panel.render();  // the article is shown now; the upload's answer only adds the page count
      return uploaded.then(function () { if (!closed) panel.render(); });
    });
  }

  function upload(collected) {
    return request("POST", "/api/pages", collected).then(function (response) {
      return jsonOf(response).then(function (body) {
        if (response.ok) {
          state.upload = body.created ? "stored" : "updated";
          state.pagesStored = body.pages;
          if (body.site) state.site = body.site;
        } else {
          state.upload = response.status === 429 ? "rate-limited" : "refused: " + (body.message || response.status);
        }
      });
    }).catch(function (error) {
      // The article is still shown; only the contribution failed.
      state.upload = "not sent: " + (error && error.cspBlocked ? "blocked by this page's Content-Security-Policy" : (error && error.message) || error);
    });
  }

  function fetchRules(site) {
    return request("GET", "/rules/" + encodeURIComponent(site)).then(function (response) {
      if (response.status === 404) {
        return jsonOf(response).then(function (body) {
          // The upload's answer (it may come first) already counts this page.
          state.pagesStored = realm.Math.max(state.pagesStored || 0, body.pages || 0);
          state.pagesNeeded = body.min_pages_to_learn;
          return null;
        });
      }
      if (!response.ok) throw new Error("the server answered " + response.status + " for the site's rules");
      return jsonOf(response);
    });
  }

  // Rules (docs/rules.md, the same semantics as sitewise.learn.rules.apply_rules on collected blocks):
  // the first template whose match selectors each select at least one block applies; a block is
  // article when its element or an ancestor matches an include selector and none matches an exclude
  // one, or when it matches a heading selector (headline, byline, date line: even inside an exclude);
  // the site's recurring lines leave (dropRecurring); a passage repeated word for word is kept once
  // (dropRepeats). The result counts only when it has body blocks and its word count is in the
  // template's usual range; otherwise, and for a template of few pages, the server decides (rules or MSS).
  function articleByRules(rules) {
    if (rules.format !== RULES_FORMAT) return null;  // a format this script does not know: the server decides
    try {
      var template = chooseTemplate(rules.templates || list());
      if (!template || (typeof template.pages === "number" && template.pages < MIN_TRUSTED_TEMPLATE_PAGES)) return null;
      var heading = new realm.Set(selectBlocks(template.heading || list(), list()));
      var body = dropRecurring(selectBlocks(template.include, template.exclude || list()), heading, template.recurring || list());
      var chosen = dropRepeats(union(body, realm.Array.from(heading)));
      var words = countWords(chosen.map(function (i) { return page.blocks[i].text; }).join("\n"));
      var range = template.words || list(0, Infinity);
      // A heading with no body (a video page sharing the site's headline) is not an article either.
      var hasBody = chosen.some(function (i) { return !heading.has(i); });
      if (!hasBody || words < range[0] || words > range[1]) return null;
    } catch (error) {
      return null;  // a selector this browser cannot parse: let the server decide instead
    }
    state.method = "rules";
    state.ruleVersion = rules.version || null;
    state.template = template.name || null;
    state.pagesLearnedFrom = rules.pages_learned || null;
    return chosen;
  }

  function chooseTemplate(templates) {
    for (var i = 0; i < templates.length; i++) {
      var matches = templates[i].match || list();
      if (matches.every(function (selector) { return selectBlocks(list(selector), list()).length > 0; })) return templates[i];
    }
    return null;
  }

  function selectBlocks(include, exclude) {
    var includeList = joinSelectors(include);
    var excludeList = joinSelectors(exclude);
    var chosen = list();
    if (!includeList) return chosen;
    for (var i = 0; i < elements.length; i++) {
      var element = elements[i];
      if (closestAcrossShadows(element, includeList) && !(excludeList && closestAcrossShadows(element, excludeList))) chosen.push(i);
    }
    return chosen;
  }

  // Two sorted lists of block indices as one, in document order.
  function union(first, second) {
    var all = new realm.Set(first.concat(second));
    return realm.Array.from(all).sort(function (a, b) { return a - b; });
  }

  // sitewise.learn.rules.is_recurring on block indices: a body block whose text (case and spacing aside)
  // is one of the template's recurring lines leaves, unless it is of the heading or a section head.
  function dropRecurring(chosen, heading, recurring) {
    if (!recurring.length) return chosen;
    var lines = new realm.Set(recurring);
    return chosen.filter(function (index) {
      var block = page.blocks[index];
      if (heading.has(index) || SECTION_HEAD_TAGS.has(block.tag)) return true;
      return !lines.has(stringToLowerCase(collapseSpaces(block.text)));
    });
  }

  // sitewise.learn.rules.drop_repeats on block indices: a block whose text repeats an earlier chosen
  // block's word for word (case and spacing aside) and has at least MIN_REPEAT_WORDS words is left out,
  // so a page carrying its article twice (a teaser copy above the full text) shows it once.
  function dropRepeats(chosen) {
    var seen = new realm.Set();
    return chosen.filter(function (index) {
      var key = stringToLowerCase(collapseSpaces(page.blocks[index].text));
      if (countWords(key) < MIN_REPEAT_WORDS) return true;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  // Runs of spaces as one, none at the ends, as apply_rules compares passages.
  function collapseSpaces(text) {
    return stringReplace(stringReplace(text, PYTHON_SPACES, " "), EDGE_SPACE, "");
  }

  // Words as rule sets count them (WORDS).
  function countWords(text) {
    var words = stringMatch(text, WORDS);
    return words ? words.length : 0;
  }

  // Whether the element or an ancestor matches: closest(), going on from a shadow root to its host, which
  // stands in for the root's parent in collected selector paths (so apply_rules selects the same blocks).
  function closestAcrossShadows(element, selectors) {
    for (var node = element; node; node = shadowHostOf(node)) {
      if (closest(node, selectors)) return true;
    }
    return false;
  }

  // The host of the shadow root a node is in, or null in the document (a document's "host" may be a
  // form the page named so: only a shadow root, a fragment, has a host).
  function shadowHostOf(node) {
    var root = node;
    while (root.parentNode) root = root.parentNode;
    return root.nodeType === DOCUMENT_FRAGMENT_NODE ? root.host : null;
  }

  function joinSelectors(selectors) {
    if (!selectors) return "";
    return (realm.Array.isArray(selectors) ? selectors : list(selectors)).filter(realm.Boolean).join(", ");
  }

  // The server reads the article from the page's HTML when it has it, from the blocks otherwise: a page
  // whose HTML takes the body past the server's limit (413) is sent again without it.
  function articleByServer() {
    panel.status((state.learnedVersion != null ? "This site's rules do not fit this page" : "This site is not learned yet") +
      ": asking the server to find the article…");
    return request("POST", "/api/extract", {page: withSanitisedHtml(page)}).then(function (response) {
      return response.status === 413 ? request("POST", "/api/extract", {page: page}) : response;
    }).then(function (response) {
      return jsonOf(response).then(function (result) {
        if (!response.ok) throw new Error(result.message || "extraction failed (" + response.status + ")");
        state.method = result.method;
        state.ruleVersion = result.rule_version || null;
        state.template = result.template || null;
        if (result.method === "rules" && result.pages_learned_from) state.pagesLearnedFrom = result.pages_learned_from;
        return (result.blocks || list()).filter(function (i) { return i >= 0 && i < elements.length; });
      });
    });
  }

  // -- collecting ----------------------------------------------------------------------------------

  function dropEditableBlocks() {
    var keptBlocks = list();
    var keptElements = list();
    for (var i = 0; i < page.blocks.length; i++) {
      var element = elements[i];
      if (closestAcrossShadows(element, EDITABLE)) continue;
      keptBlocks.push(page.blocks[i]);
      keptElements.push(element);
    }
    page.blocks = keptBlocks;
    elements = keptElements;
    indexOf = new realm.Map();
    elements.forEach(function (element, index) {
      if (element && !indexOf.has(element)) indexOf.set(element, index);
    });
  }

  // The DOM as served to the extractor, with its open shadow roots (builtins.documentCopy): no scripts, and
  // nothing a reader typed or a form pre-filled.
  function withSanitisedHtml(collected) {
    var copy = realm.Object.assign({}, collected);
    try {
      var root = builtins.documentCopy();
      sanitise(root);
      copy.html = "<!DOCTYPE html>" + root.outerHTML;
    } catch (error) {
      delete copy.html;  // the server falls back to the blocks
    }
    return copy;
  }

  // Empties a copy of the page (an element, or a shadow root's template content) of what the server is not
  // sent, in its shadow roots too.
  function sanitise(root) {
    var drop = queryAll(root, UNSENT);
    for (var i = 0; i < drop.length; i++) drop[i].remove();
    var fields = queryAll(root, "input, textarea, select, option, [contenteditable]");
    for (var j = 0; j < fields.length; j++) {
      var field = fields[j];
      field.removeAttribute("value");
      if (field.localName === "textarea" || field.localName === "option" || field.hasAttribute("contenteditable")) {
        field.textContent = "";
      }
    }
    var shadowRoots = queryAll(root, SHADOW_ROOT_TEMPLATE);
    for (var k = 0; k < shadowRoots.length; k++) sanitise(shadowRoots[k].content);
  }

  // -- highlighting --------------------------------------------------------------------------------

  function articleElements() {
    return uniqueElements(state.article.map(function (index) { return elements[index]; }));
  }

  // Elements once each, in the order given (blocks may share an element).
  function uniqueElements(candidates) {
    var seen = new realm.Set();
    return candidates.filter(function (element) {
      if (!element || seen.has(element)) return false;
      seen.add(element);
      return true;
    });
  }

  function isArticle(element) {
    return state.article.some(function (index) { return elements[index] === element; });
  }

  function applyHighlight() {
    if (closed) return;
    unstyleAll(HIGHLIGHT_STYLE);
    if (state.highlight) articleElements().forEach(function (element) { styleElement(element, HIGHLIGHT_STYLE); });
    if (reporting) markedByReporting(reporting).forEach(restyle);
  }

  // An element's marks, layered: the highlight, then in report mode the pointer's and the keyboard's ring.
  // Each outline hides the one below, and undoing one gives back the page's own style, so the element is
  // styled again from that.
  function restyle(element) {
    unstyleElement(element, MARK_STYLES);
    if (state.highlight && isArticle(element)) styleElement(element, HIGHLIGHT_STYLE);
    if (reporting && element === reporting.hovered) styleElement(element, HOVER_STYLE);
    if (reporting && element === reporting.ringed) styleElement(element, RING_STYLE);
  }

  function styleElement(element, style) {
    var saved = styled.get(element) || {};
    realm.Object.keys(style).forEach(function (property) {
      if (!(property in saved)) {
        saved[property] = list(element.style.getPropertyValue(property), element.style.getPropertyPriority(property));
      }
      element.style.setProperty(property, style[property], "important");
    });
    styled.set(element, saved);
  }

  function unstyleElement(element, style) {
    var saved = styled.get(element);
    if (!saved) return;
    realm.Object.keys(style).forEach(function (property) {
      if (!(property in saved)) return;
      var previous = saved[property];
      if (previous[0]) element.style.setProperty(property, previous[0], previous[1]);
      else element.style.removeProperty(property);
      delete saved[property];
    });
    if (!realm.Object.keys(saved).length) {
      styled.delete(element);
      if (attribute(element, "style") === "") element.removeAttribute("style");
    }
  }

  function unstyleAll(style) {
    realm.Array.from(styled.keys()).forEach(function (element) { unstyleElement(element, style); });
  }

  function articleText() {
    return state.article.map(function (index) { return page.blocks[index].text; }).join("\n\n");
  }

  // -- feedback ------------------------------------------------------------------------------------

  function startReporting() {
    if (reporting) return stopReporting();
    // The block under the pointer: the nearest on the event's path from the node itself (event.target is
    // a shadow tree's host by the time the event reaches the document).
    function blockAt(event) {
      var path = event.composedPath();
      for (var i = 0; i < path.length; i++) {
        if (indexOf.has(path[i])) return path[i];
      }
      return null;
    }
    function over(event) {
      moveMark("hovered", blockAt(event));
    }
    function click(event) {
      if (panel.contains(event.target)) return;
      var element = blockAt(event);
      if (!element) return;
      event.preventDefault();
      event.stopPropagation();
      report(indexOf.get(element));
    }
    // Escape ends report mode and nothing else (the panel's own Escape would close it). With the focus in
    // the panel, Tab and the arrow keys move the keyboard's ring through the blocks and Enter or Space
    // marks the ringed one, as a click would; the page's own fields and links keep their keys (and
    // browser shortcuts theirs). On the window, so that the page's keyboard shortcuts do not act on them.
    function key(event) {
      if (event.key === "Escape") {
        event.stopPropagation();
        return stopReporting();
      }
      if (!panel.contains(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
      var step = ringStep(event);
      var marks = (event.key === "Enter" || event.key === " ") && reporting.ringed;
      if (!step && !marks) return;
      event.preventDefault();
      event.stopPropagation();
      if (step) moveRing(step);
      else report(indexOf.get(reporting.ringed));
    }
    reporting = {
      hovered: null,
      ringed: null,
      blocks: uniqueElements(elements),  // the ring's stops, in block order
      stop: function () {
        document.removeEventListener("mouseover", over, true);
        document.removeEventListener("click", click, true);
        window.removeEventListener("keydown", key, true);
      }
    };
    document.addEventListener("mouseover", over, true);
    document.addEventListener("click", click, true);
    window.addEventListener("keydown", key, true);
    panel.render();
  }

  // How many blocks a report-mode key moves the ring: Tab, down and right go on, Shift+Tab, up and left
  // back; any other key, none.
  function ringStep(event) {
    if (event.key === "Tab") return event.shiftKey ? -1 : 1;
    if (event.key === "ArrowDown" || event.key === "ArrowRight") return 1;
    if (event.key === "ArrowUp" || event.key === "ArrowLeft") return -1;
    return 0;
  }

  // Moves the keyboard's ring `step` blocks on (from the last block on to the first), scrolls its block
  // into view and says in the panel's polite note which block it is.
  function moveRing(step) {
    var blocks = reporting.blocks;
    if (!blocks.length) return;
    var at = blocks.indexOf(reporting.ringed);
    var next = at < 0 ? (step > 0 ? 0 : blocks.length - 1) : (at + step + blocks.length) % blocks.length;
    moveMark("ringed", blocks[next]);
    blocks[next].scrollIntoView({block: "center", inline: "nearest"});
    panel.note(ringLabel(blocks[next], next, blocks.length));
  }

  // "Block 3 of 41 (article): Paragraph 2: the harbour workers…": where the ring is, whether Enter would
  // mark the block not article (article) or missed, and how its text begins.
  function ringLabel(element, position, count) {
    var text = collapseSpaces(page.blocks[indexOf.get(element)].text);
    // Cut after a whole word: half a word is read out as another one.
    if (text.length > ANNOUNCED_TEXT_CHARS) text = stringReplace(stringSlice(text, 0, ANNOUNCED_TEXT_CHARS + 1), LAST_WORD, "") + "…";
    return "Block " + (position + 1) + " of " + count + (isArticle(element) ? " (article)" : "") + ": " + text;
  }

  function stopReporting() {
    if (!reporting) return;
    var ended = reporting;
    reporting = null;
    ended.stop();
    markedByReporting(ended).forEach(restyle);
    if (panel) panel.render();
  }

  // The elements report mode marks: the block under the pointer and the keyboard's.
  function markedByReporting(mode) {
    return list(mode.hovered, mode.ringed).filter(realm.Boolean);
  }

  // Moves a report-mode mark (which: "hovered" or "ringed") to another block, or to none.
  function moveMark(which, element) {
    var left = reporting[which];
    if (element === left) return;
    reporting[which] = element;
    if (left) restyle(left);
    if (element) restyle(element);
  }

  // A click on a highlighted block says "not article"; on any other block, "article that was missed".
  function report(index) {
    var position = state.article.indexOf(index);
    var kind = position >= 0 ? "not_article" : "missing";
    var block = page.blocks[index];
    if (kind === "not_article") state.article.splice(position, 1);
    else state.article = state.article.concat(list(index)).sort(function (a, b) { return a - b; });
    applyHighlight();
    return sendFeedback(kind, block).then(function (message) {
      if (panel) panel.note(message);
      return kind;
    });
  }

  function sendFeedback(kind, block) {
    return request("POST", "/api/feedback", {
      url: page.url,
      kind: kind,
      selector: block.selector,
      text: stringSlice(block.text, 0, FEEDBACK_TEXT_CHARS),
      method: state.method,
      rule_version: state.ruleVersion
    }).then(function (response) {
      if (response.ok) return "Thanks — marked as " + (kind === "not_article" ? "not article." : "missing article text.");
      // The server's JSON error says why (a day's marks on this site used up, ...); a proxy's page does not.
      return jsonOf(response).then(function (body) {
        return "The server did not take the mark: " + (body.message || response.status);
      }, function () {
        return "The server did not take the mark (" + response.status + ").";
      });
    }, function (error) {
      return "Could not send the mark: " + error.message;
    });
  }

  // -- the panel -----------------------------------------------------------------------------------

  // The panel keeps 16px from the viewport's edges; on a narrow screen (a phone, or 200% zoom) it narrows,
  // and when it is taller than the viewport it scrolls. Buttons are at least 24px (WCAG 2.5.8), 44px on a
  // touch screen (WCAG 2.5.5, Apple's and Android's guidance for a fingertip).
  var PANEL_CSS = list(
    ":host { all: initial; }",
    ".panel { position: fixed; top: 16px; right: 16px; width: 320px; box-sizing: border-box; padding: 14px 16px 12px;",
    "  max-width: calc(100% - 32px); max-height: calc(100% - 32px); overflow-y: auto;",
    "  background: #1d2330; color: #f1f3f8; border-radius: 12px; box-shadow: 0 10px 30px rgba(0,0,0,.35);",
    "  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; text-align: left; }",
    ".panel:focus { outline: none; }",  // focused on opening, for the keyboard: a ring around it all is noise
    ".head { display: flex; align-items: center; justify-content: space-between; margin-bottom: 8px; }",
    ".brand { font-weight: 700; font-size: 15px; letter-spacing: -.01em; }",
    ".brand::before { content: ''; display: inline-block; width: 4px; height: 15px; margin-right: 7px; vertical-align: -2px;",
    "  background: #f5c542; border-radius: 2px; }",
    "button { font: inherit; cursor: pointer; border: 0; border-radius: 7px; padding: 6px 10px; margin: 0;",
    "  min-width: 24px; min-height: 24px; background: #323a4d; color: #f1f3f8; }",
    "@media (pointer: coarse) { button { min-width: 44px; min-height: 44px; } }",
    "button:hover { background: #404a62; }",
    "button.on { background: #f5c542; color: #1d2330; }",
    ".head button { background: transparent; font-size: 18px; line-height: 1; padding: 2px 6px; color: #aab2c5; }",
    ".controls { display: flex; gap: 4px; }",
    // Minimised: a chip of the head alone (and a note, when there is news), as narrow as its content.
    ".panel.collapsed { width: auto; padding: 4px 6px 4px 14px; }",
    ".panel.collapsed .head { margin-bottom: 0; gap: 10px; }",
    ".status { margin: 0 0 6px; }",
    ".method { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px; font-weight: 700;",
    "  background: #f5c542; color: #1d2330; margin-right: 6px; }",
    ".method.mss { background: #8fb3ff; }",
    ".facts { color: #aab2c5; font-size: 12.5px; margin: 0 0 10px; }",
    ".actions { display: flex; gap: 6px; flex-wrap: wrap; }",
    ".note { margin: 10px 0 0; font-size: 12.5px; color: #d7dcea; }",
    ".error { margin: 6px 0 0; padding: 8px 10px; border-radius: 8px; background: #5a1f22; color: #ffd9d6; }",
    ".hint { margin: 10px 0 0; padding: 8px 10px; border-radius: 8px; background: #2a3142; font-size: 12.5px; }",
    ".foot { margin: 10px 0 0; font-size: 11.5px; color: #8d96ab; }"
  ).join("\n");

  function createPanel() {
    var host = createElement(document, "sitewise-panel");
    host.style.setProperty("all", "initial", "important");
    host.style.setProperty("position", "fixed", "important");
    host.style.setProperty("z-index", PANEL_Z_INDEX, "important");
    host.style.setProperty("top", "0", "important");
    host.style.setProperty("right", "0", "important");
    host.setAttribute("popover", "manual");  // manual: a click on the page (reporting a block) keeps it open
    var root = host.attachShadow({mode: "open"});
    adoptStyles(root, PANEL_CSS);
    // The panel speaks English: left to right, read with an English voice, on an Arabic or Hebrew page too.
    var box = element("div", {class: "panel", role: "dialog", "aria-label": "sitewise", dir: "ltr", lang: "en", tabindex: "-1"});
    var closeButton = element("button", {class: "close", type: "button", title: "Close sitewise", "aria-label": "Close"}, "×");
    closeButton.addEventListener("click", close);
    // A disclosure button: its name stays, aria-expanded says (and a screen reader announces) the state.
    var toggle = element("button", {class: "toggle", type: "button", "aria-label": "sitewise panel", "aria-controls": PANEL_BODY_ID});
    toggle.addEventListener("click", function () { setCollapsed(!body.hidden); });
    // A live region is announced when its content changes, not when it is inserted: the message (progress,
    // result or error) and the note stay, only what they say is replaced. The note is outside the body, so
    // a mark's answer shows on the minimised chip too (a reader on a phone minimises to reach the blocks).
    var message = element("div", {role: "status"});
    var details = element("div", {});
    var body = element("div", {id: PANEL_BODY_ID}, list(message, details));
    var note = element("p", {class: "note", role: "status"});
    note.hidden = true;
    var controls = element("div", {class: "controls"}, list(toggle, closeButton));
    box.appendChild(element("div", {class: "head"}, list(element("span", {class: "brand"}, "sitewise"), controls)));
    box.appendChild(body);
    box.appendChild(note);
    // Each run opens expanded: the reader clicked to see the result, and remembering a minimised panel
    // across pages would mean writing to the page's storage (the bookmarklet leaves nothing behind).
    setCollapsed(false);
    box.addEventListener("keydown", function (event) {
      if (event.key === "Escape") close();
    });
    root.appendChild(box);
    document.documentElement.appendChild(host);
    restores.push(function () { host.remove(); });
    showOnTop(host);
    box.focus({preventScroll: true});  // the reader just asked for it: Tab goes on to its buttons, not the page's links

    // Minimised, the panel is a chip in the corner and the page is free to read and tap (in report mode
    // too); the highlight stays. The note said what it had to say: the chip does not keep it.
    function setCollapsed(collapsed) {
      body.hidden = collapsed;
      box.setAttribute("class", collapsed ? "panel collapsed" : "panel");
      toggle.setAttribute("aria-expanded", collapsed ? "false" : "true");
      toggle.setAttribute("title", collapsed ? "Expand the panel" : "Minimise the panel (the highlight stays)");
      toggle.textContent = collapsed ? "+" : "−";
      if (collapsed) {
        note.textContent = "";
        note.hidden = true;
      }
    }

    // The message is replaced only when it says something new (a screen reader reads each change), and a
    // button that had the keyboard focus has it again after the redraw.
    function draw(said, rest) {
      var focused = root.activeElement ? attribute(root.activeElement, "data-action") : null;
      if (message.textContent !== said.textContent) replaceChildren(message, list(said));
      replaceChildren(details, rest);
      var again = focused && queryAll(details, "[data-action=\"" + focused + "\"]")[0];
      if (again) again.focus();
      else if (focused) box.focus();
    }

    return {
      host: host,
      contains: function (node) { return node === host || host.contains(node); },
      status: function (text) { draw(element("p", {class: "status"}, text), list()); },
      error: function (text) { draw(element("p", {class: "error"}, text), list()); },
      note: function (text) {
        note.textContent = text;
        note.hidden = !text;
        this.render();
      },
      render: function () {
        if (state.error) return this.error(state.error);
        var view = resultView();
        draw(view.message, view.details);
      }
    };
  }

  // The top layer (a manual popover) is above every z-index and fixed to the viewport even when the page
  // transforms its root element (which would make position: fixed scroll with the page). A browser without
  // popovers keeps the panel where z-index puts it.
  function showOnTop(host) {
    if (typeof host.showPopover !== "function") return;
    try { host.showPopover(); } catch (error) { /* not shown as a popover: z-index still holds */ }
  }

  function replaceChildren(parent, children) {
    while (parent.firstChild) parent.removeChild(parent.firstChild);
    children.forEach(function (child) { if (child) parent.appendChild(child); });
  }

  function resultView() {
    var blocks = state.article.length;
    var words = countWords(articleText());
    var method = state.method === "rules"
      ? element("span", {class: "method rules"}, "rules")
      : element("span", {class: "method mss"}, state.method || "none");
    var headline = !blocks
      ? "No article text found on this page."
      : words + " words in " + blocks + " block" + (blocks === 1 ? "" : "s") + " highlighted.";
    var learned = state.method === "rules"
      ? "Learned rules v" + state.ruleVersion + (state.pagesLearnedFrom ? ", from " + state.pagesLearnedFrom + " pages" : "") +
        (state.template ? " (template " + state.template + ")" : "") + "."
      : state.learnedVersion != null
      ? "Learned rules v" + state.learnedVersion + " do not fit this page (a layout they do not know yet?). Found by text statistics (MSS)."
      : "Not learned yet" + (state.pagesStored != null ? ": " + state.pagesStored + " page" + (state.pagesStored === 1 ? "" : "s") + " of " + state.site + " stored" : "") +
        (state.pagesNeeded ? " (learning starts at " + state.pagesNeeded + ")" : "") + ". Found by text statistics (MSS).";
    var toggle = button("highlight", state.highlight ? "Highlight on" : "Highlight off", state.highlight, function () {
      state.highlight = !state.highlight;
      applyHighlight();
      panel.render();
    });
    var copy = button("copy", "Copy text", false, copyText);
    var reportButton = button("report", reporting ? "Done reporting" : "Report a block", !!reporting, startReporting);
    return {
      message: element("p", {class: "status"}, list(method, headline)),
      details: list(
        element("p", {class: "facts"}, learned),
        element("div", {class: "actions"}, list(toggle, copy, reportButton)),
        reporting ? element("p", {class: "hint"}, "Click a highlighted block that is not article text, or a block that is article text but was missed. " +
          "From the keyboard: Tab or the arrow keys go through the blocks, Enter marks one. Esc to stop.") : null,
        element("p", {class: "foot"}, "Page " + (state.upload || "not sent") + " · " + SERVER)
      )
    };
  }

  // action names the button across redraws (the keyboard focus stays on it).
  function button(action, label, on, onClick) {
    var node = element("button", {class: on ? "on" : "", type: "button", "data-action": action}, label);
    node.addEventListener("click", function (event) {
      event.stopPropagation();
      onClick();
    });
    return node;
  }

  function copyText() {
    var text = articleText();
    var done = function () { panel.note("Copied " + stringSplit(text, SPACE_RUNS).filter(realm.Boolean).length + " words."); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { copyWithSelection(text) ? done() : panel.note("The browser refused to copy."); });
    } else if (copyWithSelection(text)) {
      done();
    } else {
      panel.note("The browser refused to copy.");
    }
  }

  function copyWithSelection(text) {
    var area = createElement(document, "textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.setProperty("position", "fixed", "important");
    area.style.setProperty("left", "-10000px", "important");
    panel.host.shadowRoot.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (error) { ok = false; }
    area.remove();
    return ok;
  }

  function adoptStyles(root, css) {
    // Constructed style sheets are not subject to the page's style-src policy; <style> is.
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      root.adoptedStyleSheets = list(sheet);
    } catch (error) {
      root.appendChild(element("style", {}, css));
    }
  }

  function element(tag, attributes, children) {
    var node = createElement(document, tag);
    realm.Object.keys(attributes || {}).forEach(function (name) {
      if (attributes[name]) node.setAttribute(name, attributes[name]);
    });
    (realm.Array.isArray(children) ? children : children == null ? list() : list(children)).forEach(function (child) {
      if (child == null) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  // -- closing and errors --------------------------------------------------------------------------

  function close() {
    closed = true;
    stopReporting();
    unstyleAll(MARK_STYLES);
    while (restores.length) {
      try { restores.pop()(); } catch (error) { /* keep undoing the rest */ }
    }
    collectorGlobals.forEach(function (name) { delete window[name]; });
    if (window.sitewise === api) delete window.sitewise;
    panel = null;
  }

  function fail(error) {
    if (error && error.cspBlocked) {
      state.error = "This page's Content-Security-Policy does not let sitewise talk to " + SERVER + ", so nothing could be sent or highlighted here.";
    } else if (error && error.name === PAGE_REFUSED) {
      state.error = "sitewise stopped: " + error.message + ". Nothing was sent or highlighted.";
    } else {
      state.error = "sitewise failed: " + (error && error.message ? error.message : String(error));
    }
    if (panel && !closed) panel.render();
  }


  // fetch() rejects the same way for a CSP block and a dead server; the securitypolicyviolation event
  // (fired for the blocked URL) tells them apart.
  function request(method, path, body) {
    var options = {method: method, credentials: "omit", mode: "cors", referrerPolicy: "no-referrer", headers: {}};
    var prepared = Promise.resolve(options);
    if (body !== undefined) {
      prepared = encodeBody(stringify(body)).then(function (encoded) {
        options.headers["Content-Type"] = "application/json";
        if (encoded.gzip) options.headers["Content-Encoding"] = "gzip";
        options.body = encoded.data;
        return options;
      });
    }
    return prepared.then(function (ready) {
      return fetch(SERVER + path, ready);
    }).catch(function (error) {
      return new Promise(function (resolve) { setTimeout(resolve, 0); }).then(function () {
        var wrapped = new Error(cspBlocked ? "blocked by this page's Content-Security-Policy" : "the sitewise server at " + SERVER + " could not be reached");
        wrapped.cspBlocked = cspBlocked;
        wrapped.cause = error;
        throw wrapped;
      });
    });
  }

  // Pages compress about ten-fold; CompressionStream is in every current browser, plain JSON otherwise.
  function encodeBody(json) {
    if (typeof CompressionStream !== "function") return Promise.resolve({data: json, gzip: false});
    var stream = new Blob(list(json)).stream().pipeThrough(new CompressionStream("gzip"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      return {data: buffer, gzip: true};
    }, function () {
      return {data: json, gzip: false};
    });
  }

  // -- helpers -------------------------------------------------------------------------------------

  function listen(target, type, handler) {
    target.addEventListener(type, handler, true);
    restores.push(function () { target.removeEventListener(type, handler, true); });
  }

  function snapshot() {
    return parse(stringify(state));
  }

  function serverOf(script) {
    var src = script && script.src ? script.src : "";
    var at = stringIndexOf(src, "/bookmarklet/");
    if (at < 0) throw new Error("sitewise.js must be loaded from a sitewise server's /bookmarklet/ path");
    return stringSlice(src, 0, at);
  }

  // The page's host (without one leading "www."): GET /rules/<host> serves the rules of the site it is
  // part of (its registrable domain, or the site an administrator joined it to), whose name the
  // upload's answer gives.
  function siteOf(url) {
    var parsed = new URL(url);
    if (parsed.protocol === "file:") return "local";
    var host = stringToLowerCase(stringReplace(parsed.hostname, TRAILING_DOT, ""));
    return stringIndexOf(host, "www.") === 0 && host.length > 4 ? stringSlice(host, 4) : host;
  }

  // A response's JSON, read in the fresh realm (a page's Response.prototype.json would build the
  // page's arrays, with whatever the page added to them).
  function jsonOf(response) {
    return response.text().then(parse);
  }

  // -- start (last: every declaration above is in place) -------------------------------------------

  window.sitewise = api;
  api.ready = run().then(function () { return snapshot(); }, function (error) {
    fail(error);
    return snapshot();
  });
})();
