"""The learning worker: RQ jobs that learn sites (thin shells over ``sitewise.learn`` and ``sitewise.store``).

``worker.queue`` enqueues (at most one pending job per site), ``worker.jobs`` holds the job functions,
``python -m worker`` runs a worker against the configured Redis.
"""
