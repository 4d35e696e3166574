#!/usr/bin/env python3
"""The docs against the program they describe (issue 37, "Docs that cannot
drift").

samples CLI DOC...
    Runs every code block of the DOCs marked checked, and compares what the
    command prints with the block. The marker is an HTML comment on the line
    before the block's opening fence (it does not show on a rendered page):

        <!-- checked exit=3 vary='[0-9.]+ ms' -->
        ```
        $ quadrender render snwo
        quadrender: unknown scene 'snwo': ...
        ```

    The block's leading lines that start with "$ " are the commands (run by
    bash in an empty temporary folder, with this build's quadrender first on
    PATH, no GPU visible: CUDA_VISIBLE_DEVICES is empty); the rest is what
    they print. Words of the marker (shell quoting):
      cmd=COMMAND   the command, for a block that shows only the output
      exit=N        its exit status (default 0)
      stream=S      what the block shows: stdout, stderr, or both (the
                    default: stderr's lines, then stdout's)
      vary=REGEX    text that may differ from run to run or machine to
                    machine (a time, a thread count): where it matches the
                    block, the output must match REGEX there (repeatable)
      only=REGEX    compare only the lines that match REGEX, on both sides
                    (a sample whose other lines need a GPU)
      setup=SCRIPT  bash run first in the folder (a file the command reads)
      build=B       check only in this kind of build: cpu-only or cuda
    A marker not followed by a fence, or an unknown word, is an error.

options CLI SRC_CLI_DIR CLI_MD [DOC...]
    Every command's --help against the option tables of src/cli (the
    cli_opt initialisers of the command's file, the scene and index options
    of cli_shared.c when the command parses through cli_parse_scene_command
    (the index options alone when it calls cli_index_opts_init),
    the data options of cli_map.c when it calls cli_map_opts_init, the
    picture's of cli_picture.c when it calls cli_picture_opts_init,
    the common options of cli_args.c): the same options, long and short
    forms. docs/cli.md's options of each command (its section's option
    tables, an "Options:" sentence, the index options where the section
    links them, the common options at the top) against --help, both ways,
    and the tables' Default column against --help's "(default V)" where V is
    one word.
    Each option --help lists is one the command takes (not refused as
    unknown). The commands of `quadrender --help` against cli.md's command
    table and src/cli's commands. And
    every option on a `quadrender COMMAND ...` line in a code block or code
    span of CLI_MD and the DOCs (README.md) is one COMMAND's --help lists.

Exit status 1 with what differs, 0 when nothing does.
"""
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

COMMANDS = ("render", "check", "stats", "query", "tiles", "view", "bench", "dump", "scenes")
MARKER = re.compile(r"^\s*<!--\s*checked\b(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)")
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)")
KEYS = {"cmd", "exit", "stream", "vary", "only", "setup", "build"}


# ---- samples -------------------------------------------------------------------

