"""Text that came from a file, made safe to show: on a terminal and in XML.

A check name in a suite, a key in a properties file or a property name in a trace file is
whatever its author wrote, including control characters. Printed raw, ``ESC [31m`` recolours
the terminal (and worse sequences move the cursor or retitle the window); written raw into
JUnit XML, most control characters make the file not well-formed, and a CI then loses the whole
report. So every such string passes through one of these two functions on its way out:

* ``terminal_safe``: C0 and C1 control characters (newline and tab included: a name is one line),
  DEL, the Unicode bidirectional overrides and lone surrogates are shown as visible escapes
  (``\\x1b``, ``\\u202e``); everything else, non-ASCII letters included, is kept.
* ``xml_safe``: the characters XML 1.0 does not allow (C0 controls except tab, newline and
  carriage return; lone surrogates; U+FFFE and U+FFFF) become the same visible escapes, so the
  file stays well-formed for any input and nothing is silently dropped. ElementTree escapes
  ``<``, ``&`` and quotes itself.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, the bidi embedding/override/isolate characters, and lone
# surrogates (JSON can carry them; they cannot even be encoded for the terminal)
_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# what XML 1.0 forbids (tab, newline and carriage return are allowed)
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text) -> str:
    """``text`` (any object, as ``str``) with every character that could drive a terminal shown
    as a visible escape."""
    return _TERMINAL_UNSAFE.sub(_visible, str(text))


def xml_safe(text) -> str:
    """``text`` (any object, as ``str``) with every character XML 1.0 forbids shown as a visible
    escape."""
    return _XML_UNSAFE.sub(_visible, str(text))
