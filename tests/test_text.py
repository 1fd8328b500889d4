from sitewise.text import base_language, terms


def test_english_terms_are_stemmed_without_stop_words_or_numbers():
    assert terms("The running dogs were jumping over 12 fences", "en-US") == ["run", "dog", "jump", "fenc"]


def test_other_languages_use_their_stemmer_and_cjk_becomes_bigrams():
    assert terms("Les chiens couraient", "fr") == ["chien", "cour"]
    assert terms("北京电", "zh") == ["北京", "京电"]


def test_unknown_language_falls_back_to_english():
    assert base_language(None) == "en" and base_language("x-klingon") == "en" and base_language("pt_BR") == "pt"
