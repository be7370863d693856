# A DeepSeek-V3-style MoE block stack, written for gluelab's model subject (docs/user-guide.md,
# "The model subject"). The layout follows DeepSeek-V3's reference model: MLA-style attention (low-rank
# q and kv projections with their RMSNorms, each head split into a no-RoPE part and a RoPE part, the
# RoPE key shared by all heads, the parts joined with cat), a sigmoid gate with group-limited top-8
# routing (expert bias for selection, scores renormalised and scaled), routed experts and a shared
# expert, SwiGLU in every expert. Layers sit in an nn.ModuleDict; the stack maps (T, D) to (T, D).
#
#   gluelab experiment NAME --model-file docs/examples/models/deepseek_v3.py:build --inputs 'x:T,7168:bf16' --tokens 2k,8k,32k  (GPU)
#   gluelab experiment NAME --model-file docs/examples/models/deepseek_v3.py:build --inputs 'x:T,64:fp32' --tokens 64,128        (CPU)
#
# The routed experts' weights are stacked as torchtitan keeps them. On a GPU in bf16 they dispatch as
# torchtitan does: the (token, slot) pairs sorted by expert into one padded buffer and three grouped GEMMs
# (torch._grouped_mm), every shape fixed by the token count, so the block compiles once per count and a
# CUDA graph captures it. Other dtypes (the CPU's fp32, step 08's fp32 and fp64 copies) loop over the experts
# with torch.where, as DeepSeek-V3's reference does; that loop's sizes depend on the routing, so torch 2.13's
# dynamo traces it with unbacked sizes and compiling it takes minutes with Inductor's CPU backend: on the
# CPU compile a region such as model.norm_rope_cat rather than model.MoE.forward.
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class ModelArgs:
    dim: int = 7168
    n_layers: int = 1
    n_heads: int = 128
    q_lora_rank: int = 1536
    kv_lora_rank: int = 512
    qk_nope_head_dim: int = 128
    qk_rope_head_dim: int = 64
    v_head_dim: int = 128
    moe_inter_dim: int = 2048
    n_routed_experts: int = 256
    n_shared_experts: int = 1
    n_activated_experts: int = 8
    n_expert_groups: int = 8
    n_limited_groups: int = 4
    route_scale: float = 2.5
    rope_theta: float = 10000.0
    norm_eps: float = 1e-6


