from sitewise.text import base_language, terms, word_count


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
