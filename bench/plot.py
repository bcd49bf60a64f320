"""The benchmark charts, as SVG: ratio to GNU per workload (with the peer),
cat throughput against buffer size, yes throughput against line length,
grep time against the longest line of the seed's increasing-line input.

    python plot.py RESULTS_DIR PLOTS_DIR
"""
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# Byte-identical SVGs for identical data: fixed ids, no date.
plt.rcParams["svg.hashsalt"] = "samebytes"
plt.rcParams["font.size"] = 9
METADATA = {"Date": None, "Creator": "bench/plot.py"}
OURS, GNU, PEER = "#1f77b4", "#d62728", "#2ca02c"
GIB = float(1 << 30)


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata=METADATA)
    plt.close(fig)
    print(path)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def ratio_chart(rows, section, path):
    """Speed relative to GNU (GNU = 1): samebytes and the peer per workload."""
    peer = "ripgrep" if section.startswith("grep") else "uutils"
    rows = [r for r in rows if r["gnu"] > 0 and r["ours"] > 0]
    names = [r["workload"] for r in rows]
    ours = [r["gnu"] / r["ours"] for r in rows]
    theirs = [r["gnu"] / r["peer"] if r.get("peer") else 0 for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    y = range(len(rows))
    h = 0.4
    ax.barh([i - h / 2 for i in y], ours, h, color=OURS, label="samebytes")
    ax.barh([i + h / 2 for i in y], theirs, h, color=PEER, label=peer)
    for i, v in enumerate(ours):
        ax.text(v, i - h / 2, f" {v:.2f}", va="center", fontsize=7)
    ax.axvline(1, color=GNU, linewidth=1, label="GNU (= 1)")
    ax.set_yticks(list(y))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("speed relative to GNU: t(GNU) / t(tool), log scale; higher is faster")
    ax.set_title(f"{section}: samebytes and {peer} against GNU")
    ax.legend(loc="lower right", fontsize=7)
    save(fig, path)


def cat_buffers(sweeps, path):
    sizes = ["512", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K",
             "1M", "2M", "4M", "8M", "16M"]
    def nbytes(s):
        return int(s[:-1]) * {"K": 1 << 10, "M": 1 << 20}[s[-1]] if s[-1] in "KM" else int(s)
    scenarios = ["file → /dev/null", "file → pipe", "pipe → pipe"]
    mib256 = 256 * (1 << 20)
    fig, axes = plt.subplots(1, 3, figsize=(11, 4.2), sharey=True)
    for i, (ax, title) in enumerate(zip(axes, scenarios)):
        for tag, style in (("plain", "-"), ("-v", "--")):
            xs, ys = [], []
            for s in sizes:
                p = os.path.join(sweeps, f"cat-ours-{tag}-{s}.json")
                if os.path.exists(p):
                    xs.append(nbytes(s))
                    ys.append(mib256 / load_json(p)["results"][i]["mean"] / GIB)
            if xs:
                ax.plot(xs, ys, style, marker="o", markersize=3, color=OURS,
                        label=f"samebytes cat {'' if tag == 'plain' else '-v '}(--read/--write-buffer-size)")
            g = os.path.join(sweeps, f"cat-gnu-{tag}.json")
            if os.path.exists(g):
                v = mib256 / load_json(g)["results"][i]["mean"] / GIB
                ax.axhline(v, linestyle=style, color=GNU,
                           label=f"GNU cat {'' if tag == 'plain' else '-v '}(fixed 128 KiB)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("buffer size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("throughput (GiB/s, log scale), 256 MiB of text")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
    fig.suptitle("cat: throughput against buffer size (plain copies go through the kernel, "
                 "so only -v uses the buffers)", fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, format="svg", metadata=METADATA)
    plt.close(fig)
    print(path)


def yes_lines(sweeps, path):
    lens = [2, 4, 16, 64, 256, 1024, 4096, 16384, 65536]
    labels = ["samebytes yes", "GNU yes", "uutils yes"]
    series = [[], [], []]
    xs = []
    for n in lens:
        p = os.path.join(sweeps, f"yes-{n}.json")
        if not os.path.exists(p):
            continue
        xs.append(n)
        res = load_json(p)["results"]
        for i in range(3):
            series[i].append(4 * GIB / res[i]["mean"] / GIB if i < len(res) else None)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for ys, label, color in zip(series, labels, (OURS, GNU, PEER)):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", markersize=3, color=color, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("line length, newline included (bytes)")
    ax.set_ylabel("throughput into a pipe (GiB/s)")
    ax.set_title("yes: throughput against line length (4 GiB into pv)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)


def grep_lines(sweeps, path):
    longest = [1024, 2048, 4096, 8192, 16384, 32768, 65536]
    labels = ["samebytes grep", "GNU grep", "ripgrep"]
    series = [[], [], []]
    xs = []
    for n in longest:
        p = os.path.join(sweeps, f"grep-{n}.json")
        if not os.path.exists(p):
            continue
        xs.append(n)
        res = load_json(p)["results"]
        for i in range(3):
            series[i].append(res[i]["mean"])
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for ys, label, color in zip(series, labels, (OURS, GNU, PEER)):
        if ys:
            ax.plot(xs, ys, marker="o", markersize=3, color=color, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("longest line (bytes); lines of 0 to N−1 bytes, N²/2 bytes in all")
    ax.set_ylabel("time (s), log scale")
    ax.set_title("grep b on the seed's increasing-line input (no line matches)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)


def main():
    results, plots = sys.argv[1], sys.argv[2]
    os.makedirs(plots, exist_ok=True)
    for section in ("wc", "cat", "yes", "grep", "grep-tree"):
        p = os.path.join(results, f"ratios-{section}.jsonl")
        if os.path.exists(p):
            rows = [json.loads(line) for line in open(p) if line.strip()]
            if rows:
                ratio_chart(rows, section, os.path.join(plots, f"ratios-{section}.svg"))
    sweeps = os.path.join(results, "sweeps")
    if os.path.isdir(sweeps):
        cat_buffers(sweeps, os.path.join(plots, "cat-buffers.svg"))
        yes_lines(sweeps, os.path.join(plots, "yes-lines.svg"))
        grep_lines(sweeps, os.path.join(plots, "grep-lines.svg"))


if __name__ == "__main__":
    main()