def marked_blocks(path):
    """(line number, attributes, commands, expected lines) per checked block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, errors = [], []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        where = "%s:%d" % (path, i + 1)
        attrs = {"vary": [], "only": []}
        try:
            words = shlex.split(m.group(1))
        except ValueError as e:
            errors.append("%s: marker: %s" % (where, e))
            i += 1
            continue
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or key not in KEYS:
                errors.append("%s: marker: unknown word %r" % (where, w))
            elif key in ("vary", "only"):
                attrs[key].append(value)
            else:
                attrs[key] = value
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        f = FENCE.match(lines[j]) if j < len(lines) else None
        if not f:
            errors.append("%s: a checked marker must come right before a ``` block" % where)
            i += 1
            continue
        indent, fence = f.group(1), f.group(2)
        body = []
        k = j + 1
        while k < len(lines) and not lines[k].strip().startswith(fence):
            line = lines[k]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            k += 1
        if k == len(lines):
            errors.append("%s: the block never closes" % where)
            break
        commands = []
        if "cmd" not in attrs:
            while body and body[0].startswith("$ "):
                commands.append(body.pop(0)[2:])
        else:
            commands.append(attrs["cmd"])
        if not commands:
            errors.append("%s: a checked block needs '$ ' lines or cmd=" % where)
        else:
            blocks.append((where, attrs, commands, body))
        i = k + 1
    return blocks, errors


def line_pattern(expected, vary):
    """A regex the actual line must match: expected, where the vary regexes
    match in it, taken as those regexes."""
    if not vary:
        return re.escape(expected)
    either = "|".join("(?:%s)" % v for v in vary)
    out, at = [], 0
    for m in re.finditer(either, expected):
        if m.end() == m.start():
            continue
        out.append(re.escape(expected[at:m.start()]))
        out.append("(?:%s)" % either)
        at = m.end()
    out.append(re.escape(expected[at:]))
    return "".join(out)


def compare(expected, actual, vary, only):
    """Lines that differ as a unified diff; [] when they agree."""
    if only:
        keep = re.compile("|".join("(?:%s)" % o for o in only))
        expected = [l for l in expected if keep.search(l)]
        actual = [l for l in actual if keep.search(l)]
    while expected and not expected[-1].strip():
        expected.pop()
    while actual and not actual[-1].strip():
        actual.pop()
    agree = len(expected) == len(actual) and all(
        re.fullmatch(line_pattern(e, vary), a) for e, a in zip(expected, actual))
    if agree:
        return []
    # a line that agrees shows as the doc's, so that the diff holds only what differs
    shown = [expected[i] if i < len(expected) and re.fullmatch(line_pattern(expected[i], vary), a)
             else a for i, a in enumerate(actual)]
    return list(difflib.unified_diff(expected, shown, "the doc", "the program", lineterm="", n=2))


def build_kind(cli):
    out = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
    return "cpu-only" if "built without CUDA" in out else "cuda"


def run_block(cli_dir, attrs, commands, tmp):
    env = dict(os.environ)
    env["PATH"] = cli_dir + os.pathsep + env.get("PATH", "")
    env["CUDA_VISIBLE_DEVICES"] = ""
    for name in ("QR_THREADS", "OMP_NUM_THREADS"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(dir=tmp) as work:
        if "setup" in attrs:
            subprocess.run(["bash", "-c", attrs["setup"]], cwd=work, env=env, check=True)
        return subprocess.run(["bash", "-c", "\n".join(commands)], cwd=work, env=env,
                              capture_output=True, timeout=300)


def check_samples(cli, docs):
    cli = os.path.abspath(cli)
    tmp = os.environ.get("QR_DOCS_TMP") or None
    if tmp:
        os.makedirs(tmp, exist_ok=True)
    # `quadrender` in a command is this build's
    cli_dir = tempfile.mkdtemp(dir=tmp)
    os.symlink(cli, os.path.join(cli_dir, "quadrender"))
    kind = build_kind(cli)
    bad, ran, skipped = [], 0, []
    for doc in docs:
        blocks, errors = marked_blocks(doc)
        bad += errors
        for where, attrs, commands, expected in blocks:
            if attrs.get("build", kind) != kind:
                skipped.append("%s (a %s build's output; this is a %s build)"
                               % (where, attrs["build"], kind))
                continue
            ran += 1
            r = run_block(cli_dir, attrs, commands, tmp)
            out = r.stdout.decode("utf-8", "replace").splitlines()
            err = r.stderr.decode("utf-8", "replace").splitlines()
            stream = attrs.get("stream", "both")
            actual = {"stdout": out, "stderr": err, "both": err + out}.get(stream)
            if actual is None:
                bad.append("%s: marker: stream=%s is not stdout, stderr or both" % (where, stream))
                continue
            want = int(attrs.get("exit", "0"))
            diff = compare(list(expected), actual, attrs["vary"], attrs["only"])
            if r.returncode != want or diff:
                bad.append("%s: `%s`: %s" % (
                    where, "; ".join(commands),
                    "exit %d, the doc says %d" % (r.returncode, want)
                    if r.returncode != want else "its output differs from the doc's"))
                bad += ["    " + d for d in diff]
                if r.returncode != want and not diff:
                    bad += ["    stderr: " + l for l in err if l]
    os.unlink(os.path.join(cli_dir, "quadrender"))
    os.rmdir(cli_dir)
    print("%d checked blocks run%s" % (ran, ", %d skipped:" % len(skipped) if skipped else ""))
    for s in skipped:
        print("  skipped " + s)
    if not ran and not bad:
        bad.append("no checked blocks found in " + ", ".join(docs))
    return bad


# ---- options -------------------------------------------------------------------

def help_text(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s %s exited %d" % (cli, " ".join(args), r.returncode))
    return r.stdout


def help_list(text, heading):
    """The lines of a --help's list under heading ("Options:"), up to the
    blank line that ends it."""
    lines = text.split("\n")
    if heading not in lines:
        return []
    rest = lines[lines.index(heading) + 1:]
    return rest[:rest.index("")] if "" in rest else rest


def help_options(text):
    """The options of a --help's "Options:" list: long and short forms."""
    found = set()
    for line in help_list(text, "Options:"):
        m = re.match(r"^  (?:(-[A-Za-z]), )?\s*(--[A-Za-z0-9-]+)", line)
        if m:
            found.update(x for x in m.groups() if x)
    return found


