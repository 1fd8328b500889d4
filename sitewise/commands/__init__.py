"""Sub-commands of the ``sitewise`` CLI, one module each (see ``sitewise.cli``)."""
