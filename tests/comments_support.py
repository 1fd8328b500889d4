"""A blog post with a comment thread under it, written so that its comments read like prose (the kind of
thread the block model scores as content): for the tests of ``include_comments``."""
from __future__ import annotations

STORY = [
    "The harbour reopened on Monday after a year of repairs to the old sea wall, and the first boats came in "
    "on the morning tide.",
    "Engineers replaced more than four hundred metres of stone, much of it laid in the eighteen-sixties, and "
    "raised the wall by half a metre against winter storms.",
    "Fishermen who had moved their boats to the next town along the coast said they were glad to be back, "
    "though the new berths cost more than the old ones.",
    "The council said the work came in under budget, and that the promenade above the wall will open to "
    "walkers in the spring once the railings are fitted.",
]
COMMENTS = [
    ("Margaret", "About time too. My father fished out of that harbour for forty years and it broke his heart "
                 "to see the wall falling into the sea every winter."),
    ("Tom", "I walked past on Sunday and the new stone looks very smart, but I do wonder whether half a metre "
            "will be enough with the storms we have been getting lately."),
    ("Aisha", "Glad to hear it came in under budget for once. Now if only the council could do something about "
              "the car park, which floods every time it rains."),
    ("Bill", "The berth fees are the real story here. Small boats cannot afford these prices, and the harbour "
             "will end up full of yachts from away."),
]
URL = "https://gazette.test/2024/harbour"


def blog_page() -> str:
    story = "".join(f"<p>{paragraph}</p>" for paragraph in STORY)
    thread = "".join(
        f"<li class='comment'><div class='comment-author'>{who} says:</div>"
        f"<div class='comment-body'><p>{text}</p></div></li>"
        for who, text in COMMENTS
    )
    return (
        "<html><head><title>Harbour reopens after repairs</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<article><h1>Harbour reopens after repairs</h1>{story}</article>"
        f"<div id='comments' class='comments-area'><ol class='comment-list'>{thread}</ol></div>"
        "<footer><p>© 2024 The Gazette</p></footer></body></html>"
    )
