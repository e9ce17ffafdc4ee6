"""The Python examples of python/README.md and of the repository's
README.md, run as written from the repository root: each must run, and
what a `text` block right after one shows must be what it prints."""

import contextlib
import io
import os
import re

import pytest

from conftest import ROOT

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def examples(doc):
    """(line, code, shown output or None) of each python block of `doc`."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = [
        (text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
        for m in FENCE.finditer(text)
    ]
    out = []
    for i, (line, info, body) in enumerate(blocks):
        if info != "python":
            continue
        shown = None
        if i + 1 < len(blocks):
            _, next_info, next_body = blocks[i + 1]
            if next_info == "text" and not next_body.startswith("$ "):
                shown = next_body
        out.append((line, body, shown))
    return out


CASES = [
    pytest.param(doc, line, code, shown, id=f"{doc}:{line}")
    for doc in ("python/README.md", "README.md")
    for line, code, shown in examples(doc)
]


def test_the_documents_have_examples():
    assert len([c for c in CASES if c.values[0] == "python/README.md"]) >= 3
    assert any(c.values[3] is not None for c in CASES)


@pytest.mark.parametrize("doc,line,code,shown", CASES)
def test_example_runs_as_written(doc, line, code, shown, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{doc}:{line}", "exec"), {"__name__": "__readme__"})
    if shown is not None:
        assert out.getvalue() == shown, f"{doc}:{line} prints something else"
