from sitewise.text import base_language, stop_words, terms, word_count, words


def test_english_terms_are_stemmed_without_stop_words_or_numbers():
    assert terms("The running dogs were jumping over 12 fences", "en-US") == ["run", "dog", "jump", "fenc"]


def test_other_languages_use_their_stemmer_and_cjk_becomes_bigrams():
    assert terms("Les chiens couraient", "fr") == ["chien", "cour"]
    assert terms("北京电", "zh") == ["北京", "京电"]


def test_unknown_language_falls_back_to_english():
    assert base_language(None) == "en" and base_language("x-klingon") == "en" and base_language("pt_BR") == "pt"


def test_word_count_counts_chinese_and_japanese_characters_as_words_and_symbols_not():
    assert word_count("The harbor workers' strike — over.\nFiled at 5:30 p.m.") == 9
    assert word_count("港口罢工结束。港のストライキが終了") == 16
    assert word_count("iPhone手机 15 Pro") == 5
    assert word_count("") == 0


def test_every_answers_words_are_counted_alike():
    from sitewise.pipeline import Article

    assert Article(method="mss", text="港口罢工结束\nThe strike ends.").to_json()["words"] == 9


def test_old_and_variant_language_codes_find_their_stop_words():
    # pages still declare Hebrew as "iw", Indonesian as "in", Norwegian as "nb"
    assert base_language("iw") == "he" and stop_words("iw") == stop_words("he") != frozenset()
    assert base_language("in-ID") == "id" and base_language("nb_NO") == "no" and base_language("fil") == "tl"
    assert base_language("zh-Hant-TW") == "zh" and base_language("EN") == "en"


def test_terms_keep_combining_marks_and_joiners_inside_words():
    # Devanagari vowel signs and viramas, Persian's ZWNJ and a decomposed accent are inside their words
    assert terms("पुस्तकालय फिर से खुला", "hi") == ["पुस्तकालय", "खुला"]
    assert terms("کتاب\u200cها", "fa") == ["کتاب\u200cها"]
    assert len(terms("re\u0301sume\u0301", "en")) == 1


def test_words_make_each_character_of_unspaced_scripts_a_word():
    assert words("咖啡指南｜博客 iPhone手机 हिन्दी") == ["咖", "啡", "指", "南", "博", "客", "iphone", "手", "机", "हिन्दी"]


def test_ascii_text_is_split_as_the_reader_splits_it_without_the_regex_module(monkeypatch):
    from sitewise import text as text_module

    every_ascii = "".join(map(chr, range(128))) + " x_1 don't e-mail 3.14 A9b"
    assert text_module._reader_words(every_ascii) == text_module._READER_WORD.findall(every_ascii)

    class Unused:
        def findall(self, text):
            raise AssertionError(f"the regex module's pattern split ASCII text {text!r}")

    reader_word = text_module._READER_WORD
    monkeypatch.setattr(text_module, "_READER_WORD", Unused())
    assert terms("The running dogs", "en") == ["run", "dog"]
    monkeypatch.setattr(text_module, "_READER_WORD", reader_word)
    assert terms("The running dogs é", "en") == ["run", "dog", "é"]
