"""The rule systems that ship with battlesim: ``musket``, ``flattop`` and ``becmi``.

Each is a package of the same rooms (``scenario``, ``options``, ``data``,
``events``, ``state``, ``context``, rule modules, ``battle``, ``report``,
``view``, ``odds``) assembling one ``RULESET`` through :mod:`sim.contract`
alone, exactly as a plugin does; :mod:`~sim.rulesets.trusted` is their
shared speed device.
"""
