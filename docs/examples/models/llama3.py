# A torchtitan-style Llama-3 block stack, written for gluelab's model subject (docs/user-guide.md,
# "The model subject"). The layout follows torchtitan's llama3 model: RMSNorm, grouped-query attention
# with RoPE in complex form (freqs_cis, view_as_complex), a SwiGLU feed-forward, and the layers in an
# nn.ModuleDict keyed "0", "1", ... The stack takes hidden states (T, D) and returns them: no
# embedding and no output head, only the blocks whose glue gluelab measures.
#
#   gluelab experiment NAME --model-file docs/examples/models/llama3.py:build --inputs 'x:T,4096:bf16' --tokens 2k,8k,32k   (GPU)
#   gluelab experiment NAME --model-file docs/examples/models/llama3.py:build --inputs 'x:T,64:fp32' --tokens 64,128         (CPU)
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class ModelArgs:
    dim: int = 4096
    n_layers: int = 2
    n_heads: int = 32
    n_kv_heads: int = 8
    multiple_of: int = 1024
    ffn_dim_multiplier: float = 1.3
    norm_eps: float = 1e-5
    rope_theta: float = 500000.0


# Llama-3 8B's dims on a GPU; tiny ones on the CPU, where Inductor compiles with gcc.
LLAMA3_8B = ModelArgs()
TINY = ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, multiple_of=16, ffn_dim_multiplier=1.3)


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    seqlen = x.shape[1]
    freqs_cis = freqs_cis[0:seqlen]
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim).reshape(bs, slen, n_kv_heads * n_rep, head_dim)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_heads = args.n_heads
        self.n_kv_heads = args.n_kv_heads
        self.n_rep = self.n_heads // self.n_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)

    def rope(self, xq, xk, freqs_cis):
        return apply_rotary_emb(xq, xk, freqs_cis)

    def forward(self, x, freqs_cis):
        bs, seqlen, _ = x.shape
        xq = self.wq(x).view(bs, seqlen, -1, self.head_dim)
        xk = self.wk(x).view(bs, seqlen, -1, self.head_dim)
        xv = self.wv(x).view(bs, seqlen, -1, self.head_dim)
        xq, xk = self.rope(xq, xk, freqs_cis)
        keys = repeat_kv(xk, self.n_rep)
        values = repeat_kv(xv, self.n_rep)
        xq, xk, xv = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        output = F.scaled_dot_product_attention(xq, xk, xv, is_causal=True)
        output = output.transpose(1, 2).contiguous().view(bs, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of, ffn_dim_multiplier):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, layer_id, args):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = FeedForward(args.dim, 4 * args.dim, args.multiple_of, args.ffn_dim_multiplier)
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, freqs_cis):
        h = x + self.attention(self.attention_norm(x), freqs_cis)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    """The block stack: layers in a ModuleDict as torchtitan keeps them; freqs_cis a buffer for T positions."""

    def __init__(self, args, max_seq_len):
        super().__init__()
        self.args = args
        self.layers = nn.ModuleDict({str(i): TransformerBlock(i, args) for i in range(args.n_layers)})
        self.max_seq_len = max_seq_len

    def init_freqs(self):
        # Registered after the cast to the model's dtype: Module.to(bf16) would drop a complex buffer's imaginary part.
        self.register_buffer("freqs_cis", precompute_freqs_cis(self.args.dim // self.args.n_heads, self.max_seq_len, self.args.rope_theta),
                             persistent=False)

    def forward(self, x):
        h = x.unsqueeze(0)  # (T, D) hidden states of one sequence
        for layer in self.layers.values():
            h = layer(h, self.freqs_cis)
        return h.squeeze(0)


def build(T):
    """The stack for T tokens: Llama-3 8B's dims in bf16 on a GPU, tiny dims in fp32 on the CPU."""
    cuda = torch.cuda.is_available()
    args = LLAMA3_8B if cuda else TINY
    torch.manual_seed(0)
    # Built and initialised on the device, not on the CPU and then copied.
    with torch.device("cuda" if cuda else "cpu"):
        model = Transformer(args, T)
        for p in model.parameters():
            nn.init.normal_(p, std=0.02) if p.dim() > 1 else None
    model = model.to(torch.bfloat16 if cuda else torch.float32)
    model.init_freqs()
    return model
