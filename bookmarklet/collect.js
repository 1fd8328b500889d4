/*
 * sitewise collector: records the visible text blocks of the rendered page, with what they look like
 * and where they sit, as a page of format 1 (sitewise/schema/page.schema.json).
 *
 * The same file runs as a bookmarklet script in a reader's browser and in headless Chromium through
 * Playwright (sitewise/collect.py). Plain ES2019, no build step. It defines exactly three globals,
 * window.sitewiseCollect(options), window.sitewiseCollectJSON(options) and window.sitewiseBuiltins (the
 * pristine built-ins below, which bookmarklet/sitewise.js uses too, and documentCopy, see "The page's
 * HTML"), and never changes the page (but for an empty iframe it adds and removes at once, see
 * "Pristine built-ins").
 *
 * options.elements, an array, receives each block's element in block order (the bookmarklet highlights
 * them: a block's selector may name other elements too, and its text is not its element's textContent).
 *
 * Phases of sitewiseCollect:
 *   1. walkRenderedTree  visit the flat tree (open shadow roots and their slots included) in document
 *                        order, skipping what is not rendered or hidden, and hand each visible text node
 *                        to the block it belongs to: its nearest block-level ancestor by computed display.
 *                        A page of more than MAX_BLOCKS blocks is refused as soon as the walk finds one
 *                        more: sitewiseCollect throws an Error named PageRefused (see "Refusing a page").
 *   2. describeBlock     for each block with text: text, tag, path, selector, box, style, link_chars, attrs.
 *   3. readMetadata      url, canonical_url, titles, descriptions, lang, viewport.
 *
 * What counts as hidden (the element and everything inside it is skipped):
 *   - content that is never rendered as text: script, style, template, svg, iframe, object, embed,
 *     canvas, audio, video, select, textarea, noframes, noembed, a MathML formula's annotations, head,
 *     noscript (unless the page's scripts are off); the body of a closed <details>; and the reader's
 *     sitewise panel (<sitewise-panel>);
 *   - display:none; content-visibility:hidden (its contents);
 *   - a box that clips its overflow and is at most 1px wide or high (collapsed panels, "sr-only");
 *     a zero-size box that does not clip still shows its text, so it is kept;
 *   - an absolutely positioned box whose clip rect or clip-path inset leaves at most 1px;
 *   - a positioned or transformed box lying entirely left of or above the page, or right of its
 *     scrollable width (left:-9999px and off-canvas menus);
 *   - text pushed off-screen by a large negative text-indent (image replacement).
 * Per text node: visibility other than visible (it is inherited, and a child may turn it back on) and
 * font-size 0 hide that text only.
 * Kept on purpose: aria-hidden content (it is often visible: icons, cloned carousel slides; the block's
 * attrs record aria-hidden so learning can use it) and opacity:0 (pages fade article text in on scroll).
 *
 * Selectors start at a plain "body" step: body's id and classes often name the page itself (WordPress'
 * "postid-123"), which would make every selector of a page unique; below body everything is recorded.
 * A shadow host stands in for the shadow root in path and selector (querySelector cannot cross it).
 * Closed shadow roots cannot be read: their host's light children are collected as if unshadowed.
 *
 * The page's HTML (options.includeHtml): documentElement.outerHTML, which never holds shadow trees. A page
 * with open shadow roots is written from a copy in which each is its host's declarative
 * <template shadowrootmode="open"> (as Element.getHTML({shadowRoots}) writes them, which not every browser
 * has): a browser reads that back as the shadow root, and so does sitewise's fallback.
 *
 * Blocks: an element is a block when its computed display is block-level (block, flow-root, flex, grid,
 * list-item, table, table-row, table-cell, table-caption, ...). display:inline (and ruby, and MathML
 * inside a formula) is always inline, so links, em, strong and spans merge into their paragraph.
 * inline-block, inline-flex, inline-grid and inline-table are inline for phrasing elements (a span or
 * a button inside a sentence) and blocks for everything else (a div or li laid out in columns).
 * display:contents is transparent. A block keeps only its own text: a nested block is a block of its
 * own, and the parent's text on either side of it is joined with a space. Blocks come in the order of their first visible text.
 *
 * Refusing a page: sitewise takes at most MAX_BLOCKS blocks a page (sitewise.page.MAX_BLOCKS), so a page
 * with more (a thread of 30,000 comments, an endless listing) is refused by the walk, before any block is
 * described or sent: the error's name is PageRefused and its message the reason, which the bookmarklet
 * shows the reader and sitewise.collect reports as the page's failure. It is refused rather than cut at
 * MAX_BLOCKS: the article may lie past the cut, and a cut page would teach rules from a page that is not.
 *
 * Pristine built-ins: the script runs inside pages that patch JavaScript's and the DOM's built-ins.
 * Prototype.js 1.6 adds Array.prototype.toJSON (JSON.stringify then writes every array as a string),
 * polyfills replace Array.prototype.push, String.prototype.trim, Math.round, window.getComputedStyle or
 * document.querySelectorAll. So what the collector calls comes from a fresh realm, the window of an
 * about:blank iframe that is added and removed before anything else runs (frame-src policies do not
 * apply to about:blank): its functions are called uncurried (stringTrim(text), as text.trim() would look
 * trim up on the page's String.prototype), its regular expressions match, its arrays and maps hold what
 * is collected, and JSON is written from a copy made in it (stringify). A detached window drops its DOM
 * interface objects, so those are read while the frame is attached. Nodes' own properties (nodeType,
 * localName, childNodes, ...) are read as the page has them. Only when no fresh realm can be had (a page
 * sandboxed by its Content-Security-Policy sees the frame as cross-origin) are the page's own used.
 */
