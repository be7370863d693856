# A 16-layer llama-style model for `gluelab torch compare-compile llama16.py:model`: pre-norm blocks
# of RMSNorm, fused QKV, RoPE (real form), SDPA, output projection, RMSNorm, SwiGLU MLP. Each block
# keeps its layer_idx (as HF models do) but its forward does not read it.
import torch
import torch.nn.functional as F

D, H, FF, LAYERS = 1024, 8, 2816, 16


class RMSNorm(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * self.weight


class Block(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.n1, self.n2 = RMSNorm(D), RMSNorm(D)
        self.qkv = torch.nn.Linear(D, 3 * D, bias=False)
        self.o = torch.nn.Linear(D, D, bias=False)
        self.up = torch.nn.Linear(D, 2 * FF, bias=False)
        self.down = torch.nn.Linear(FF, D, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, H, D // H).unbind(2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        h = x + self.o(a.transpose(1, 2).reshape(b, t, D))
        g, u = self.up(self.n2(h)).chunk(2, -1)
        return h + self.down(F.silu(g) * u)


def rope(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(Block(i) for i in range(LAYERS))
        self.norm = RMSNorm(D)

    def forward(self, x):
        t = x.shape[1]
        ang = torch.arange(t, device=x.device, dtype=torch.float32)[:, None] * torch.linspace(0, 1, D // H // 2, device=x.device)
        cos, sin = ang.cos()[:, None, :].to(x.dtype), ang.sin()[:, None, :].to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.norm(x)


def model():
    return Model().to(torch.bfloat16)
