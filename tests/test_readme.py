"""The README and docs/*.md hold to what they say (docs/testing.md, "The
documentation"): every fenced shell block says whether it is replayed,
every `sh replay` block runs as written from the repository root, and every
relative link leads to a file and a heading that exist."""
import collections
import glob
import os
import re
import subprocess
import sys
import time

from testlib import ROOT, check, kill_job, time_limit

SHELL_LANGUAGES = ("sh", "bash", "shell", "console")
REPLAYABLE = ("sh", "bash")
NOT_REPLAYED = "# not replayed:"
# The slowest block, an example job on 2 cores, takes about two minutes on
# a busy machine: the limit catches a hang, not slowness.
BLOCK_SECONDS = 600
OUTPUT_TAIL = 4000
# Commands that, indented outside a fence, would make a code block no one
# replays: they belong in a tagged fence.
COMMAND_WORDS = ("mpirun", "bin/seisfd", "python3", "make", "sh", "bash", "sbatch", "qsub",
                 "salloc", "srun", "jobs/", "$")
FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# What make exports to its recipes: a reader's shell has none of it, and a
# replayed make must not take the suite's jobserver for its own.
MAKE_VARIABLES = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")


class Block:
    """A fenced block: where it opens, its info string and its text."""

    def __init__(self, path, line, info, text):
        self.path, self.line, self.text = path, line, text
        words = info.split()
        self.language = words[0] if words else ""
        self.tags = words[1:]

    def where(self):
        return f"{self.path}:{self.line}"


def documents():
    """The README first, since the quick start comes before everything,
    then docs/*.md by name; docs/pending/ holds notes not yet placed."""
    docs = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return ["README.md"] + [os.path.relpath(p, ROOT) for p in docs]


def parse(path):
    """The fenced blocks of a Markdown file, and its lines outside them as
    (number, text). A fence may be indented, as in a list item; its lines
    lose that indentation."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, prose = [], []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        start, indent, fence = i, len(opened.group(1)), opened.group(2)
        closing = re.compile(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body = []
        i += 1
        while i < len(lines) and not closing.match(lines[i]):
            line = lines[i]
            body.append(line[indent:] if not line[:indent].strip() else line)
            i += 1
        blocks.append(Block(path, start + 1, opened.group(3).strip(), "\n".join(body)))
        i += 1
    return blocks, prose


def tag_problems(block):
    """What is wrong with a shell block's tag, or None."""
    if block.language not in SHELL_LANGUAGES:
        return None
    if block.tags == ["replay"]:
        if block.language not in REPLAYABLE:
            return f"a `{block.language}` block cannot be replayed: make it `sh replay`"
        return None
    if block.tags == ["no-replay"]:
        first = block.text.split("\n", 1)[0].strip()
        if not first.startswith(NOT_REPLAYED) or not first[len(NOT_REPLAYED):].strip():
            return f"a no-replay block must open with `{NOT_REPLAYED} REASON`"
        return None
    said = f"is tagged `{' '.join(block.tags)}`" if block.tags else "has no tag"
    return (f"the shell block {said}: tag it `{block.language} replay` or "
            f"`{block.language} no-replay`")


def indented_commands(path, prose):
    """Commands in an indented code block outside any fence: lines of 4
    spaces or more after a blank line, whose first word is a command."""
    found = []
    for (_, before), (number, line) in zip(prose, prose[1:]):
        words = line.split()
        if before.strip() or not line.startswith("    ") or not words:
            continue
        if words[0].startswith(COMMAND_WORDS):
            found.append(f"{path}:{number}: an indented command outside a fence "
                         f"(fence it and tag it replay or no-replay): {line.strip()}")
    return found


