"""Names players choose for what others see: an event's name may not pass for the server's own."""

from __future__ import annotations

import unicodedata

from shashki.server.errors import Invalid

# Letters of other scripts that look like Latin ones (a Cyrillic "а" in "Shаshki"), as the eye reads them.
LOOKALIKES = str.maketrans(
    "аеорсхукмнтвіјѕһАЕОРСХУКМНТВІЈЅҺαοκνρτυχΑΒΕΗΙΚΜΝΟΡΤΥΧ"
    "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ",  # Latin small capitals (NFKC keeps them)
    "aeopcxykmhtbijshAEOPCXYKMHTBIJSHaoknptuxABEHIKMNOPTYX"
    "abcdefghijklmnoprstuvwyz",
)


def refuse_the_servers_name(name: str, what: str) -> None:
    """Refuse a name a player chose for an event (a tournament, a simul) that would pass for the server's
    own, as lichess refuses "lichess" in its users' tournament names (found by an audit: a player's arena
    named like the server's scheduled ones): "shashki" read as the eye reads it, whatever the letters'
    case, spacing, punctuation or script.

    >>> def verdict(name):
    ...     try:
    ...         refuse_the_servers_name(name, "tournaments")
    ...     except Invalid:
    ...         return "refused"
    ...     return "ok"
    >>> [verdict(n) for n in ("Shashki cup", "S h a s h k i", "Sh\\u0430shki", "My ꜱʜᴀꜱʜᴋɪ cup", "Шашки")]
    ['refused', 'refused', 'refused', 'refused', 'ok']
    """
    letters = "".join(c for c in unicodedata.normalize("NFKC", name).translate(LOOKALIKES) if c.isalnum())
    if "shashki" in letters.casefold():
        raise Invalid(
            "reserved_name", f"Only the server's own {what} are named after Shashki: choose another name."
        )
