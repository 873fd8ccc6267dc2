#!/usr/bin/env python3
"""Writes fuzz_spm's seeds: tests/fuzz/corpus/spm/.

    /usr/bin/python3 tests/fuzz/make-spm-corpus.py   (needs python3-sentencepiece)

Small models trained by the SentencePiece library on a generated text (one
thread, a fixed text: the same files each run with the same library): a
Llama-like BPE with byte fallback and no normalisation (llama.model, which
fuzz_spm also loads to encode each input as text), a unigram model whose
charsmap holds a few custom rules and a user-defined piece (rules.model,
loaded too), a word and a char model; and a few texts.  Kept apart from
make-corpus.py, which runs without the library.
"""
import os
import random
import shutil
import tempfile

import sentencepiece as spm

top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
out = os.path.join(top, "tests", "fuzz", "corpus", "spm")
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)

r = random.Random(1)
words = ("the cat sat on a mat olá mundo ação coração você café maçã "
         "ＡＢＣ １２３ 😀 ﬁne 12 345").split()
# relative names, as the model records its input and prefix
work = tempfile.mkdtemp()
os.chdir(work)
text = "c.txt"
with open(text, "w", encoding="utf-8") as f:
    for _ in range(300):
        f.write(" ".join(r.choice(words) for _ in range(r.randint(1, 8))) + "\n")
rules = "rules.tsv"
with open(rules, "w") as f:
    f.write("41\t61\nFF21\t41\nFF22\t42\nFB01\t66 69\n3000\t20\n9\t20\nE7 E3 6F\t43 41 4F\n")
common = dict(input=text, num_threads=1, hard_vocab_limit=False, minloglevel=2)
models = {
    "llama": dict(model_type="bpe", vocab_size=320, byte_fallback=True,
                  normalization_rule_name="identity", remove_extra_whitespaces=False,
                  allow_whitespace_only_pieces=True),
    "rules": dict(model_type="unigram", vocab_size=60, normalization_rule_tsv=rules,
                  user_defined_symbols=["<sep>"]),
    "word": dict(model_type="word", vocab_size=30, normalization_rule_name="identity"),
    "char": dict(model_type="char", vocab_size=40, normalization_rule_name="identity"),
}
for name, args in models.items():
    spm.SentencePieceTrainer.train(model_prefix=name, **common, **args)
    shutil.move(name + ".model", os.path.join(out, name + ".model"))
os.chdir(top)
shutil.rmtree(work)

texts = {
    "text-mixed": "Olá  mundo, ＦＵＬＬ 😀 123 ﬁne <sep> ação",
    "text-spaces": "   a  \t b   ",
    "text-invalid": b"a\xff\xc3(b\xe2\x82",
}
for name, t in texts.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(t.encode() if isinstance(t, str) else t)
