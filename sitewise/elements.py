"""HTML elements as page text sees them: the fallback's tokenizer and the rules' HTML path skip the same
unrendered elements (the collector, bookmarklet/collect.js, keeps the same list in JavaScript), but for a
formula's annotations, which the tokenizer reads until its model is retrained (:mod:`sitewise.mss.tokenize`)."""
from __future__ import annotations

import re

#: A MathML formula's annotations: its TeX or other source, which a browser does not show (Wikipedia
#: writes every formula's TeX beside it).
MATHML_ANNOTATIONS = frozenset({"annotation", "annotation-xml"})
#: Elements a browser never renders as text: scripts and styles, inert templates, drawings, the contents
#: of an ``<iframe>`` (raw text to an HTML5 parser: old pages put their ad scripts there), the "your
#: browser does not support…" fallback of ``<audio>``/``<video>``/``<canvas>``, form controls' options and
#: values, and the fallbacks for browsers without frames or plug-ins (``<noframes>``, ``<noembed>``: raw
#: text to an HTML5 parser, so their markup would read as words; every browser shows the frames and
#: embeds instead), and a MathML formula's annotations.
UNRENDERED = frozenset({
    "script", "style", "template", "svg", "iframe", "audio", "video", "canvas", "select", "datalist", "textarea",
    "noframes", "noembed",
}) | MATHML_ANNOTATIONS
#: A class or id that names a comment thread or one of its parts (``comments``, ``comment-author``,
#: Disqus's ``disqus_thread``): what the fallback's clean-up and the metadata's bylines leave out.
COMMENT_NAME = re.compile(r"comment|disqus", re.IGNORECASE)
#: The attribute that makes a ``<template>`` a declarative shadow root, as serialisers write it (``getHTML``
#: included: lower case). The collector writes a page's open shadow roots so; the fallback and the rules'
#: HTML path read the content of the host's first such template in the host, not as an inert template.
SHADOW_ROOT_ATTRIBUTE = "shadowrootmode"
#: Its values that attach a shadow root; with any other the template stays an inert one.
SHADOW_ROOT_MODES = frozenset({"open", "closed"})
