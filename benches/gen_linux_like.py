#!/usr/bin/env python3
"""Deterministic generator of linux-shaped repositories, as a `git fast-import`
stream on stdout.

    python3 benches/gen_linux_like.py --objects 100000 --seed 1 \
        | git -C corpus.git fast-import --quiet

Same arguments, same bytes: the stream depends only on --objects and --seed.

Shape (modelled on linux.git, scaled to the requested object count):
- a deep directory tree: ~20 top-level directories, nested 2-5 levels, with
  a few "hot" directories holding thousands of entries (include/linux,
  arch/*/boot/dts style);
- files of C-like text with a log-normal size distribution (median ~6 KiB,
  a tail up to ~1 MiB), plus a few incompressible binary blobs (firmware);
- a long history: small commits (1-6 files, mostly in one directory),
  edits that insert, delete and rewrite runs of lines so that each new blob
  is a small delta of the previous one; a Zipf-like choice of files so a few
  (Makefile, MAINTAINERS) get very long delta chains;
- topic branches forked from master and merged back with merge commits
  (about one merge every 8 commits), annotated release tags every ~400
  commits, a handful of long-lived branches.

The object count is tracked as the stream is written (one blob per changed
file, one tree per changed directory on the way to the root, one commit,
one tag object) and generation stops at the first commit past --objects.
"""

import argparse
import random
import sys

TOPS = [
    "arch", "block", "certs", "crypto", "Documentation", "drivers", "fs",
    "include", "init", "ipc", "kernel", "lib", "mm", "net", "samples",
    "scripts", "security", "sound", "tools", "virt",
]
# The size a text file's edits stop growing it at.
MAX_TEXT = 256 << 10
WORDS = (
    "static int void struct unsigned long const return if else for while "
    "switch case break goto err out unlock lock mutex spin irq dev pdev "
    "data ret len size buf ptr list head node entry page folio inode file "
    "sk skb net ops priv reg val mask flags state count index offset addr "
    "u32 u64 u8 bool true false NULL sizeof kfree kmalloc GFP_KERNEL "
    "EINVAL ENOMEM EBUSY pr_err dev_err WARN_ON unlikely likely READ_ONCE"
).split()


def make_line_pool(rng, n):
    """C-looking lines: indentation, a statement, sometimes a comment."""
    pool = []
    for i in range(n):
        depth = rng.choice((0, 1, 1, 1, 2, 2, 3))
        words = rng.choices(WORDS, k=rng.randint(2, 9))
        kind = rng.random()
        if kind < 0.08:
            line = "/* " + " ".join(words) + " */"
        elif kind < 0.14:
            line = ""
        elif kind < 0.2:
            line = "}"
        elif kind < 0.3:
            line = "if (" + " && ".join(words[:3]) + ") {"
        else:
            line = words[0] + " " + "_".join(words[1:3]) + " = " + "(".join(words[3:]) + ";"
        pool.append(("\t" * depth + line + "\n").encode())
    return pool


