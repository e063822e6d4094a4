"""The zoo models whose prediction is known to differ from the real accelerator, each with the
class of failure (issue 22's numbering, or a new one) it shows. The zoo test expects these to fail
(strictly: a fix makes the test say so), and the table names the class beside each.

Empty since 2026-11-26: all 210 zoo models agree (docs/zoo.md; judged again at 16:15 UTC after the
int8-weight FULLY_CONNECTED 16-row rule and the FULLY_CONNECTED, DIV and STRIDED_SLICE keys: every
prediction the same as at 12:08). The last ones closed were a
zero-element shape constant (class 1), a placeholder stored shape (class 3), a causal mask's
SELECT_V2 (class 8), TOPK_V2 on a dynamic batch, an int8-weight FULLY_CONNECTED that flattens a
rank-3 input, and blockwise INT4 weights (the accelerator crashes): each is modelled in the
litert-mldrift profile now."""

KNOWN_DISAGREEMENTS: dict[str, str] = {}