def help_commands(text):
    return {line.split()[0] for line in help_list(text, "Commands:") if line.strip()}


C_OPT = re.compile(r'\{\s*"(--[A-Za-z0-9-]+)",\s*(?:NULL|"(-[A-Za-z])")\s*,')


def source_options(src):
    """Per command, the options its cli_opt tables give (from the C source)."""
    def opts_of(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        out = set()
        for m in C_OPT.finditer(text):
            out.update(x for x in m.groups() if x)
        return text, out

    files = []
    for root, _, names in os.walk(src):
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".c")]
    common = opts_of(os.path.join(src, "cli_args.c"))[1] | {"--help", "-h"}
    shared = opts_of(os.path.join(src, "cli_shared.c"))[1]
    data = opts_of(os.path.join(src, "cli_map.c"))[1]
    picture = opts_of(os.path.join(src, "cli_picture.c"))[1]
    per = {}
    for path in files:
        text, opts = opts_of(path)
        m = re.search(r'const cli_cmd cli_cmd_\w+ = \{[^}]*?\.name = "(\w+)"', text, re.S)
        if not m:
            continue
        if "cli_parse_scene_command(" in text:
            opts |= shared
        elif "cli_index_opts_init(" in text:  # the index options alone
            opts |= shared - {"--size", "-s", "--width", "--height", "--seed", "--frame"}
        if "cli_map_opts_init(" in text:
            opts |= data
        if "cli_picture_opts_init(" in text:
            opts |= picture
        per[m.group(1)] = opts | common
    return per


