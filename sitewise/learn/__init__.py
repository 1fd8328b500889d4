"""Learning per-site rules: block features, DBSCAN clusters, tf-idf scoring, selection, CSS rules.

Importing this package is cheap; the heavy parts (numpy, scikit-learn) load with the modules that use
them. The public entry points are :class:`sitewise.learn.learner.SiteLearner` (learn) and
:func:`sitewise.learn.rules.apply_rules` (apply a rule set to HTML or to a collected page).
"""
