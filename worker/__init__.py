"""The learning worker: RQ jobs that learn sites (thin shells over ``sitewise.learn`` and ``sitewise.store``).

``sitewise.worker.queue`` enqueues (at most one pending job per site), ``sitewise.worker.jobs`` holds the job functions,
``python -m sitewise.worker`` runs a worker against the configured Redis.
"""