def md_sections(path):
    """(title, lines) of each '## ' section."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sections, title, body = [], "", []
    for line in lines:
        if line.startswith("## "):
            sections.append((title, body))
            title, body = line[3:].strip(), []
        else:
            body.append(line)
    sections.append((title, body))
    return sections


def table_rows(body):
    """The rows of the '| Option | Default | ... |' tables in body: the
    options of the first column, and the cells."""
    rows, inside = [], False
    for line in body:
        if re.match(r"^\|\s*Option\s*\|", line):
            inside = True
        elif inside and line.startswith("|"):
            if not re.match(r"^\|[-: |]+\|$", line):
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
                opts = set()
                for span in re.findall(r"`([^`]*)`", cells[0]):
                    opts.update(OPTION.findall(span))
                rows.append((opts, cells))
        else:
            inside = False
    return rows


def table_options(body):
    """Options of the first column of the option tables in body, and
    whether a row links the index options."""
    opts, index = set(), False
    for o, cells in table_rows(body):
        opts |= o
        index = index or any("(#index-options)" in c for c in cells)
    return opts, index


def help_defaults(text):
    """{long option: its default} where a --help line says "(default V)" of
    one word."""
    found = {}
    for line in help_list(text, "Options:"):
        m = re.match(r"^  (?:-[A-Za-z], )?\s*(--[A-Za-z0-9-]+)\s.*?\(default:? ([^);]*)", line)
        if m:
            value = re.split(r"[:,] |;", m.group(2))[0].strip()
            if value and " " not in value:
                found[m.group(1)] = value
    return found


def doc_defaults(cli_md):
    """(command, option, the Default cell) of every row of one long option
    in the option tables of cli.md's command sections and the index options
    (for each command that links them)."""
    sections = md_sections(cli_md)
    index = [b for t, b in sections if t == "Index options"]
    index_rows = table_rows(index[0]) if index else []
    found = []
    for title, body in sections:
        m = re.match(r"^`quadrender (\w+)\b", title)
        if not m or m.group(1) not in COMMANDS:
            continue
        rows = table_rows(body)
        para = " ".join(l.strip() for l in body)
        if table_options(body)[1] or re.search(r"Options: [^.]*\(#index-options\)", para):
            rows = rows + index_rows
        for opts, cells in rows:
            longs = [o for o in opts if o.startswith("--")]
            if len(longs) == 1 and len(cells) >= 3:
                found.append((m.group(1), longs[0], cells[1]))
    return found


def doc_options(cli_md):
    """Per command, the options docs/cli.md gives it; and its command table."""
    sections = md_sections(cli_md)
    intro = sections[0][1]
    commands = set()
    for line in intro:
        m = re.match(r"^\|\s*`(\w+)`\s*\|", line)
        if m:
            commands.add(m.group(1))
    # the common options: the list after "common options:"
    common, inside = {"--help", "-h"}, False
    for line in intro:
        if "common options:" in line:
            inside = True
        elif inside and line.startswith("- `"):
            common.update(OPTION.findall(line.split("`:", 1)[0]))
        elif inside and not line.strip():
            if len(common) > 2:
                break
    index = set()
    for title, body in sections:
        if title == "Index options":
            index = table_options(body)[0]
    per = {}
    for title, body in sections:
        m = re.match(r"^`quadrender (\w+)\b", title)
        if not m or m.group(1) not in COMMANDS:
            continue
        opts, links = table_options(body)
        para = " ".join(l.strip() for l in body)
        s = re.search(r"Options: (.*?)\.(?:\s|$)", para)
        if s:
            for span in re.findall(r"`([^`]*)`", s.group(1)):
                opts.update(OPTION.findall(span))
            links = links or "(#index-options)" in s.group(1)
        per[m.group(1)] = opts | common | (index if links else set())
    return per, commands


def command_lines(path):
    """(line number, command, options) of every `quadrender COMMAND ...` in a
    code block (fenced or indented) or a code span of path."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    texts, prose, fenced = [], [], False
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            texts.append((n, line))
        else:
            prose.append((n, line))
    # code spans may run over a line break: search the prose joined
    joined, starts = "", []
    for n, line in prose:
        starts.append((len(joined), n))
        joined += line + "\n"
    for m in re.finditer(r"`([^`]+)`", joined):
        n = max(s for s in starts if s[0] <= m.start())[1]
        texts.append((n, m.group(1).replace("\n", " ")))
    found = []
    for n, text in sorted(texts):
        text = text.replace("\\|", " ")
        for part in re.split(r"\||&&|;|\s#\s", text):
            m = re.search(r"(?:^|[\s/$])quadrender\s+(\w+)\b(.*)", part)
            if m and m.group(1) in COMMANDS:
                opts = OPTION.findall(m.group(2))
                found.append((n, m.group(1), [o for o in opts if o != "--"]))
    return found


