// Rows staged in shared memory by cp.async, written once for every family that stages (norms,
// q-norm + RoPE): the copies, and the ring they land in.
#pragma once
#include "glue_config.cuh"

// 16 bytes global -> shared without passing through registers (cp.async, sm_80+), completed per
// commit group: wait<N> returns once at most N of this thread's groups are still in flight.
__device__ __forceinline__ void cp_async16(void* smem, const void* g) {
    unsigned s;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(s) : "l"(smem));
#if CFG_L2PF
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

// The staging ring: [stage][tensor][access][thread] of 16-byte slots in dynamic shared memory
// (STAGES * NT * A * THREADS * 16 bytes: the engine sizes it, the family's stagedBytes). A thread
// reads back only what it copied itself, so waiting for its own copies (cp.async.wait_group) is all
// the ordering it needs, no barrier.
template <int NT, int A>
using StageRing = uint4 (*)[NT][A][CFG_THREADS];

template <int NT, int A>
__device__ __forceinline__ StageRing<NT, A> stage_ring() {
    extern __shared__ uint4 stage_ring_mem[];
    return reinterpret_cast<StageRing<NT, A>>(stage_ring_mem);
}

// Access a of tensor t of this thread's row into `slot`.
template <int NT, int A>
__device__ __forceinline__ void stage_copy(StageRing<NT, A> ring, int slot, int t, int a, const void* g) {
    cp_async16(&ring[slot][t][a][threadIdx.x], g);
}

// Waits for the oldest row in flight (S - 1 newer commit groups may still be).
template <int S>
__device__ __forceinline__ void stage_wait() { cp_async_wait<S - 1>(); }

// A staged access (16 bytes) from the ring back into 4 raw words.
template <int NT, int A>
__device__ __forceinline__ void stage_take(StageRing<NT, A> ring, int slot, int t, int a, unsigned* w) {
    const uint4 s = ring[slot][t][a][threadIdx.x];
    w[0] = s.x; w[1] = s.y; w[2] = s.z; w[3] = s.w;
}