class Gen:
    def __init__(self, objects, seed, out):
        self.target = objects
        self.rng = random.Random(seed)
        self.out = out
        self.count = 0  # objects written so far (estimated as fast-import stores them)
        self.pool = make_line_pool(self.rng, 60000)
        self.time = 1_100_000_000
        self.mark = 0
        self.files = {}  # path -> bytes (master's current content)
        self.dirs = {}  # dir -> list of file paths
        self.build_layout()

    # ---- layout ----
    def build_layout(self):
        rng = self.rng
        nfiles = max(200, min(70000, self.target // 30))
        dirs = []

        def grow(prefix, depth):
            dirs.append(prefix)
            if depth >= 5:
                return
            kids = rng.randint(1, 8) if depth < 2 else rng.choice((0, 0, 1, 2, 3, 5))
            for k in range(kids):
                grow(f"{prefix}/{rng.choice(WORDS)}{k}", depth + 1)

        for top in TOPS:
            grow(top, 1)
        # A few hot directories get a large share of the files.
        hot = rng.sample(dirs, min(4, len(dirs)))
        weights = [40.0 if d in hot else rng.random() + 0.2 for d in dirs]
        paths = set()
        while len(paths) < nfiles:
            d = rng.choices(dirs, weights=weights)[0]
            ext = rng.choice((".c", ".c", ".c", ".h", ".h", ".S", ".rst", ".txt"))
            paths.add(f"{d}/{rng.choice(WORDS)}_{len(paths)}{ext}")
        for special in ("Makefile", "MAINTAINERS", "README", "Kconfig"):
            paths.add(special)
        self.paths = sorted(paths)
        for p in self.paths:
            self.dirs.setdefault(p.rsplit("/", 1)[0] if "/" in p else "", []).append(p)
        self.dir_list = sorted(self.dirs)
        # Zipf-like popularity: a few files are touched all the time.
        order = self.paths[:]
        rng.shuffle(order)
        for special in ("MAINTAINERS", "Makefile"):
            order.remove(special)
            order.insert(0, special)
        self.popular = order
        self.binaries = set(rng.sample(self.paths, max(1, nfiles // 2000)))

    def new_content(self, path):
        rng = self.rng
        if path in self.binaries:
            return rng.randbytes(rng.randint(64 << 10, 1 << 20))
        size = int(min(1 << 20, rng.lognormvariate(8.7, 1.1)))  # median ~6 KiB
        lines = max(3, size // 40)
        return b"".join(rng.choices(self.pool, k=lines))

    def edit(self, content, tag):
        rng = self.rng
        if not content or content[:1] not in (b"\t", b"/", b"i", b"}", b"\n") and rng.random() < 0.5:
            # binary or odd: replace a block
            if len(content) > 4096:
                at = rng.randrange(len(content) - 4096)
                return content[:at] + rng.randbytes(4096) + content[at + 4096 :]
        n_hunks = rng.choice((1, 1, 1, 2, 2, 3, 5))
        for _ in range(n_hunks):
            if len(content) < 2:
                content = b"".join(rng.choices(self.pool, k=10))
            at = rng.randrange(len(content))
            start = content.rfind(b"\n", 0, at) + 1
            end = start
            # A text at its cap loses lines as fast as it gains them, so the
            # popular files stop growing and the stream stays linear in the
            # object count (as linux's MAINTAINERS has hovered at a few
            # hundred KiB for years).
            capped = len(content) > MAX_TEXT
            for _ in range(rng.choice((8, 12, 16) if capped else (0, 1, 1, 2, 3, 8))):
                nxt = content.find(b"\n", end)
                if nxt < 0:
                    break
                end = nxt + 1
            added = rng.choices(self.pool, k=rng.choice((0, 1, 2, 3, 5, 12, 30)))
            if capped:
                added = added[:2]
            added.append(f"\t/* {tag} */\n".encode())
            content = content[:start] + b"".join(added) + content[end:]
        return content

    # ---- stream ----
    def w(self, data):
        self.out.write(data)

    def data(self, payload):
        self.w(b"data %d\n" % len(payload))
        self.w(payload)
        self.w(b"\n")

    def who(self):
        self.time += self.rng.randint(60, 20000)
        n = self.rng.randrange(400)
        return f"Dev {n} <dev{n}@example.org> {self.time} +0000".encode()

    def commit(
        self, ref, changes, parent=None, merge=None, message=None, new_blobs=True, new_trees=True
    ):
        """changes: {path: bytes or None (delete)}; returns the commit mark.
        `new_blobs` is false when the contents are already stored (a merge),
        `new_trees` when the trees are too (a merge master did not move past)."""
        self.mark += 1
        mark = self.mark
        who = self.who()
        self.w(b"commit %s\nmark :%d\nauthor %s\ncommitter %s\n" % (ref.encode(), mark, who, who))
        msg = message or self.message()
        self.data(msg)
        if parent:
            self.w(b"from :%d\n" % parent)
        if merge:
            self.w(b"merge :%d\n" % merge)
        touched_dirs = {""}
        for path in sorted(changes):
            content = changes[path]
            if content is None:
                self.w(b"D %s\n" % path.encode())
            else:
                self.w(b"M 100644 inline %s\n" % path.encode())
                self.data(content)
                self.count += 1 if new_blobs else 0
            parts = path.split("/")[:-1]
            for i in range(len(parts)):
                touched_dirs.add("/".join(parts[: i + 1]))
        self.count += 1 + (len(touched_dirs) if new_trees else 0)
        return mark

    def message(self):
        rng = self.rng
        subject = " ".join(rng.choices(WORDS, k=rng.randint(3, 8)))
        body = "".join(
            " ".join(rng.choices(WORDS, k=rng.randint(6, 12))) + "\n"
            for _ in range(rng.randint(0, 12))
        )
        return f"{rng.choice(TOPS)}: {subject}\n\n{body}\nSigned-off-by: Dev <dev@example.org>\n".encode()

    def pick_files(self, exclude_prefix=None):
        """1-6 files, usually in one directory; sometimes a popular file."""
        rng = self.rng
        picked = set()
        if rng.random() < 0.25:
            k = min(len(self.popular), int(rng.paretovariate(1.0)) - 1)
            picked.add(self.popular[min(k, len(self.popular) - 1)])
        d = rng.choice(self.dir_list)
        if exclude_prefix is not None and d.startswith(exclude_prefix):
            d = ""
        files = self.dirs[d]
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 6))):
            picked.add(rng.choice(files))
        if exclude_prefix is not None:
            picked = {p for p in picked if not p.startswith(exclude_prefix)}
        return picked

    def run(self):
        rng = self.rng
        # Initial import: everything in one commit.
        initial = {p: self.new_content(p) for p in self.paths}
        self.files.update(initial)
        head = self.commit("refs/heads/master", initial, message=b"Initial import\n")
        n = 0
        release = 0
        while self.count < self.target:
            n += 1
            if rng.random() < 0.12:
                head = self.topic(head, n)
            else:
                head = self.commit("refs/heads/master", self.changes(n), parent=head)
            if n % 400 == 0:
                release += 1
                self.tag(f"v{release // 10}.{release % 10}", head)
            if n % 5000 == 0:
                self.w(b"reset refs/heads/stable-%d\nfrom :%d\n\n" % (n // 5000, head))
        self.w(b"reset refs/heads/master\nfrom :%d\n\n" % head)

    def changes(self, n, exclude_prefix=None):
        out = {}
        for p in sorted(self.pick_files(exclude_prefix)):  # sets iterate in hash order
            self.files[p] = self.edit(self.files[p], f"change {n}")
            out[p] = self.files[p]
        return out

    def topic(self, head, n):
        """A topic branch on one top-level directory, merged back into master."""
        rng = self.rng
        top = rng.choice(TOPS) + "/"
        fork = head
        ref = f"refs/heads/topic-{n % 64}"
        tip = fork
        topic_files = {}
        for i in range(rng.randint(1, 6)):
            ch = {}
            for _ in range(rng.randint(1, 3)):
                d = rng.choice([d for d in self.dir_list if d.startswith(top)] or [""])
                p = rng.choice(self.dirs[d])
                base = topic_files.get(p, self.files[p])
                topic_files[p] = self.edit(base, f"topic {n}.{i}")
                ch[p] = topic_files[p]
            tip = self.commit(ref, ch, parent=tip)
        # master moves on meanwhile, away from the topic's directory.
        master_moves = rng.randint(0, 3)
        for i in range(master_moves):
            head = self.commit("refs/heads/master", self.changes(f"{n}.{i}", top), parent=head)
        self.files.update(topic_files)
        return self.commit(
            "refs/heads/master",
            dict(topic_files),
            parent=head,
            merge=tip,
            message=f"Merge branch 'topic-{n}'\n".encode(),
            new_blobs=False,
            new_trees=master_moves > 0,
        )

    def tag(self, name, target):
        who = self.who()
        self.w(b"tag %s\nfrom :%d\ntagger %s\n" % (name.encode(), target, who))
        self.data(f"Linux-like release {name}\n".encode())
        self.count += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, required=True, help="approximate object count")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out = sys.stdout.buffer
    g = Gen(args.objects, args.seed, out)
    g.run()
    out.write(b"done\n")
    out.flush()
    print(f"gen_linux_like: ~{g.count} objects", file=sys.stderr)


if __name__ == "__main__":
    main()
