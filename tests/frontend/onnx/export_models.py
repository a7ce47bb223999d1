#!/usr/bin/env python3
"""Exports the ONNX models the import tests read (tests/frontend/onnx/onnx_import_test.cpp).

Usage: export_models.py OUT_DIR

Random weights (or none: export_params=False keeps the files small and the weights become graph
inputs); only shapes matter to the import. Written with Debian's python3-torch and
python3-torchvision:
  resnet18.onnx       torchvision ResNet-18, 1x3x224x224, weights as graph inputs
  mobilenet_v2.onnx   torchvision MobileNet-v2, 1x3x224x224, random weights as initializers
  bert_layer.onnx     a BERT-base encoder layer (hidden 768, 12 heads, FFN 3072), 1x128 tokens,
                      with separate query/key/value projections as BERT has them
  encoder_dyn.onnx    torch.nn.TransformerEncoder (2 layers, d_model 64, 4 heads, FFN 128,
                      batch_first) with a dynamic batch axis named "batch"
  oddities.onnx       one plain Conv and compute ops mapwright cannot map: a dilated Conv, a
                      ConvTranspose, a Conv with stride 2x1 and a 1-D Conv
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
import torchvision
from torch import nn


class BertLayer(nn.Module):
    def __init__(self, hidden=768, heads=12, ffn=3072):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)
        self.ffn1 = nn.Linear(hidden, ffn)
        self.ffn2 = nn.Linear(ffn, hidden)
        self.norm1 = nn.LayerNorm(hidden)
        self.norm2 = nn.LayerNorm(hidden)

    def forward(self, x):
        b, n, _ = x.shape

        def split(t):  # [b, n, hidden] -> [b, heads, n, head_dim]
            return t.view(b, n, self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        context = torch.matmul(scores.softmax(-1), v).transpose(1, 2).reshape(b, n, -1)
        x = self.norm1(x + self.out(context))
        return self.norm2(x + self.ffn2(F.gelu(self.ffn1(x))))


class Oddities(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dilated = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.up = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.tall = nn.Conv2d(8, 8, (3, 1), stride=(2, 1))
        self.conv1d = nn.Conv1d(8, 8, 3)

    def forward(self, x):
        x = self.tall(self.up(self.dilated(self.conv(x))))
        return self.conv1d(x.flatten(2))


def export(model, args, path, **kw):
    model.eval()  # (no torch.no_grad(): it selects fused kernels the exporter cannot write)
    torch.onnx.export(model, args, path, opset_version=14, **kw)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: export_models.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    image = torch.zeros(1, 3, 224, 224)
    export(torchvision.models.resnet18(weights=None), image, f"{out}/resnet18.onnx",
           export_params=False, input_names=["image"], output_names=["logits"])
    export(torchvision.models.mobilenet_v2(weights=None), image, f"{out}/mobilenet_v2.onnx",
           input_names=["image"], output_names=["logits"])
    export(BertLayer(), torch.zeros(1, 128, 768), f"{out}/bert_layer.onnx",
           export_params=False, input_names=["tokens"])
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2)
    export(encoder, torch.zeros(2, 16, 64), f"{out}/encoder_dyn.onnx", export_params=False,
           input_names=["tokens"], dynamic_axes={"tokens": {0: "batch"}})
    export(Oddities(), torch.zeros(1, 3, 16, 16), f"{out}/oddities.onnx", export_params=False,
           input_names=["image"])


if __name__ == "__main__":
    main()
