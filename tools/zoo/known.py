"""The zoo models whose prediction is known to differ from the real accelerator, by the class of
failure (issue 22's numbering) they show. The zoo test expects these to fail (strictly: a fix makes
the test say so), and the table names the class beside each."""

KNOWN_DISAGREEMENTS: dict[str, str] = {}
