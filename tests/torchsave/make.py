#!/usr/bin/env python3
"""make.py OUTDIR - torch.save files for the torch.save reader's tests.

Written with PyTorch itself (Debian python3-torch 1.13), as users save them:

  sd.pt, sd.safetensors  a small nn.Transformer's state_dict in DESIGN.md's
                         names (d 16, 4 heads, 2+2 layers, d_ff 32) plus
                         src_embed/tgt_embed/generator; the safetensors file
                         holds the same tensors (written with struct + json)
  ckpt.pt                nanoGPT's kind of checkpoint dict: {'model': sd,
                         'optimizer': AdamW state after one step,
                         'model_args': {...}, 'iter_num': 5, 'config': {...},
                         'best_val_loss': a 0-d tensor}
  sd_state.pt            {'state_dict': sd, 'epoch': 3}
  zip64.pt               sd.pt rewritten with ZIP64 records everywhere
  namespace.pt           {'model': ..., 'args': argparse.Namespace, 'np':
                         a numpy scalar}: instances beside the state_dict
  odd.pt, odd.ref.safetensors, odd.dtypes
                         tensors of every dtype and layout: F16, BF16, F64,
                         I64, I32, BOOL, tied (two names, one storage), a
                         transposed parameter (non-contiguous), a slice (a
                         storage offset), a 0-d and an empty tensor, a
                         column of a matrix; the ref file has torch's own
                         .float() values, odd.dtypes "name dtype" lines
  meta.pkl               nanoGPT's char vocabulary (pickle.dump of
                         vocab_size/itos/stoi), "\\n" among the tokens
  meta.txt               its itos, one escaped token a line, for checking
  bad/NAME.pt            broken and hostile files, made from bytes (never
                         by unpickling anything); bad/expect.txt has
                         "NAME<TAB>words of the expected error" lines
"""
import argparse
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import numpy
import torch

out = sys.argv[1]
os.makedirs(os.path.join(out, "bad"), exist_ok=True)
torch.manual_seed(0)

D, H, L, F, V = 16, 4, 2, 32, 13


def write_safetensors(path, tensors):
    """Little-endian safetensors file of float32/int tensors."""
    names = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64",
             torch.int32: "I32", torch.float16: "F16", torch.bfloat16: "BF16"}
    header, blobs, off = {}, [], 0
    for k, t in tensors.items():
        t = t.detach().contiguous()
        b = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 \
            else t.numpy().tobytes()
        header[k] = {"dtype": names[t.dtype], "shape": list(t.shape),
                     "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# ---- a model in the contract's names ----
tr = torch.nn.Transformer(d_model=D, nhead=H, num_encoder_layers=L,
                          num_decoder_layers=L, dim_feedforward=F, dropout=0.0)
sd = {"src_embed.weight": torch.randn(V, D), "tgt_embed.weight": torch.randn(V, D)}
sd.update(tr.state_dict())
gen = torch.nn.Linear(D, V)
sd["generator.weight"] = gen.weight.detach()
sd["generator.bias"] = gen.bias.detach()
sd = {k: v.detach().clone() for k, v in sd.items()}
torch.save(sd, os.path.join(out, "sd.pt"))
write_safetensors(os.path.join(out, "sd.safetensors"), sd)

params = [torch.nn.Parameter(v.clone()) for v in list(sd.values())[:3]]
opt = torch.optim.AdamW(params, lr=1e-3)
sum((p * p).sum() for p in params).backward()
opt.step()
torch.save({"model": sd, "optimizer": opt.state_dict(),
            "model_args": {"n_layer": L, "n_head": H, "n_embd": D, "bias": True,
                           "vocab_size": V, "dropout": 0.0},
            "iter_num": 5, "best_val_loss": torch.tensor(2.5),
            "config": {"out_dir": "out", "compile": False, "lr": 6e-4}},
           os.path.join(out, "ckpt.pt"))
torch.save({"state_dict": sd, "epoch": 3}, os.path.join(out, "sd_state.pt"))
# the same archive with ZIP64 records everywhere (what torch writes past
# 4 GiB): zip64 extra fields in local headers and the central directory,
# the ZIP64 end-of-central-directory record and locator; Python's zipfile
# writes them all when its limits are 0.  The data lose torch's 64-byte
# alignment on the way.
src = zipfile.ZipFile(os.path.join(out, "sd.pt"))
limits = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
zipfile.ZIP64_LIMIT = zipfile.ZIP_FILECOUNT_LIMIT = 0
with zipfile.ZipFile(os.path.join(out, "zip64.pt"), "w", zipfile.ZIP_STORED) as z64:
    for info in src.infolist():
        with z64.open(info.filename, "w", force_zip64=True) as w:
            w.write(src.read(info.filename))
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits
# an instance of a class in an entry the model does not need: skipped
torch.save({"model": {"w": torch.ones(2)}, "args": argparse.Namespace(lr=0.1, name="x"),
            "np": numpy.float32(1.5)}, os.path.join(out, "namespace.pt"))

# ---- every dtype and layout ----
base = torch.randn(4, 6)
lin = torch.nn.Linear(6, 4)
odd = {
    "f32": torch.randn(3, 5),
    "f16": torch.randn(2, 7).half(),
    "bf16": torch.randn(5).bfloat16(),
    "f64": torch.randn(3, 2, dtype=torch.float64),
    "i64": torch.arange(-3, 9, dtype=torch.int64).reshape(3, 4),
    "i32": torch.tensor([7, -1, 1 << 20], dtype=torch.int32),
    "bool": torch.tensor([[True, False, True]]),
    "tied.a": base,
    "tied.b": base,                     # the same tensor under a second name
    "transposed": base.t(),             # [6, 4], strides (1, 6)
    "row": base[2],                     # storage offset 12
    "col": base[:, 3],                  # [4], stride 6, offset 3
    "block": base[1:3, 2:5],            # [2, 3], strides (6, 1), offset 8
    "scalar": torch.tensor(3.25),
    "empty": torch.zeros(0, 4),
    "param": lin.weight,                # an nn.Parameter, saved as it is
    "param.t": torch.nn.Parameter(lin.weight.detach().t()),
    "f16.t": torch.randn(3, 4).half().t(),
}
torch.save(odd, os.path.join(out, "odd.pt"))
write_safetensors(os.path.join(out, "odd.ref.safetensors"),
                  {k: v.detach().float() for k, v in odd.items()})
with open(os.path.join(out, "odd.dtypes"), "w") as f:
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
             torch.bool: "BOOL"}
    for k, v in odd.items():
        f.write("%s %s\n" % (k, names[v.dtype]))

