"""The resolvers of the root fields, as module-level functions, by family; ``api/schema.py``
composes them into ``Query``, ``Mutation`` and ``Subscription`` in the order of their
``FIELDS`` (the order of the exported SDL).

- ``queries``: games, tables and who the caller is;
- ``tables``: the table mutations but moves;
- ``moves``: ``makeMove`` (one implementation, which ``api/direct.py`` runs too);
- ``events``: ``tableEvents`` (likewise) and ``lobbyEvents``.
"""
