"""The command line's commands, one module each (``check``, ``listing``, ``prove``, ``trace``
with ``kmc graph``, ``gate``), with the options they share (``options``) and the usage errors
they raise (``usage``). ``cli.py`` puts them on the ``kmc`` group.

This is the only place that knows click: every command parses its options, calls a library
function that returns plain data, and prints.
"""