def accepted(cli, command, option):
    """Whether the parser takes option (not 'unknown option'): with --help
    after it twice, so that nothing runs whether it takes a value or not."""
    r = subprocess.run([cli, command, option, "--help", "--help"], capture_output=True, text=True)
    return "unknown option" not in r.stderr


def check_exit_codes(main_help, cli_md, docs):
    """`quadrender --help`'s "Exit codes: ..." sentence is in each DOC that
    has such a sentence (README.md), and its codes are the rows of cli.md's
    table of codes."""
    bad = []
    flat = " ".join(main_help.split())
    m = re.search(r"Exit codes: (.*?\d+ [^.]*)\.", flat)
    if not m:
        return ["quadrender --help gives no 'Exit codes: ...' sentence"]
    codes = set(re.findall(r"(?:^|, )(\d+) ", m.group(1)))
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            text = " ".join(f.read().split())
        said = re.search(r"Exit codes: (.*?)\.", text)
        if said and said.group(1) != m.group(1):
            bad.append("%s: 'Exit codes: %s.', quadrender --help: 'Exit codes: %s.'"
                       % (doc, said.group(1), m.group(1)))
    with open(cli_md, encoding="utf-8") as f:
        rows = set(re.findall(r"^\| (\d) \|", f.read(), re.M))
    if rows != codes:
        bad.append("%s: the exit-code table has %s, quadrender --help %s"
                   % (cli_md, sorted(rows), sorted(codes)))
    return bad


def check_options(cli, src, cli_md, docs):
    bad = []
    helps = {c: help_options(help_text(cli, c, "--help")) for c in COMMANDS}
    source = source_options(src)
    documented, table = doc_options(cli_md)
    listed = help_commands(help_text(cli, "--help"))
    for what, got in (("quadrender --help", listed), ("cli.md's command table", table),
                      ("src/cli (cli_cmd definitions)", set(source)),
                      ("cli.md's command sections", set(documented))):
        if got != set(COMMANDS):
            bad.append("%s lists the commands %s, not %s"
                       % (what, sorted(got), sorted(COMMANDS)))
    for c in COMMANDS:
        h = helps[c]
        for o in sorted(source.get(c, set()) - h):
            bad.append("%s: %s is in the option table of src/cli but not in --help" % (c, o))
        for o in sorted(o for o in h if not accepted(cli, c, o)):
            bad.append("%s: --help lists %s, which the command refuses as unknown" % (c, o))
        for o in sorted(h - source.get(c, set())):
            bad.append("%s: --help lists %s, which no option table of src/cli gives it" % (c, o))
        for o in sorted(documented.get(c, set()) - h):
            bad.append("%s: docs/cli.md lists %s, which --help does not" % (c, o))
        for o in sorted(h - documented.get(c, set())):
            bad.append("%s: --help lists %s, which docs/cli.md's tables for %s do not"
                       % (c, o, c))
    defaults = {c: help_defaults(help_text(cli, c, "--help")) for c in COMMANDS}
    for c, o, cell in doc_defaults(cli_md):
        want = defaults[c].get(o)
        said = cell.replace("`", "").split(" ")[0] if cell else ""
        if want is not None and said != want:
            bad.append("%s: %s: docs/cli.md's default is %r, --help's %r" % (c, o, cell, want))
    bad += check_exit_codes(help_text(cli, "--help"), cli_md, docs)
    lines = 0
    for doc in [cli_md] + docs:
        for n, c, opts in command_lines(doc):
            lines += 1
            for o in opts:
                if o not in helps[c]:
                    bad.append("%s:%d: `quadrender %s ... %s`: %s --help has no %s"
                               % (doc, n, c, o, c, o))
    print("%d commands' options compared; %d command lines of the docs checked"
          % (len(COMMANDS), lines))
    return bad


def main(argv):
    if len(argv) >= 3 and argv[0] == "samples":
        bad = check_samples(argv[1], argv[2:])
    elif len(argv) >= 4 and argv[0] == "options":
        bad = check_options(argv[1], argv[2], argv[3], argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
