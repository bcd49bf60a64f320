#!/usr/bin/env python3
"""Generate benchmark inputs deterministically.

    gen_text.py text SIZE OUT   English-like ASCII text, lines of 0-120 bytes
    gen_text.py utf8 SIZE OUT   UTF-8-heavy text: Cyrillic, CJK, Greek, accents
"""
import random
import sys

WORDS = """the of and to in is that it was for on are with as his they be at one
have this from or had by not word but what some we can out other were all there
when up use your how said an each she which do their time if will way about many
then them write would like so these her long make thing see him two has look more
day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live
where after back little only round man year came show every good me give our under
name very through just form sentence great think say help low line differ turn
cause much mean before move right boy old too same tell does set three want air
well also play small end put home read hand port large spell add even land here
must big high such follow act why ask men change went light kind off need house
picture try us again animal point mother world near build self earth father""".split()

UTF8_WORDS = """привет мир текст строка слово 中文 文字 测试 数据 処理 日本語 文章
κόσμος λέξη γραμμή café naïve résumé straße Zürich façade 한국어 문장 단어
العربية كلمة नमस्ते दुनिया ✓ → ∑ ∞ 😀""".split()


def main():
    kind, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(20261129)
    vocab = WORDS if kind == "text" else UTF8_WORDS + WORDS[:20]
    # Build a 4 MiB block of lines, then repeat it with variations.
    lines = []
    block = 0
    while block < 4 << 20:
        n = rng.choice([0, 3, 6, 8, 10, 12, 14, 18])
        line = " ".join(rng.choice(vocab) for _ in range(n))
        if rng.random() < 0.05:
            line = "\t" + line
        lines.append(line)
        block += len(line.encode()) + 1
    chunk = ("\n".join(lines) + "\n").encode()
    with open(out, "wb") as f:
        written = 0
        while written < size:
            part = chunk[: size - written]
            f.write(part)
            written += len(part)


main()