def test_shell_blocks_are_tagged(tmp):
    problems, counts = [], collections.Counter()
    for path in documents():
        blocks, prose = parse(path)
        for block in blocks:
            problem = tag_problems(block)
            if problem:
                problems.append(f"{block.where()}: {problem}")
            elif block.language in SHELL_LANGUAGES:
                counts[block.tags[0]] += 1
        problems += indented_commands(path, prose)
    check(not problems, "shell blocks that do not say whether they are replayed:\n"
          + "\n".join(problems))
    return f"{counts['replay']} replay and {counts['no-replay']} no-replay blocks"


def heading_anchors(path):
    """The anchors GitHub gives a file's headings: lower case, spaces to
    hyphens, punctuation but - and _ dropped; a repeated one gets -1, -2."""
    anchors, seen = set(), collections.Counter()
    for _, line in parse(path)[1]:
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        anchors.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return anchors


def test_links_resolve(tmp):
    problems, checked = [], 0
    for path in documents():
        for number, line in parse(path)[1]:
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target):   # http:, mailto:: not ours to check
                    continue
                checked += 1
                file_part, _, anchor = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)
                                          if file_part else path)
                if not os.path.exists(os.path.join(ROOT, linked)):
                    problems.append(f"{path}:{number}: {target}: no file {linked}")
                elif anchor and linked.endswith(".md") and anchor not in heading_anchors(linked):
                    problems.append(f"{path}:{number}: {target}: {linked} has no heading "
                                    f"#{anchor}")
    check(not problems, "links that lead nowhere:\n" + "\n".join(problems))
    return f"{checked} links"



def replay_environment():
    """A reader's shell: python3 is the suite's own Python (the one with
    numpy, h5py and matplotlib), and nothing of the make that may run us."""
    env = {k: v for k, v in os.environ.items() if k not in MAKE_VARIABLES}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def replay(block, env, limit):
    """Runs a block from the repository root; None, or why it failed."""
    shell = "bash" if block.language == "bash" else "sh"
    started = time.time()
    proc = subprocess.Popen([shell, "-e", "-c", block.text], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        kill_job(proc)
        return f"{block.where()}: still running after {limit:.0f} s:\n{block.text}"
    if proc.returncode == 0:
        return None
    return (f"{block.where()}: exit status {proc.returncode} after "
            f"{time.time() - started:.0f} s:\n{block.text}\n--- its output, the last "
            f"{OUTPUT_TAIL} characters ---\n{output[-OUTPUT_TAIL:]}")


def untracked_changes():
    """What git sees changed or new outside its ignored paths, or None
    where this is no git checkout."""
    p = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                       capture_output=True, text=True)
    return set(p.stdout.splitlines()) if p.returncode == 0 else None


def test_replay_blocks(tmp):
    """Every `sh replay` block, in order per file, README first. All run,
    so that one failure does not hide another."""
    env, limit = replay_environment(), time_limit(BLOCK_SECONDS)
    before = untracked_changes()
    failures, ran, reasons = [], 0, collections.Counter()
    started = time.time()
    for path in documents():
        for block in parse(path)[0]:
            if block.language not in SHELL_LANGUAGES or tag_problems(block):
                continue   # not shell, or untagged: test_shell_blocks_are_tagged says so
            if block.tags == ["no-replay"]:
                reasons[block.text.split("\n", 1)[0].strip()[len(NOT_REPLAYED):].strip()] += 1
                continue
            ran += 1
            failure = replay(block, env, limit)
            if failure:
                failures.append(failure)
    after = untracked_changes()
    if before is not None and after is not None and after - before:
        failures.append("replayed blocks wrote outside out/ (git sees them):\n"
                        + "\n".join(sorted(after - before)))
    summary = (f"{ran} blocks replayed in {time.time() - started:.0f} s, "
               f"{sum(reasons.values())} not replayed ("
               + "; ".join(f"{n} {reason}" for reason, n in reasons.most_common()) + ")")
    check(not failures, f"{summary}; {len(failures)} of the {ran} failed:\n\n"
          + "\n\n".join(failures))
    return summary