# ---- nanoGPT's meta.pkl ----
chars = sorted(set("hello world\nthe quick brown fox: é!\t"))
itos = {i: c for i, c in enumerate(chars)}
with open(os.path.join(out, "meta.pkl"), "wb") as f:
    pickle.dump({"vocab_size": len(chars), "itos": itos,
                 "stoi": {c: i for i, c in enumerate(chars)}}, f)
with open(os.path.join(out, "meta.txt"), "w", encoding="utf-8") as f:
    for i in range(len(chars)):
        f.write(itos[i].replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") + "\n")

# ---- broken and hostile files (bytes only; nothing is unpickled) ----
expect = []


def bad(name, data, words):
    with open(os.path.join(out, "bad", name + ".pt"), "wb") as f:
        f.write(data)
    expect.append("%s\t%s" % (name, words))


def entry(z, name, data):
    """z.writestr with a fixed time, so that each run writes the same bytes."""
    zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    zi.compress_type = z.compression
    zi.external_attr = 0o600 << 16
    z.writestr(zi, data)


def archive(pkl, storages=(), folder="archive", method=zipfile.ZIP_STORED,
            extra=()):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        entry(z, folder + "/data.pkl", pkl)
        for k, data in storages:
            entry(z, folder + "/data/" + k, data)
        entry(z, folder + "/version", "3\n")
        for k, data in extra:
            entry(z, k, data)
    return b.getvalue()


def bu(s):
    s = s.encode()
    return b"X" + struct.pack("<I", len(s)) + s


def tensor_pkl(key, numel, offset, size, stride, storage="FloatStorage"):
    """{'w': _rebuild_tensor_v2(storage KEY, offset, size, stride, False, OrderedDict())}"""
    def tup(xs):
        return b"(" + b"".join(b"J" + struct.pack("<i", x) for x in xs) + b"t"
    return (b"\x80\x02}(" + bu("w") + b"ctorch._utils\n_rebuild_tensor_v2\n(("
            + bu("storage") + b"ctorch\n" + storage.encode() + b"\n" + bu(key) + bu("cpu")
            + b"J" + struct.pack("<i", numel) + b"tQ" + b"J" + struct.pack("<i", offset)
            + tup(size) + tup(stride) + b"\x89ccollections\nOrderedDict\n)RtRu.")


good = open(os.path.join(out, "sd.pt"), "rb").read()
bad("truncated", good[: len(good) // 2], "end-of-central-directory")
bad("truncated_tail", good[:-10], "end-of-central-directory")
bad("empty", b"", "empty")
bad("not_zip", b"PK\x03\x04" + b"\0" * 100, "end-of-central-directory")
bad("deflate", archive(b"\x80\x02}q\x00.", method=zipfile.ZIP_DEFLATED), "compressed")
# zip bomb: an entry that declares 4 GB in a file of a few hundred bytes,
# in its directory record and its local header alike
z = bytearray(archive(tensor_pkl("0", 4, 0, [4], [1]), [("0", b"\0" * 16)]))
i = z.find(b"PK\x01\x02")
while i >= 0:
    if z[i + 46:i + 46 + 14] == b"archive/data/0":
        z[i + 20:i + 28] = struct.pack("<II", 0xFFFFFFF0, 0xFFFFFFF0)
        lh = struct.unpack("<I", z[i + 42:i + 46])[0]
        z[lh + 18:lh + 26] = struct.pack("<II", 0xFFFFFFF0, 0xFFFFFFF0)
    i = z.find(b"PK\x01\x02", i + 4)
bad("bomb_size", bytes(z), "archive/data/0")
# overlapping entries: two directory records for one local header
z = archive(b"\x80\x02}q\x00.")
i = z.find(b"PK\x01\x02")
j = z.find(b"PK\x05\x06")
rec = z[i:z.find(b"PK\x01\x02", i + 4)]
cdoff = i
eocd = bytearray(z[j:])
n = struct.unpack("<H", eocd[10:12])[0] + 1
eocd[8:10] = eocd[10:12] = struct.pack("<H", n)
eocd[12:16] = struct.pack("<I", j - cdoff + len(rec))
bad("overlap", z[:j] + rec + bytes(eocd), "overlap")
# thousands of entries, each a few bytes: fine structurally, no data.pkl
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as zz:
    for k in range(5000):
        entry(zz, "archive/x%d" % k, b"")
bad("many_entries", b.getvalue(), "data.pkl")
# hostile pickles: in Python these would run code when loaded
marker = os.path.join(out, "bad", "EXECUTED")
bad("os_system", archive(b"\x80\x02cos\nsystem\n" + bu("touch " + marker) + b"\x85R."),
    "os.system")
bad("posix_system", archive(b"\x80\x02cposix\nsystem\n" + bu("touch " + marker) + b"\x85R."),
    "posix.system")
bad("eval", archive(b"\x80\x02}(" + bu("model") + b"}" + bu("x") + b"cbuiltins\neval\n"
                    + bu("__import__('os').system('touch " + marker + "')") + b"\x85Rsu."),
    "builtins.eval")
bad("popen", archive(b"\x80\x04\x95\x30\0\0\0\0\0\0\0}(" + b"\x8c\x0asubprocess\x8c\x05Popen\x93"
                     + b"]" + bu("touch") + b"a" + bu(marker) + b"a\x85R" + b"u."),
    "subprocess.Popen")
bad("whole_model", archive(b"\x80\x02c__main__\nNet\n)\x81}b."), "__main__.Net")
bad("reduce_in_ckpt", archive(b"\x80\x02}(" + bu("model") + tensor_pkl("0", 4, 0, [4], [1])[2:-1]
                              + bu("args") + b"cargparse\nNamespace\n)R" + b"u.",
                              [("0", b"\0" * 16)]), "argparse.Namespace")
bad("short_storage", archive(tensor_pkl("0", 4, 0, [2, 3], [3, 1]), [("0", b"\0" * 16)]),
    "storage")
bad("offset_past", archive(tensor_pkl("0", 4, 3, [2], [1]), [("0", b"\0" * 16)]), "storage")
bad("storage_size", archive(tensor_pkl("0", 8, 0, [4], [1]), [("0", b"\0" * 16)]), "bytes")
bad("alias", archive(tensor_pkl("0", 4, 0, [4, 4], [0, 1]), [("0", b"\0" * 16)]), "share")
bad("alias2", archive(tensor_pkl("0", 9, 0, [3, 3], [1, 2]), [("0", b"\0" * 36)]), "share")
bad("no_storage", archive(tensor_pkl("7", 4, 0, [4], [1]), [("0", b"\0" * 16)]), "storage")
bad("deep", archive(b"\x80\x02" + b"]" * 200000 + b"a" * 199999 + b"."), "")
bad("deep_mark", archive(b"\x80\x02" + b"(" * 300000 + b"."), "")
bad("values", archive(b"\x80\x02" + b"]" * 2200000 + b"."), "values")
bad("dup_flood", archive(b"\x80\x02]" + b"2" * 2200000 + b"."), "stack")
bad("memo_huge", archive(b"\x80\x02}r\xff\xff\xff\xff."), "memo")
bad("memo_get", archive(b"\x80\x02j\xff\xff\xff\x7f."), "memo")
bad("string_len", archive(b"\x80\x02X\xff\xff\xff\x7fabc."), "truncated")
bad("no_stop", archive(b"\x80\x02}"), "STOP")
bad("legacy", b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03." + b"\0" * 64,
    "legacy")
bad("torchscript", archive(b"\x80\x02c__torch__\nNet\n)\x81.", folder="x",
                           extra=[("x/constants.pkl", b"\x80\x02)."),
                                  ("x/code/__torch__.py", "")]), "TorchScript")
bad("big_endian", archive(tensor_pkl("0", 4, 0, [4], [1]), [("0", b"\0" * 16)],
                          extra=[("archive/byteorder", "big")]), "little-endian")
bad("no_tensors", archive(b"\x80\x02}(" + bu("iter_num") + b"K\x05u."), "no tensors")
bad("list_top", archive(b"\x80\x02]."), "list")
with open(os.path.join(out, "bad", "expect.txt"), "w") as f:
    f.write("\n".join(expect) + "\n")
