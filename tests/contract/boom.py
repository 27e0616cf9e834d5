"""A plugin module that fails at import, as a broken installed plugin does.

Installed as the entry point ``boom`` by tests/contract/test_broken_plugin.py only.
"""

raise RuntimeError("plugin exploded at import")