# DeepSeek-V3's dims on a GPU (one MoE layer: its experts alone are 22.5 GB in bf16); tiny ones on the CPU.
DEEPSEEK_V3 = ModelArgs()
TINY = ModelArgs(dim=64, n_layers=2, n_heads=4, q_lora_rank=32, kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16,
                 moe_inter_dim=32, n_routed_experts=32, n_shared_experts=1, n_activated_experts=8, n_expert_groups=8, n_limited_groups=4)


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    t = torch.arange(end)
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def apply_rotary_emb(x, freqs_cis):
    """x: (B, T, heads, rope_dim) in complex form, as DeepSeek-V3's reference applies it."""
    dtype = x.dtype
    x = torch.view_as_complex(x.float().view(*x.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, x.size(1), 1, x.size(-1))
    return torch.view_as_real(x * freqs_cis).flatten(3).to(dtype)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def norm_rope_cat(q_nope, q_pe, kv, k_pe, kv_norm, freqs_cis):
    """The glue between MLA's projections: RoPE on the query's and the shared key's RoPE parts, the kv
    latent's RMSNorm, and the query joined back with cat. The rewrite file's region replaces it."""
    q_pe = apply_rotary_emb(q_pe, freqs_cis)
    k_pe = apply_rotary_emb(k_pe.unsqueeze(2), freqs_cis)
    return torch.cat([q_nope, q_pe], dim=-1), kv_norm(kv), k_pe


class MLA(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_heads = args.n_heads
        self.qk_nope_head_dim, self.qk_rope_head_dim, self.v_head_dim = args.qk_nope_head_dim, args.qk_rope_head_dim, args.v_head_dim
        self.qk_head_dim = args.qk_nope_head_dim + args.qk_rope_head_dim
        self.kv_lora_rank = args.kv_lora_rank
        self.wq_a = nn.Linear(args.dim, args.q_lora_rank, bias=False)
        self.q_norm = RMSNorm(args.q_lora_rank, args.norm_eps)
        self.wq_b = nn.Linear(args.q_lora_rank, self.n_heads * self.qk_head_dim, bias=False)
        self.wkv_a = nn.Linear(args.dim, args.kv_lora_rank + args.qk_rope_head_dim, bias=False)
        self.kv_norm = RMSNorm(args.kv_lora_rank, args.norm_eps)
        self.wkv_b = nn.Linear(args.kv_lora_rank, self.n_heads * (args.qk_nope_head_dim + args.v_head_dim), bias=False)
        self.wo = nn.Linear(self.n_heads * args.v_head_dim, args.dim, bias=False)
        self.softmax_scale = self.qk_head_dim ** -0.5

    def forward(self, x, freqs_cis):
        bsz, seqlen, _ = x.shape
        q = self.wq_b(self.q_norm(self.wq_a(x))).view(bsz, seqlen, self.n_heads, self.qk_head_dim)
        q_nope, q_pe = torch.split(q, [self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
        kv = self.wkv_a(x)
        kv, k_pe = torch.split(kv, [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        q, kv, k_pe = norm_rope_cat(q_nope, q_pe, kv, k_pe, self.kv_norm, freqs_cis)
        kv = self.wkv_b(kv).view(bsz, seqlen, self.n_heads, self.qk_nope_head_dim + self.v_head_dim)
        k_nope, v = torch.split(kv, [self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        k = torch.cat([k_nope, k_pe.expand(-1, -1, self.n_heads, -1)], dim=-1)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True, scale=self.softmax_scale)
        return self.wo(out.transpose(1, 2).flatten(2))


class Gate(nn.Module):
    """Sigmoid scores; the expert bias steers selection only; top-k groups by their two best scores, then top-8 experts inside them."""

    def __init__(self, args):
        super().__init__()
        self.topk, self.n_groups, self.topk_groups, self.route_scale = args.n_activated_experts, args.n_expert_groups, args.n_limited_groups, args.route_scale
        self.weight = nn.Parameter(torch.empty(args.n_routed_experts, args.dim))
        self.bias = nn.Parameter(torch.zeros(args.n_routed_experts), requires_grad=False)

    def forward(self, x):
        scores = F.linear(x, self.weight).sigmoid()
        original_scores = scores
        scores = scores + self.bias
        scores = scores.view(x.size(0), self.n_groups, -1)
        group_scores = scores.topk(2, dim=-1)[0].sum(dim=-1)
        indices = group_scores.topk(self.topk_groups, dim=-1)[1]
        mask = scores.new_ones(x.size(0), self.n_groups, dtype=torch.bool).scatter_(1, indices, False)
        scores = scores.masked_fill_(mask.unsqueeze(-1), float("-inf")).flatten(1)
        indices = torch.topk(scores, self.topk, dim=-1)[1]
        weights = original_scores.gather(1, indices)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        return (weights * self.route_scale).type_as(x), indices


class Expert(nn.Module):
    def __init__(self, dim, inter_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, inter_dim, bias=False)
        self.w2 = nn.Linear(inter_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, inter_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


# Rows of each expert's group padded to a multiple of this: the grouped GEMM's backward slices its
# inputs along the token dim, and bf16 rows must start 16-byte aligned there (torchtitan pads to 8 too).
GROUP_ALIGN = 8


def combine(out, weights, order, token):
    """The experts' rows (in expert order: row j is pair order[j] = token * k + slot) back to their tokens,
    each weighted by its routing score and summed over the token's k slots. The rewrite file replaces it."""
    return out.new_zeros(weights.size(0), out.size(1)).index_add(0, token, out * weights.flatten()[order, None])


class GroupedExperts(nn.Module):
    """The routed experts' SwiGLU weights stacked (experts, out, in), as torchtitan keeps them for grouped GEMMs."""

    def __init__(self, n_experts, dim, inter_dim):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(n_experts, inter_dim, dim))
        self.w2 = nn.Parameter(torch.empty(n_experts, dim, inter_dim))
        self.w3 = nn.Parameter(torch.empty(n_experts, inter_dim, dim))

    def forward(self, x, weights, indices):
        # CUDA's grouped GEMM takes bf16 only: other dtypes (the CPU's fp32, step 08's fp32 and fp64 copies) loop.
        if x.is_cuda and x.dtype == torch.bfloat16:
            return self.grouped(x, weights, indices)
        return self.looped(x, weights, indices)

    def looped(self, x, weights, indices):
        """The reference implementation's dispatch: each expert on the tokens routed to it (sizes depend on the routing)."""
        y = torch.zeros_like(x)
        for i, (w1, w2, w3) in enumerate(zip(self.w1.unbind(0), self.w2.unbind(0), self.w3.unbind(0))):
            idx, top = torch.where(indices == i)
            h = F.linear(F.silu(F.linear(x[idx], w1)) * F.linear(x[idx], w3), w2)
            y = y.index_add(0, idx, h * weights[idx, top, None])
        return y

    def grouped(self, x, weights, indices):
        """torchtitan's dispatch: the (token, slot) pairs sorted by expert into one padded buffer, three grouped
        GEMMs over it, the rows scattered back. Every shape is fixed by T, so it compiles once and a CUDA graph
        can capture it (no host sync on the routing)."""
        n_experts, k = self.w1.size(0), indices.size(1)
        flat = indices.flatten()
        order = torch.argsort(flat, stable=True)
        expert = flat[order]
        counts = torch.zeros(n_experts, dtype=torch.int64, device=x.device).scatter_add_(0, flat, torch.ones_like(flat))
        padded = (counts + GROUP_ALIGN - 1) // GROUP_ALIGN * GROUP_ALIGN
        ends = torch.cumsum(padded, 0)
        rank = torch.arange(flat.numel(), device=x.device) - (torch.cumsum(counts, 0) - counts)[expert]
        rows = (ends - padded)[expert] + rank
        token = order // k
        buf = x.new_zeros(flat.numel() + n_experts * (GROUP_ALIGN - 1), x.size(1)).index_copy(0, rows, x[token])
        offs = ends.to(torch.int32)
        h = F.silu(torch._grouped_mm(buf, self.w1.transpose(-2, -1), offs=offs)) * torch._grouped_mm(buf, self.w3.transpose(-2, -1), offs=offs)
        out = torch._grouped_mm(h, self.w2.transpose(-2, -1), offs=offs)[rows]
        return combine(out, weights, order, token)


class MoE(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.gate = Gate(args)
        self.experts = GroupedExperts(args.n_routed_experts, args.dim, args.moe_inter_dim)
        self.shared_experts = Expert(args.dim, args.n_shared_experts * args.moe_inter_dim)

    def forward(self, x):
        shape = x.size()
        x = x.view(-1, shape[-1])
        weights, indices = self.gate(x)
        return (self.experts(x, weights, indices) + self.shared_experts(x)).view(shape)


class Block(nn.Module):
    def __init__(self, layer_id, args):
        super().__init__()
        self.attn = MLA(args)
        self.ffn = MoE(args)
        self.attn_norm = RMSNorm(args.dim, args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, args.norm_eps)

    def forward(self, x, freqs_cis):
        x = x + self.attn(self.attn_norm(x), freqs_cis)
        return x + self.ffn(self.ffn_norm(x))


class Transformer(nn.Module):
    def __init__(self, args, max_seq_len):
        super().__init__()
        self.args = args
        self.max_seq_len = max_seq_len
        self.layers = nn.ModuleDict({str(i): Block(i, args) for i in range(args.n_layers)})

    def init_freqs(self):
        # After the cast to the model's dtype, which would drop a complex buffer's imaginary part.
        self.register_buffer("freqs_cis", precompute_freqs_cis(self.args.qk_rope_head_dim, self.max_seq_len, self.args.rope_theta), persistent=False)

    def forward(self, x):
        h = x.unsqueeze(0)
        freqs_cis = self.freqs_cis[: h.size(1)]  # built for max_seq_len; a shorter input takes its first rows
        for layer in self.layers.values():
            h = layer(h, freqs_cis)
        return h.squeeze(0)


def build(T):
    """The stack for T tokens: DeepSeek-V3's dims in bf16 on a GPU (one MoE layer), tiny dims in fp32 on the CPU (two)."""
    cuda = torch.cuda.is_available()
    args = DEEPSEEK_V3 if cuda else TINY
    torch.manual_seed(0)
    # Built and initialised on the device: DeepSeek-V3's experts alone are 22.5 GB, over a minute of CPU work.
    with torch.device("cuda" if cuda else "cpu"):
        model = Transformer(args, T)
        for name, p in model.named_parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=1 / math.sqrt(p.shape[-1]))
    model = model.to(torch.bfloat16 if cuda else torch.float32)
    model.init_freqs()
    return model
