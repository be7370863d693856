# The analyst's rewrites for the example models (docs/examples/models/llama3.py, deepseek_v3.py):
# what a fix swaps in for a function of the model (docs/user-guide.md, "The model subject").
#
# - apply_rotary_emb_real: llama3.apply_rotary_emb in real arithmetic (cos/sin of freqs_cis on
#   interleaved pairs, no complex tensors), which Inductor fuses; the complex form goes through
#   view_as_complex and complex multiplication, which it lowers to separate kernels or falls back on.
# - norm_rope_cat_region: deepseek_v3.norm_rope_cat (RoPE on q's and k's RoPE parts, the kv latent's
#   RMSNorm, the cat of q's parts) in real arithmetic, compiled on its own with fullgraph=True: one
#   region around norm + RoPE + cat.
# - combine_by_slot: deepseek_v3.combine without index_add (in bf16 on CUDA an atomic add per element, the
#   top glue row of the DeepSeek-V3 profile): each expert row copied back to its (token, slot) place, a
#   scatter to distinct rows whose backward is a gather, then the weighted sum over the k slots.
# - RotaryReal / apply_rotary_emb_autograd: the real-arithmetic RoPE as an autograd.Function with a
#   hand-written backward (the gradient of a rotation is the rotation back), for an "autograd:" fix.
import torch


def rotate_real(x, cos, sin):
    """RoPE on x's interleaved pairs (x[..., 0::2], x[..., 1::2]) in fp32, returned in x's dtype."""
    x1, x2 = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2).type_as(x)


def cos_sin(freqs_cis, seqlen):
    """freqs_cis (T, rope_dim/2) complex as (1, T, 1, rope_dim/2) cos and sin for (B, T, heads, rope_dim) tensors."""
    f = torch.view_as_real(freqs_cis[:seqlen])
    return f[None, :, None, :, 0], f[None, :, None, :, 1]


def apply_rotary_emb_real(xq, xk, freqs_cis):
    cos, sin = cos_sin(freqs_cis, xq.shape[1])
    return rotate_real(xq, cos, sin), rotate_real(xk, cos, sin)


def norm_rope_cat_real(q_nope, q_pe, kv, k_pe, kv_norm, freqs_cis):
    cos, sin = cos_sin(freqs_cis, q_pe.shape[1])
    q = torch.cat([q_nope, rotate_real(q_pe, cos, sin)], dim=-1)
    kvf = kv.float()
    kv = (kvf * torch.rsqrt(kvf.pow(2).mean(-1, keepdim=True) + kv_norm.eps)).type_as(kv) * kv_norm.weight
    return q, kv, rotate_real(k_pe.unsqueeze(2), cos, sin)


norm_rope_cat_region = torch.compile(norm_rope_cat_real, fullgraph=True)


def combine_by_slot(out, weights, order, token):
    tokens, k = weights.shape
    by_slot = out.new_empty(tokens * k, out.size(1)).index_copy(0, order, out)
    return (by_slot.view(tokens, k, -1) * weights.unsqueeze(-1)).sum(1)


class RotaryReal(torch.autograd.Function):
    """RoPE on interleaved pairs with its backward written out: rotate the gradient by -theta."""

    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.save_for_backward(cos, sin)
        return rotate_real(x, cos, sin)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        return rotate_real(g, cos, -sin), None, None


def apply_rotary_emb_autograd(xq, xk, freqs_cis):
    cos, sin = cos_sin(freqs_cis, xq.shape[1])
    return RotaryReal.apply(xq, cos, sin), RotaryReal.apply(xk, cos, sin)
