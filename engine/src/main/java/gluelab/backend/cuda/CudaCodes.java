package gluelab.backend.cuda;

import gluelab.backend.eager.EagerOps;
import gluelab.tensor.DType;

/**
 * The integer codes the kernels take for element types, eager ops and broadcast modes.
 * Written out one by one (never an enum's ordinal): reordering an enum must not change what a
 * kernel computes. CudaCodesTest parses the CUDA sources and checks every code against its #define.
 */
final class CudaCodes {
    private CudaCodes() {}

    /** glue_types.cuh's DT_* codes. */
    static int dtype(DType t) {
        return switch (t) {
            case BF16 -> 0;
            case FP32 -> 2;
            case FP64 -> 3;
            case I64 -> 5;
            case FP16, I32 -> throw new IllegalArgumentException("the CUDA kernels have no code for dtype " + t.id() + " (bf16, fp32, fp64, int64 only)");
        };
    }

    /** base.cu's UN_* codes. */
    static int unary(EagerOps.Unary op) {
        return switch (op) {
            case SQUARE -> 0;
            case CUBE -> 1;
            case SILU -> 2;
            case SIGMOID -> 3;
            case ADD_SCALAR -> 4;
            case MUL_SCALAR -> 5;
            case RSQRT -> 6;
            case CAST -> 7;
        };
    }

    /** base.cu's BIN_* codes. */
    static int binary(EagerOps.Binary op) {
        return switch (op) {
            case ADD -> 0;
            case SUB -> 1;
            case MUL -> 2;
        };
    }

    /** prim_broadcast's modes, base.cu's BC_* codes. */
    enum Broadcast {
        MUL_ROWS(0), MUL_COLS(1), EXPAND_ROWS(2), DIV_ROWS(3);

        final int code;

        Broadcast(int code) { this.code = code; }
    }
}
