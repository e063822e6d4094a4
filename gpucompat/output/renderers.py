"""The renderer table: for each kind of document a command produces, the formats it can be written
in and the function that writes each, and `emit`, the one way a document reaches its destination.

Every command's `--format` choices are the formats of its kind here (gpucompat/commands/common.py
`format_option`), so `--help` lists what the command can write and any other format is a usage
error. A renderer is `render(subject, output, protect, **view)`: it writes `subject` (what the kind
documents below) to stdout, or atomically to the file `output` (never over one of `protect`);
`view` holds options only a view for people uses (fix's -v), which the JSON record ignores: it is
always whole. JSON and SARIF are streamed as they are encoded (destination.write_json).

This module imports no renderer until one is called: every command builds its options from it at
start-up, and `check` stays fast."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable


class Kind(str, enum.Enum):
    """What a command writes. The subject each kind's renderers take:
    check-report the check document (records.document), fix-result fix_view.document(...),
    verify-result VerifyResult.record(), diff diff_view.document(...), confirm the Confirmations,
    doctor machine_facts.diagnose()."""

    check_report = "check-report"
    fix_result = "fix-result"
    verify_result = "verify-result"
    diff = "diff"
    confirm = "confirm"
    doctor = "doctor"


Render = Callable[..., None]


def _json(doc, output: str | None, protect: tuple[str, ...], **_view) -> None:
    """The kind's JSON record as it is (every kind but confirm hands its record as the subject)."""
    from gpucompat.output.destination import write_json

    write_json(doc, output, protect)


def _check_terminal(doc: dict, output: str | None, protect: tuple[str, ...], group_by: str | None = None) -> None:
    """check's tables; on the terminal a model that could not be checked is left to the one
    stderr line `check` prints for it, in a file it is written with the rest; `group_by`
    "source" lists the findings per layer or module."""
    from gpucompat.output.destination import write_rich
    from gpucompat.output.terminal import render_document

    write_rich(lambda console: render_document(console, doc, skip_errors=not output, group_by=group_by),
               output, protect)


def _check_sarif(doc: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """SARIF 2.1.0: every finding a result at the model file and its ops."""
    from gpucompat.output.destination import write_json
    from gpucompat.output.sarif import sarif

    write_json(sarif(doc), output, protect)


def _check_github(doc: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """GitHub Actions annotations, one per finding not in the baseline."""
    from gpucompat.output.destination import write_text
    from gpucompat.output.github import annotations

    write_text(annotations(doc), output, protect)


def _check_model_explorer(doc: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """Model Explorer node data: three overlays of the one checked model."""
    from gpucompat.output.model_explorer import write_node_data

    write_node_data(doc, output, protect)


def _check_html(doc: dict, output: str | None, protect: tuple[str, ...], after: dict | None = None) -> None:
    """The self-contained HTML report; `after` (a second check document, the fixed model) is
    drawn beside it."""
    from gpucompat.output.destination import write_text
    from gpucompat.output.html import render

    write_text(render(doc, after), output, protect)


def _fix_terminal(doc: dict, output: str | None, protect: tuple[str, ...], verbose: bool = False) -> None:
    """What fix changed, how it was proved and what it wrote; -v lists every candidate left alone."""
    from gpucompat.output import fix_view
    from gpucompat.output.destination import write_rich

    write_rich(lambda console: fix_view.render(console, doc, verbose=verbose), output, protect)


def _verify_terminal(doc: dict, output: str | None, protect: tuple[str, ...], ops_gpu: int = 0,
                     ops_total: int = 0, ops: list[tuple[int, int]] | None = None) -> None:
    """inference_diff's log: latencies, per-output errors, the verdict; one after the other for a
    run over several signatures (`ops`: each one's GPU and total op counts)."""
    from gpucompat.output.destination import write_rich
    from gpucompat.output.verify_view import render, render_signatures

    if "signatures" in doc:
        write_rich(lambda console: render_signatures(console, doc, ops or []), output, protect)
    else:
        write_rich(lambda console: render(console, doc, ops_gpu, ops_total), output, protect)


def _diff_terminal(doc: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """One line per measure that moved and per new finding."""
    from gpucompat.output.destination import write_text
    from gpucompat.output.diff_view import terminal

    write_text(terminal(doc), output, protect)


def _confirm_json(results: list, output: str | None, protect: tuple[str, ...]) -> None:
    """The runtime and one record per confirmed model."""
    from gpucompat.output.confirm_view import document
    from gpucompat.output.destination import write_json

    write_json(document(results), output, protect)


def _confirm_terminal(results: list, output: str | None, protect: tuple[str, ...]) -> None:
    """Both sides per model as a table, disagreements marked."""
    from gpucompat.output.confirm_view import terminal
    from gpucompat.output.destination import write_text

    write_text(terminal(results), output, protect)


def _doctor_terminal(report: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """Versions, OpenCL devices, program cache and Vulkan drivers, a line each."""
    from gpucompat.output.destination import write_text
    from gpucompat.output.doctor_view import terminal

    write_text(terminal(report), output, protect)


TERMINAL = "terminal"  # every kind's default: the view for people

RENDERERS: dict[Kind, dict[str, Render]] = {
    Kind.check_report: {TERMINAL: _check_terminal, "json": _json, "sarif": _check_sarif, "github": _check_github,
                        "model-explorer": _check_model_explorer, "html": _check_html},
    Kind.fix_result: {TERMINAL: _fix_terminal, "json": _json},
    Kind.verify_result: {TERMINAL: _verify_terminal, "json": _json},
    Kind.diff: {TERMINAL: _diff_terminal, "json": _json},
    Kind.confirm: {TERMINAL: _confirm_terminal, "json": _confirm_json},
    Kind.doctor: {TERMINAL: _doctor_terminal, "json": _json},
}


def formats(kind: Kind) -> tuple[str, ...]:
    """The formats `kind` can be written in, the default (terminal) first."""
    return tuple(RENDERERS[kind])


def emit(kind: Kind, output_format: str, subject, output: str | None = None, protect: tuple[str, ...] = (),
         **view) -> None:
    """Write `subject` as `output_format` to stdout, or atomically to `output`. A format the kind
    has no renderer for is a KeyError: the commands' --format option never lets one through."""
    RENDERERS[kind][output_format](subject, output, protect, **view)


def say_written(output: str | None, output_format: str) -> None:
    """Say on stderr which file a command wrote (a file written silently leaves the user to
    guess); nothing for stdout. Commands say it when they succeed: a failing one's stderr is its
    one-line error."""
    if output:
        from gpucompat.text import printable

        sys.stderr.write(printable(f"gpucompat: wrote {output} ({output_format})") + "\n")
