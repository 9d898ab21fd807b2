"""Prose versus code: what the Language gate gets to read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.gates.text import CodeBlock, comments, split_diff, split_markdown, unclosed_fence


def _prose(split) -> str:
    return " ".join(line for line in split.prose if line.strip())


def test_fenced_code_is_not_prose_and_keeps_its_tag():
    text = "Intro line.\n\n```python\nx = 1  # set x\n```\n\nOutro line.\n"
    split = split_markdown(text)
    assert _prose(split) == "Intro line. Outro line."
    assert split.code == (CodeBlock("x = 1  # set x\n", "python"),)


def test_indented_code_block_is_code_without_a_tag():
    split = split_markdown("Run this:\n\n    make all\n\nThen wait.\n")
    assert [block.tag for block in split.code] == [""]
    assert "make" not in _prose(split)


def test_fences_inside_lists_and_quotes_are_found():
    text = "1. First\n   ```js\n   // count\n   ```\n2. Second\n\n> ```sh\n> # quoted\n> ```\n"
    split = split_markdown(text)
    assert [block.tag for block in split.code] == ["js", "sh"]


def test_output_and_text_blocks_are_neither_prose_nor_comments():
    for tag in ("text", "output", "console"):
        split = split_markdown(f"Result:\n\n```{tag}\n# not a comment, just output\n```\n")
        assert split.code == ()
        assert "output" not in _prose(split)


def test_markdown_fence_is_read_as_prose():
    split = split_markdown("Draft:\n\n```markdown\n# Titre\n\nBonjour à tous.\n```\n")
    assert "Bonjour à tous." in _prose(split)


def test_inline_code_links_and_urls_are_not_prose():
    split = split_markdown(
        "Call `load_config()` as in [the docs](https://example.com/x) or https://a.b/c <br>"
    )
    assert _prose(split).split() == ["Call", "as", "in", "[the", "docs", "or"]


def test_open_fence_without_truncation_ends_at_its_first_blank_line():
    text = "Code:\n\n```python\nx = 1\n\nAfter the code comes an explanation.\n"
    split = split_markdown(text, truncated=False)
    assert split.code == (CodeBlock("x = 1\n", "python"),)
    assert "After the code comes an explanation." in _prose(split)


def test_open_fence_in_a_truncated_answer_runs_to_the_end():
    text = "Code:\n\n```python\nx = 1\n\ny = 2\n"
    split = split_markdown(text, truncated=True)
    assert split.code[0].code.startswith("x = 1\n\ny = 2")
    assert _prose(split) == "Code:"


def test_prose_without_any_code_marker_skips_markdown_parsing():
    split = split_markdown("Line one.\r\nLine two.")
    assert split.prose == ("Line one.", "Line two.") and split.code == ()


def test_pygments_finds_comments_and_docstrings_but_not_code_or_strings():
    code = (
        '#!/usr/bin/env python\n"""Module docstring."""\n'
        'import os  # why os\nprint("# not a comment")\n'
    )
    assert [line.strip() for line in comments(CodeBlock(code, "python"))] == [
        "Module docstring.",
        "why os",
    ]


def test_preprocessor_lines_are_code_not_comments():
    code = "#include <stdio.h>\n/* Entry point */\nint main(void) { return 0; } // done\n"
    found = [line.strip() for line in comments(CodeBlock(code, "c"))]
    assert found == ["Entry point", "done"]


def test_untagged_code_takes_only_plain_whole_line_comments():
    code = (
        "# Compute it\nx = '#fff'  # trailing is ignored\n"
        "// also this\n#include <x>\n/* and this */\n"
    )
    assert [line.strip() for line in comments(CodeBlock(code))] == [
        "Compute it",
        "also this",
        "and this",
    ]


def test_unknown_tag_uses_the_plain_fallback():
    assert [line.strip() for line in comments(CodeBlock("# hello\nx\n", "no-such-language"))] == [
        "hello"
    ]


def test_diff_yields_added_lines_per_file_lexed_by_file_name():
    diff = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,3 @@\n"
        " import os\n-# old comment\n+# 新しいコメント\n+x = 1\n"
    )
    split = split_diff(diff)
    assert split.prose == ()
    assert split.code == (CodeBlock("# 新しいコメント\nx = 1\n", filename="app.py"),)
    assert [line.strip() for line in comments(split.code[0])] == ["新しいコメント"]


def test_unclosed_fence_detection():
    assert unclosed_fence("```py\nx\n")
    assert not unclosed_fence("```py\nx\n```")
    assert unclosed_fence("````\nx\n```\n")  # a shorter fence does not close a longer one
    assert not unclosed_fence("no fences at all")


LINE_LOCAL_SAMPLES = {
    "python": 'import os\nx = "a # not a comment"  # a real one\n\ndef f(y):\n    # inside\n'
    '    return y["#"]  # trailing\ns = f"{x!r}#"\n',
    "go": 'package main\n// Package comment\nfunc main() { s := "//x" // tail\n}\n',
    "c": '#include <stdio.h>\nint main() { printf("//"); // prints\n return 0; }\n',
    "java": 'class A { String s = "// no"; // yes\n  int x; }\n',
    "csharp": 'var s = "// no"; // yes\nint x = 1;\n',
    "kotlin": 'val s = "// no" // yes\nfun f() = 1\n',
    "swift": 'let s = "// no" // yes\nfunc f() {}\n',
    "cpp": 'std::string s = "// no"; // yes\nint x;\n',
}


@pytest.mark.parametrize("tag", sorted(LINE_LOCAL_SAMPLES))
def test_lexing_only_comment_region_finds_the_same_comments(tag):
    from pygments.lexers import get_lexer_by_name

    from arena.gates.text import _comment_region, _is_comment

    code = LINE_LOCAL_SAMPLES[tag]
    lexer = get_lexer_by_name(tag, stripnl=False, ensurenl=False)

    def found(text):
        return [v.strip() for _, k, v in lexer.get_tokens_unprocessed(text) if _is_comment(k)]

    assert _comment_region(code, lexer) != code, "the shortcut should apply to this sample"
    assert found(_comment_region(code, lexer)) == found(code)
    assert found(code), "the sample should hold comments"


FRAGMENTS = {
    "python": [
        "x = 1",
        'y = "a # b"  # tail note',
        "# whole line note",
        "def f(a):",
        '    """Docstring line."""',
        '    """Opened',
        '    closed."""',
        "s = '''",
        '    """One""" # then a note',
        'x = \'"""\' + """',
        '"""a""" + """b"""',
        "    '''It's mixed'''",
        '# """ in a comment',
        '    """ends here """',
        "# inside? '''",
        's = "con\\',
        'tinued # not"',
        "    return a  # back",
        "class K:",
        'u = f"{x}#"',
        '"""',
        "z = [1,  # in a list",
        "     2]",
    ],
    "c": [
        "int x = 1; /* closed */",
        "/* one */ int y; /* two */",
        "int q; // a /* b",
        "int x = 1;",
        'char *s = "a // b"; // tail note',
        "// whole line note",
        "/* opened",
        " * middle",
        " */",
        "int y; /* inline */ int z;",
        "#define M(a) (a) // macro",
        'printf("%d\\n", x); // print',
        's = "con\\',
        'tinued // not";',
        "}",
        "int f() {",
    ],
    "js": [
        'const u = "http://x.org"; // link',
        "let r = /a\\/\\/b/; // regex",
        "x = a",
        "/ b // divided or a regex",
        "const t = `tpl",
        "// in a template`",
        "/* block",
        "still */",
        "y = a / b / c; // two divisions",
        "s = 'it\\'s // no';",
        "}",
        "function f() {",
        "  return /\\/\\//.test(s); // slashes",
        "  /* one line */",
        "a = 1; /* x */ b = 2; /* y */",
        "r = /a\\/*/; z = 3;",
        "// c /* not opened",
        "/* a */ /* b",
        "c */ d = 4;",
    ],
    "typescript": [
        'const s: string = "// no"; // yes',
        "let n: number = a",
        "/ 2 // half",
        "type T = `a${string}",
        "// in a template type`",
        "x = y / z; // ratio",
    ],
    "go": [
        "x := 1",
        's := "a // b" // tail',
        "// whole",
        "r := `raw",
        "// inside raw`",
        "/* block",
        "still */",
        "func f() {",
        "}",
    ],
}


@given(
    st.sampled_from(sorted(FRAGMENTS)).flatmap(
        lambda tag: st.tuples(st.just(tag), st.lists(st.sampled_from(FRAGMENTS[tag]), max_size=12))
    )
)
@settings(max_examples=300, deadline=None)
def test_the_comment_region_lexes_to_the_same_comments_as_the_whole_block(case):
    from pygments.lexers import get_lexer_by_name

    from arena.gates.text import _comment_region, _is_comment

    tag, lines = case
    code = "\n".join(lines) + "\n"
    lexer = get_lexer_by_name(tag, stripnl=False, ensurenl=False)

    def found(text):
        return [v.strip() for _, k, v in lexer.get_tokens_unprocessed(text) if _is_comment(k)]

    assert found(_comment_region(code, lexer)) == found(code)
