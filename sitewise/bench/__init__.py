"""Benchmarks, run by hand with ``sitewise bench <name>``: each module here has ``add_arguments(parser)``
and ``run(args) -> int``, prints its numbers and writes a report under ``docs/``."""