(function () {
  "use strict";

  var FORMAT_VERSION = 1;
  // The server drops larger serialized DOMs anyway (sitewise.page.MAX_HTML_CHARS).
  var MAX_HTML_CHARS = 2000000;
  // sitewise.page.MAX_BLOCKS: the server and sitewise.collect refuse a page of more blocks.
  var MAX_BLOCKS = 20000;
  // The name of the Error that refuses a page (see "Refusing a page").
  var PAGE_REFUSED = "PageRefused";
  // sitewise.page.STYLE_PROPERTIES, same order: the computed properties that tell blocks apart.
  var STYLE_PROPERTIES = [
    "display", "position", "float", "font-family", "font-size", "font-weight", "font-style",
    "line-height", "color", "background-color", "text-align", "text-decoration-line", "text-transform",
    "letter-spacing", "white-space", "list-style-type", "margin-top", "margin-right", "margin-bottom",
    "margin-left", "padding-top", "padding-right", "padding-bottom", "padding-left", "border-top-style",
    "border-bottom-style", "border-left-style", "border-right-style"
  ];
  // Properties whose computed value is a length: recorded as whole pixels ("16px"), as rules compare
  // them exactly and sub-pixel differences carry no meaning.
  var LENGTH_PROPERTIES = {
    "font-size": 1, "line-height": 1, "letter-spacing": 1, "margin-top": 1, "margin-right": 1,
    "margin-bottom": 1, "margin-left": 1, "padding-top": 1, "padding-right": 1, "padding-bottom": 1,
    "padding-left": 1
  };
  // Elements whose content never shows as page text (or is user input, not page text), and the
  // reader's own sitewise panel (bookmarklet/sitewise.js opens it before collecting).
  var UNRENDERED_TAGS = {
    script: 1, style: 1, template: 1, svg: 1, iframe: 1, frame: 1, frameset: 1,
    object: 1, embed: 1, canvas: 1, audio: 1, video: 1, select: 1, datalist: 1, textarea: 1, head: 1,
    noframes: 1, noembed: 1, annotation: 1, "annotation-xml": 1, "sitewise-panel": 1
  };
  // The reader's panel (bookmarklet/sitewise.js): none of the page's.
  var PANEL_TAG = "sitewise-panel";
  // Phrasing elements stay inline even as inline-block: a styled link or button is part of its sentence.
  var PHRASING_TAGS = {
    a: 1, abbr: 1, b: 1, bdi: 1, bdo: 1, big: 1, button: 1, cite: 1, code: 1, data: 1, del: 1, dfn: 1,
    em: 1, font: 1, i: 1, img: 1, input: 1, ins: 1, kbd: 1, label: 1, mark: 1, nobr: 1, q: 1, s: 1,
    samp: 1, small: 1, span: 1, strike: 1, strong: 1, sub: 1, sup: 1, time: 1, tt: 1, u: 1, var: 1
  };
  // Attributes worth knowing for a block, taken from the block or its nearest ancestor that has them:
  // role=main / itemprop=articleBody mark article text; aria-hidden marks decorative or duplicate text.
  var CARRIED_ATTRIBUTES = ["role", "itemprop", "itemtype", "aria-hidden"];
  // A box this small (CSS px) that clips its overflow shows nothing.
  var CLIPPED_AWAY_PX = 1;
  // text-indent at or below minus this (CSS px) pushes text out of sight (image replacement).
  var OFFSCREEN_TEXT_INDENT_PX = 500;

  var BLOCK = 1, INLINE = 2, TRANSPARENT = 3;
  var NO_ATTRS = {};

  var builtins = pristineBuiltins();
  builtins.documentCopy = documentCopy;
  var list = builtins.list, stringify = builtins.stringify, regExp = builtins.regExp;
  var stringTrim = builtins.stringTrim, stringReplace = builtins.stringReplace, stringSplit = builtins.stringSplit;
  var stringIndexOf = builtins.stringIndexOf, stringSlice = builtins.stringSlice;
  var stringToLowerCase = builtins.stringToLowerCase, arrayFilter = builtins.arrayFilter;
  var attribute = builtins.attribute, hasAttribute = builtins.hasAttribute, boxOf = builtins.boxOf;
  var setAttribute = builtins.setAttribute, arrayIndexOf = builtins.arrayIndexOf, createElement = builtins.createElement;
  var computedStyle = builtins.computedStyle, cssValue = builtins.cssValue, queryAll = builtins.queryAll;
  var realm = builtins.realm, round = realm.Math.round, parseNumber = realm.parseFloat;

  var NON_SPACE = regExp(/\S/);
  var SPACE_RUNS = regExp(/\s+/g);
  var CLASS_SEPARATOR = regExp(/\s+/);
  var CLIP_SEPARATOR = regExp(/[\s,)]+/);
  var CLIP_PATH_INSET = regExp(/^inset\(\s*([\d.]+)%/);
  var PIXEL_LENGTH = regExp(/^-?[\d.]+(e-?\d+)?px$/);
  var QUOTES_AROUND = regExp(/^["']|["']$/g);
  var THOUSANDS = regExp(/\B(?=(\d{3})+$)/g);

  function sitewiseCollect(options) {
    options = options || {};
    var walk = walkRenderedTree(document.documentElement);
    var lineages = new realm.Map();
    var styles = options.styleTable ? new StyleTable() : null;
    var blocks = list();
    for (var i = 0; i < walk.records.length; i++) {
      try {
        var block = describeBlock(walk.records[i], walk.styleOf, lineages, styles);
        if (!block) continue;
        blocks.push(block);
        if (options.elements) options.elements.push(walk.records[i].element);
      } catch (error) {
        // One odd element must not cost the page: skip it.
      }
    }
    var page = readMetadata(options);
    page.blocks = blocks;
    if (styles) page.styles = styles.rows;
    return page;
  }

  function sitewiseCollectJSON(options) {
    return stringify(sitewiseCollect(options));
  }

  // -- 1. walk -------------------------------------------------------------------------------------

  // Visits the flat tree depth-first with an explicit stack (deep DOMs must not overflow the call
  // stack). Each element gets a context: the block record its inline text goes to, whether it is
  // inside a link, the carried attributes, and whether its own text is visible. Throws PageRefused as
  // soon as a block past MAX_BLOCKS has text: nothing after it is walked.
  function walkRenderedTree(root) {
    var styles = new realm.Map();
    function styleOf(element) {
      var style = styles.get(element);
      if (!style) {
        style = computedStyle(element);
        styles.set(element, style);
      }
      return style;
    }
    var pageWidth = realm.Math.max(document.documentElement.scrollWidth, window.innerWidth);
    var records = list();
    var rootContext = {
      block: null, inLink: false, attrs: NO_ATTRS, textVisible: true, scripting: isScriptingEnabled()
    };
    var stack = list(root, rootContext);
    while (stack.length) {
      var context = stack.pop();
      var node = stack.pop();
      try {
        if (node.nodeType === 3) {
          addText(node, context, records);
        } else if (node.nodeType === 1) {
          var inner = enterElement(node, context, styleOf, pageWidth);
          if (inner) pushChildren(node, inner, stack);
        }
      } catch (error) {
        // Skip this node (and its subtree); the rest of the page is still collected.
      }
      if (records.length > MAX_BLOCKS) throw tooManyBlocks();
    }
    return {records: records, styleOf: styleOf};
  }

  function tooManyBlocks() {
    var max = thousands(MAX_BLOCKS);
    var error = new realm.Error("the page has more than " + max + " text blocks; sitewise accepts at most " + max);
    error.name = PAGE_REFUSED;
    return error;
  }

  function addText(node, context, records) {
    var record = context.block;
    if (!record || !context.textVisible) return;
    var data = node.data;
    var hasText = NON_SPACE.test(data);
    if (!record.listed) {
      if (!hasText) return;  // leading white space of a block shows nothing
      record.listed = true;
      records.push(record);
    }
    if (record.pendingSpace) {
      record.parts.push(" ");
      record.pendingSpace = false;
    }
    record.parts.push(data);
    if (context.inLink && hasText) record.linkChars += collapse(data).length;
  }

  // The context for an element's children, or null when the element and its content are not shown.
  function enterElement(element, context, styleOf, pageWidth) {
    var tag = element.localName;
    if (UNRENDERED_TAGS[tag] === 1 || (tag === "noscript" && context.scripting)) return null;
    if (tag === "br") {
      if (context.block) context.block.pendingSpace = true;
      return null;
    }
    var style = styleOf(element);
    var display = cssValue(style, "display");
    if (display === "none") return null;
    var isBlock = displayKind(tag, display) === BLOCK;
    if (isBlock && isHiddenContent(style)) return null;
    if (isHiddenBox(element, tag, style, pageWidth)) return null;

    var attrs = carriedAttributes(element, context.attrs);
    var block = context.block;
    if (isBlock) {
      if (block) block.pendingSpace = true;  // the parent's text resumes after this block: keep words apart
      block = {element: element, parts: list(), linkChars: 0, attrs: attrs, listed: false, pendingSpace: false};
    }
    var inLink = context.inLink || (tag === "a" && hasAttribute(element, "href"));
    var textVisible = cssValue(style, "visibility") === "visible" && cssValue(style, "font-size") !== "0px";
    if (block === context.block && inLink === context.inLink && attrs === context.attrs &&
        textVisible === context.textVisible) {
      return context;
    }
    return {block: block, inLink: inLink, attrs: attrs, textVisible: textVisible, scripting: context.scripting};
  }

  // <noscript> shows its content only when the page's scripts are off (Playwright can collect with
  // them off). The parser knows: with scripting on, noscript content is raw text. Asked of a detached
  // element, so the page is untouched.
  function isScriptingEnabled() {
    try {
      var probe = builtins.createElement(document, "noscript");
      probe.innerHTML = "<b></b>";
      return probe.firstChild === null || probe.firstChild.nodeType === 3;
    } catch (error) {
      return true;  // Trusted Types refuse innerHTML strings: a page that enforces them runs scripts
    }
  }

  function displayKind(tag, display) {
    if (display === "contents") return TRANSPARENT;
    if (display === "inline" || stringIndexOf(display, "ruby") === 0) return INLINE;
    // MathML: a formula is one piece of text (its mi/mo/mn compute to "block math" for the math
    // layout inside it); only <math display="block"> is a block of its own.
    if (stringIndexOf(display, "math") !== -1) return tag === "math" && display === "block math" ? BLOCK : INLINE;
    if (stringIndexOf(display, "inline") === 0) return PHRASING_TAGS[tag] === 1 ? INLINE : BLOCK;
    return BLOCK;
  }

  // Properties that only act on block containers (so inline elements need not be asked): contents
  // skipped by content-visibility, and text pushed out of sight by text-indent.
  function isHiddenContent(style) {
    return cssValue(style, "content-visibility") === "hidden" ||
           parseNumber(cssValue(style, "text-indent")) <= -OFFSCREEN_TEXT_INDENT_PX;
  }

  function isHiddenBox(element, tag, style, pageWidth) {
    if (tag === "html" || tag === "body") return false;  // their overflow belongs to the viewport
    var clips = cssValue(style, "overflow-x") !== "visible" || cssValue(style, "overflow-y") !== "visible";
    var position = cssValue(style, "position");
    var positioned = position === "absolute" || position === "fixed";
    if (positioned && (isClippedByClip(cssValue(style, "clip")) || isClippedByClipPath(cssValue(style, "clip-path")))) {
      return true;
    }
    var transformed = cssValue(style, "transform") !== "none";
    if (!clips && !positioned && !transformed) return false;
    var rect = boxOf(element);
    if (clips && (rect.width <= CLIPPED_AWAY_PX || rect.height <= CLIPPED_AWAY_PX)) return true;
    if (positioned || transformed) {
      // A fixed box lives in the viewport, anything else on the page (wherever the reader scrolled).
      var fixed = position === "fixed";
      var left = rect.left + (fixed ? 0 : window.scrollX), top = rect.top + (fixed ? 0 : window.scrollY);
      if ((left < 0 && left + rect.width <= 0) || (top < 0 && top + rect.height <= 0)) return true;
      if (left >= (fixed ? window.innerWidth : pageWidth)) return true;
    }
    return false;
  }

  // clip: rect(top, right, bottom, left) leaving at most a pixel ("auto" edges never clip).
  function isClippedByClip(clip) {
    if (!clip || stringIndexOf(clip, "rect(") !== 0) return false;
    var edges = stringSplit(stringSlice(clip, 5), CLIP_SEPARATOR).filter(realm.Boolean).map(parseNumber);
    if (edges.length < 4 || edges.some(realm.isNaN)) return false;
    return edges[1] - edges[3] <= CLIPPED_AWAY_PX || edges[2] - edges[0] <= CLIPPED_AWAY_PX;
  }

  // clip-path: inset(50%) or more cuts the box away entirely.
  function isClippedByClipPath(clipPath) {
    var match = CLIP_PATH_INSET.exec(clipPath || "");
    return !!match && parseNumber(match[1]) >= 50;
  }

  function carriedAttributes(element, inherited) {
    var own = null;
    for (var i = 0; i < CARRIED_ATTRIBUTES.length; i++) {
      var value = attribute(element, CARRIED_ATTRIBUTES[i]);
      if (value !== null && value !== "") {
        if (!own) own = realm.Object.assign({}, inherited);
        own[CARRIED_ATTRIBUTES[i]] = value;
      }
    }
    return own || inherited;
  }

  // Children in rendering order: an open shadow root replaces the light children, a slot shows what is
  // assigned to it (or its fallback content), a closed <details> shows only its summary.
  function pushChildren(element, context, stack) {
    var children;
    if (element.shadowRoot) {
      children = element.shadowRoot.childNodes;
    } else if (element.localName === "slot" && typeof element.assignedNodes === "function" &&
               element.assignedNodes().length) {
      children = element.assignedNodes();
    } else if (element.localName === "details" && !element.open) {
      children = arrayFilter(element.children, function (child) {
        return child.localName === "summary";
      }).slice(0, 1);
    } else {
      children = element.childNodes;
    }
    for (var i = children.length - 1; i >= 0; i--) stack.push(children[i], context);
  }

  // -- 2. describe ---------------------------------------------------------------------------------

  // options.styleTable (sitewise.collect and the bookmarklet ask for it): each distinct style once, in
  // page.styles, as its values in STYLE_PROPERTIES order, and block.style its index there. Blocks mostly
  // share a handful of styles, so a block's JSON shrinks from ~930 to ~270 bytes, and with it the time to
  // stringify, send and parse it (the server expands it: sitewise.page.expand_style_table).
  function StyleTable() {
    this.rows = list();
    this.indexOfKey = new realm.Map();
  }

  StyleTable.prototype.indexOf = function (values) {
    var key = values.join("\n");
    var index = this.indexOfKey.get(key);
    if (index === undefined) {
      index = this.rows.length;
      this.rows.push(values);
      this.indexOfKey.set(key, index);
    }
    return index;
  };

  function describeBlock(record, styleOf, lineages, styles) {
    var text = collapse(record.parts.join(""));
    if (!text) return null;
    var element = record.element;
    var lineage = lineageOf(element, lineages);
    var rect = boxOf(element);
    var block = {
      text: text,
      tag: element.localName,
      path: lineage.path,
      selector: lineage.selector,
      box: {
        left: round1(rect.left + window.scrollX),
        top: round1(rect.top + window.scrollY),
        width: round1(rect.width),
        height: round1(rect.height)
      },
      style: styles ? styles.indexOf(styleValues(styleOf(element))) : normalisedStyle(styleOf(element)),
      link_chars: realm.Math.min(record.linkChars, text.length)
    };
    if (record.attrs !== NO_ATTRS) block.attrs = record.attrs;
    return block;
  }

  // Tag path from html and selector path from body, memoised per element (blocks share ancestors).
  // A shadow root's host stands in for its parent, so blocks in shadow trees still have a full path.
  function lineageOf(element, lineages) {
    var chain = list();
    var node = element;
    var known = null;
    while (node) {
      known = lineages.get(node);
      if (known) break;
      chain.push(node);
      node = parentOf(node);
    }
    for (var i = chain.length - 1; i >= 0; i--) {
      var current = chain[i];
      var tag = current.localName;
      var step = selectorStep(current);
      var lineage;
      if (known) {
        lineage = {
          path: known.path.concat(list(tag)),
          selector: known.selector ? known.selector + " > " + step : (tag === "body" ? step : "")
        };
      } else {
        lineage = {path: list(tag), selector: tag === "body" ? step : ""};
      }
      lineages.set(current, lineage);
      known = lineage;
    }
    if (!known.selector) {
      // Outside body (html itself, or a document without body): the path from the root.
      return {path: known.path, selector: known.path.map(cssEscape).join(" > ")};
    }
    return known;
  }

  function parentOf(node) {
    if (node.parentElement) return node.parentElement;
    var parent = node.parentNode;
    return parent && parent.host ? parent.host : null;
  }

  function selectorStep(element) {
    if (element.localName === "body") return "body";
    var step = cssEscape(element.localName);
    var id = attribute(element, "id");
    if (id) step += "#" + cssEscape(id);
    var classes = stringSplit(attribute(element, "class") || "", CLASS_SEPARATOR);
    for (var i = 0; i < classes.length; i++) {
      if (classes[i]) step += "." + cssEscape(classes[i]);
    }
    return step;
  }

  function cssEscape(identifier) {
    return realm.CSS.escape(identifier);
  }

  function normalisedStyle(style) {
    var values = styleValues(style);
    var named = {};
    for (var i = 0; i < STYLE_PROPERTIES.length; i++) named[STYLE_PROPERTIES[i]] = values[i];
    return named;
  }

  // The normalised values of STYLE_PROPERTIES, in that order.
  function styleValues(style) {
    var values = new realm.Array(STYLE_PROPERTIES.length);
    for (var i = 0; i < STYLE_PROPERTIES.length; i++) {
      values[i] = normalisedValue(STYLE_PROPERTIES[i], cssValue(style, STYLE_PROPERTIES[i]));
    }
    return values;
  }

  function normalisedValue(name, value) {
    value = stringTrim(value || "");
    if (LENGTH_PROPERTIES[name] === 1 && PIXEL_LENGTH.test(value)) {
      return round(parseNumber(value)) + "px";
    }
    if (name === "font-family") {
      return stringToLowerCase(stringReplace(stringTrim(stringSplit(value, ",")[0]), QUOTES_AROUND, ""));
    }
    if (name === "font-weight") {
      if (value === "normal") return "400";
      if (value === "bold") return "700";
      var weight = parseNumber(value);
      return realm.isNaN(weight) ? value : "" + round(weight);
    }
    return value;
  }

  // -- 3. metadata ---------------------------------------------------------------------------------

  function readMetadata(options) {
    var page = {
      format: FORMAT_VERSION,
      url: location.href,
      canonical_url: canonicalUrl(),
      titles: nonEmpty(list(
        documentTitle(),
        metaContent('meta[property="og:title" i], meta[name="og:title" i]'),
        metaContent('meta[name="twitter:title" i], meta[property="twitter:title" i]')
      )),
      descriptions: nonEmpty(list(
        metaContent('meta[name="description" i]'),
        metaContent('meta[property="og:description" i], meta[name="og:description" i]'),
        metaContent('meta[name="twitter:description" i], meta[property="twitter:description" i]')
      )),
      lang: stringTrim(attribute(document.documentElement, "lang") || "") ||
            metaContent('meta[http-equiv="content-language" i]') || null,
      viewport: {width: window.innerWidth, height: window.innerHeight},
      collected_at: new realm.Date().toISOString(),
      collector: options.collector || "bookmarklet"
    };
    if (options.includeHtml) {
      var html = pageHtml();
      if (html.length <= MAX_HTML_CHARS) page.html = html;
    }
    return page;
  }

  // -- the page's HTML -----------------------------------------------------------------------------

  // The page as HTML: its outerHTML, or, when it has open shadow roots, that of a copy holding them.
  function pageHtml() {
    var root = document.documentElement;
    var shadowRoots = openShadowRoots(root);
    return (shadowRoots.length ? copyWithShadowRoots(root, shadowRoots) : root).outerHTML;
  }

  // A deep copy of the document element with its open shadow roots (bookmarklet/sitewise.js sends the
  // server one, cleaned).
  function documentCopy() {
    var root = document.documentElement;
    return copyWithShadowRoots(root, openShadowRoots(root));
  }

  // The open shadow roots under root, each before those in its own tree; the reader's sitewise panel's
  // aside.
  function openShadowRoots(root) {
    var scopes = list(root);
    for (var i = 0; i < scopes.length; i++) {
      var elements = queryAll(scopes[i], "*");
      for (var j = 0; j < elements.length; j++) {
        var shadowRoot = elements[j].shadowRoot;
        if (shadowRoot && elements[j].localName !== PANEL_TAG) scopes.push(shadowRoot);
      }
    }
    return scopes.slice(1);
  }

  // root.cloneNode(true) (which copies no shadow roots) with each of shadowRoots written into its host's
  // copy as a <template shadowrootmode="open"> holding a copy of its children. The hosts' copies are all
  // found before any template goes in, as a template moves the places of its host's children.
  function copyWithShadowRoots(root, shadowRoots) {
    var copies = new realm.Map();  // the root and each shadow root -> its copy
    copies.set(root, root.cloneNode(true));
    var placed = list();  // host copy, template, host copy, template, ...
    for (var i = 0; i < shadowRoots.length; i++) {
      var shadowRoot = shadowRoots[i];
      var template = createElement(document, "template");
      setAttribute(template, "shadowrootmode", "open");
      var children = shadowRoot.childNodes;
      for (var j = 0; j < children.length; j++) template.content.appendChild(children[j].cloneNode(true));
      copies.set(shadowRoot, template.content);
      placed.push(copyOf(shadowRoot.host, copies), template);
    }
    for (var k = 0; k < placed.length; k += 2) placed[k].insertBefore(placed[k + 1], placed[k].firstChild);
    return copies.get(root);
  }

  // The copy of a node, by its places among its parents' children up to the nearest node copied.
  function copyOf(node, copies) {
    var places = list();
    while (!copies.has(node)) {
      places.push(arrayIndexOf(node.parentNode.childNodes, node));
      node = node.parentNode;
    }
    var copy = copies.get(node);
    for (var i = places.length - 1; i >= 0; i--) copy = copy.childNodes[places[i]];
    return copy;
  }

  // A page's named elements shadow the document's own properties (Document is [LegacyOverrideBuiltIns]:
  // an old page's <img name="title"> makes document.title that image), so the title is read through
  // Document's own getter.
  function documentTitle() {
    var property = realm.Object.getOwnPropertyDescriptor(realm.Document.prototype, "title");
    var title = property && property.get ? property.get.call(document) : document.title;
    return typeof title === "string" ? title : "";
  }

  function canonicalUrl() {
    var link = queryAll(document, 'link[rel~="canonical" i][href]')[0];
    var href = link ? stringTrim(attribute(link, "href")) : "";
    if (!href) href = metaContent('meta[property="og:url" i], meta[name="og:url" i]');
    if (!href) return null;
    try {
      return new realm.URL(href, document.baseURI).href;
    } catch (error) {
      return null;  // not a URL: better none than a wrong key
    }
  }

  function metaContent(selector) {
    var elements = queryAll(document, selector);
    for (var i = 0; i < elements.length; i++) {
      var content = collapse(attribute(elements[i], "content") || "");
      if (content) return content;
    }
    return "";
  }

  function nonEmpty(values) {
    return values.map(function (value) { return collapse(value || ""); }).filter(realm.Boolean);
  }

  // -- pristine built-ins --------------------------------------------------------------------------

  // What the collector and the reader script call, taken from a fresh realm (see the header).
  function pristineBuiltins() {
    var realm = freshRealm() || realmOf(window);
    var call = realm.Function.prototype.call;
    function uncurry(method) {
      return call.bind(method);  // uncurry(trim)(text) is trim.call(text), with no lookup on the page's prototypes
    }
    return {
      realm: realm,
      // An array of the arguments, made in the fresh realm (Array.of, as new Array(3) means length 3).
      list: function () { return realm.Array.of.apply(realm.Array, arguments); },
      regExp: function (literal) { return new realm.RegExp(literal); },
      stringify: function (value) { return realm.JSON.stringify(pristineCopy(realm, value)); },
      parse: realm.JSON.parse,
      stringTrim: uncurry(realm.String.prototype.trim),
      stringReplace: uncurry(realm.String.prototype.replace),
      stringSplit: uncurry(realm.String.prototype.split),
      stringIndexOf: uncurry(realm.String.prototype.indexOf),
      stringSlice: uncurry(realm.String.prototype.slice),
      stringToLowerCase: uncurry(realm.String.prototype.toLowerCase),
      stringMatch: uncurry(realm.String.prototype.match),
      arrayFilter: uncurry(realm.Array.prototype.filter),
      arrayIndexOf: uncurry(realm.Array.prototype.indexOf),
      attribute: uncurry(realm.Element.prototype.getAttribute),
      hasAttribute: uncurry(realm.Element.prototype.hasAttribute),
      setAttribute: uncurry(realm.Element.prototype.setAttribute),
      boxOf: uncurry(realm.Element.prototype.getBoundingClientRect),
      closest: uncurry(realm.Element.prototype.closest),
      createElement: uncurry(realm.Document.prototype.createElement),
      computedStyle: function (element) { return realm.getComputedStyle.call(window, element); },
      cssValue: uncurry(realm.CSSStyleDeclaration.prototype.getPropertyValue),
      // querySelectorAll of a document, a document fragment (a shadow root, a template's content) or an
      // element (the three interfaces have a copy each).
      queryAll: function (root, selector) {
        var owner = root.nodeType === 9 ? realm.Document : root.nodeType === 11 ? realm.DocumentFragment : realm.Element;
        return owner.prototype.querySelectorAll.call(root, selector);
      }
    };
  }

  // The window of an empty iframe, read while it is attached, or null when it cannot be had or read.
  function freshRealm() {
    var parent = document.documentElement;
    try {
      var frame = document.createElementNS("http://www.w3.org/1999/xhtml", "iframe");
      parent.appendChild(frame);
      try {
        var frameWindow = frame.contentWindow;
        return frameWindow && frameWindow !== window ? realmOf(frameWindow) : null;
      } finally {
        parent.removeChild(frame);
      }
    } catch (error) {
      return null;  // a sandboxed page's frame is cross-origin to it, or the page refused the frame
    }
  }

  function realmOf(global) {
    return {
      Array: global.Array, Map: global.Map, Set: global.Set, Object: global.Object, JSON: global.JSON,
      Math: global.Math, RegExp: global.RegExp, String: global.String, Function: global.Function,
      Boolean: global.Boolean, Date: global.Date, Error: global.Error, URL: global.URL, parseFloat: global.parseFloat,
      isNaN: global.isNaN, CSS: global.CSS, getComputedStyle: global.getComputedStyle,
      Document: global.Document, DocumentFragment: global.DocumentFragment, Element: global.Element,
      CSSStyleDeclaration: global.CSSStyleDeclaration
    };
  }

  // JSON.stringify calls toJSON on the objects it writes, inherited ones too: the data is copied into
  // the fresh realm first, whose arrays and objects inherit nothing the page added.
  function pristineCopy(realm, value) {
    if (value === null || typeof value !== "object") return value;
    var copy, i;
    if (realm.Array.isArray(value)) {
      copy = new realm.Array(value.length);
      for (i = 0; i < value.length; i++) copy[i] = pristineCopy(realm, value[i]);
      return copy;
    }
    copy = new realm.Object();
    var keys = realm.Object.keys(value);
    for (i = 0; i < keys.length; i++) copy[keys[i]] = pristineCopy(realm, value[keys[i]]);
    return copy;
  }

  // -- helpers -------------------------------------------------------------------------------------

  function collapse(text) {
    return stringTrim(stringReplace(text, SPACE_RUNS, " "));
  }

  function round1(value) {
    return round(value * 10) / 10;
  }

  // 20000 -> "20,000".
  function thousands(count) {
    return stringReplace("" + count, THOUSANDS, ",");
  }

  window.sitewiseCollect = sitewiseCollect;
  window.sitewiseCollectJSON = sitewiseCollectJSON;
  window.sitewiseBuiltins = builtins;
})();
