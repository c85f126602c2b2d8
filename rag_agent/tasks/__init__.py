"""Tasks added to ragjury, one file each: an item class with ``@task_entry`` (see
``docs/extending.md``). The built-in tasks declare themselves in ``rag_agent/core/items.py``;
``catalogue`` reads both from the source text, so listings and ``--help`` import none of them.
"""

__all__: list[str] = []
