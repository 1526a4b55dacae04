/*
 * An example opspec adapter in plain C99: add, subtract, multiply, divide, maximum (fmax),
 * minimum (fmin), pow and atan2 from libm, for f32 and f64, with NumPy broadcasting and
 * strided operands.
 *
 *   cc -std=c99 -O2 -fPIC -shared -I adapters/ffi/include adapters/ffi/example/c_example.c \
 *      -o target/libc_example.so -lm
 *   opspec run --suite array-api --adapter lib:target/libc_example.so      # named c-example
 *
 * Built with -DOPSPEC_EXAMPLE_CRASH_ON='"multiply"' it dereferences NULL on every call of that
 * operation: the crash the isolation test (tests/c_adapter.rs) survives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opspec.h"

#define MAX_RANK 32

enum op { ADD, SUBTRACT, MULTIPLY, DIVIDE, MAXIMUM, MINIMUM, POW, ATAN2, OP_COUNT };
static const char* const OP_NAMES[OP_COUNT] = {"add",     "subtract", "multiply", "divide",
                                               "maximum", "minimum",  "pow",      "atan2"};

static int find_op(const char* name) {
    for (int i = 0; i < OP_COUNT; i++) {
        if (strcmp(name, OP_NAMES[i]) == 0) return i;
    }
    return -1;
}

static int is_float(opspec_dtype d, int bits) {
    return d.code == OPSPEC_FLOAT && d.bits == bits && d.lanes == 1;
}

static int32_t fail(opspec_error* err, int32_t status, const char* message) {
    if (err && err->message && err->capacity > 0) {
        snprintf(err->message, err->capacity, "%s", message);
    }
    return status;
}

static double apply(int op, double x, double y) {
    switch (op) {
    case ADD: return x + y;
    case SUBTRACT: return x - y;
    case MULTIPLY: return x * y;
    case DIVIDE: return x / y;
    case MAXIMUM: return fmax(x, y);
    case MINIMUM: return fmin(x, y);
    case POW: return pow(x, y);
    default: return atan2(x, y);
    }
}

static float applyf(int op, float x, float y) {
    switch (op) {
    case ADD: return x + y;
    case SUBTRACT: return x - y;
    case MULTIPLY: return x * y;
    case DIVIDE: return x / y;
    case MAXIMUM: return fmaxf(x, y);
    case MINIMUM: return fminf(x, y);
    case POW: return powf(x, y);
    default: return atan2f(x, y);
    }
}

static int32_t supports(void* ctx, const char* op, uint32_t form, opspec_dtype dtype, opspec_error* why) {
    (void)ctx;
    if (find_op(op) < 0) return fail(why, OPSPEC_UNSUPPORTED, "not implemented by the C example");
    if (form != OPSPEC_FORM_TENSORS) return fail(why, OPSPEC_UNSUPPORTED, "the C example takes tensors only");
    if (!is_float(dtype, 32) && !is_float(dtype, 64)) return fail(why, OPSPEC_UNSUPPORTED, "f32 and f64 only");
    return OPSPEC_OK;
}

/* The broadcast shape of a and b (NumPy's rule), or -1. */
static int broadcast(const opspec_tensor* a, const opspec_tensor* b, int64_t* shape) {
    int rank = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (rank > MAX_RANK) return -1;
    for (int i = 0; i < rank; i++) {
        int ia = i - (rank - a->ndim), ib = i - (rank - b->ndim);
        int64_t na = ia >= 0 ? a->shape[ia] : 1, nb = ib >= 0 ? b->shape[ib] : 1;
        if (na != nb && na != 1 && nb != 1) return -1;
        shape[i] = na == 1 ? nb : na;
    }
    return rank;
}

/* t's element strides aligned to a result of `rank` axes (0 where t is broadcast). */
static void aligned_strides(const opspec_tensor* t, int rank, const int64_t* shape, int64_t* strides) {
    for (int i = 0; i < rank; i++) {
        int it = i - (rank - t->ndim);
        strides[i] = (it >= 0 && t->shape[it] == shape[i]) ? t->strides[it] : 0;
    }
}

static int32_t call(void* ctx, const char* op, size_t nargs, const opspec_arg* args, opspec_tensor* out,
                    opspec_output* result, opspec_error* err) {
    (void)ctx;
    int which = find_op(op);
#ifdef OPSPEC_EXAMPLE_CRASH_ON
    if (strcmp(op, OPSPEC_EXAMPLE_CRASH_ON) == 0) {
        volatile int* nowhere = NULL;
        *nowhere = 1;
    }
#endif
    if (which < 0 || nargs != 2 || out != NULL || args[0].kind != OPSPEC_ARG_TENSOR ||
        args[1].kind != OPSPEC_ARG_TENSOR) {
        return fail(err, OPSPEC_UNSUPPORTED, "the C example has two-tensor add, subtract, multiply, divide, "
                                             "maximum, minimum, pow and atan2 only");
    }
    const opspec_tensor *a = args[0].tensor, *b = args[1].tensor;
    if (a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits) {
        return fail(err, OPSPEC_DTYPE_MISMATCH, "the operands' dtypes differ");
    }
    if (!is_float(a->dtype, 32) && !is_float(a->dtype, 64)) {
        return fail(err, OPSPEC_UNSUPPORTED, "f32 and f64 only");
    }
    int64_t shape[MAX_RANK], sa[MAX_RANK], sb[MAX_RANK], index[MAX_RANK];
    int rank = broadcast(a, b, shape);
    if (rank < 0) return fail(err, OPSPEC_SHAPE_MISMATCH, "the shapes do not broadcast");
    opspec_tensor* r = result->alloc(result, a->dtype, rank, shape);
    if (r == NULL) return fail(err, OPSPEC_OTHER, "no memory for the result");
    aligned_strides(a, rank, shape, sa);
    aligned_strides(b, rank, shape, sb);
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        n *= shape[i];
        index[i] = 0;
    }
    int64_t pa = 0, pb = 0; /* element positions relative to each operand's first element */
    int f64 = a->dtype.bits == 64;
    const char *da = (const char*)a->data + a->byte_offset, *db = (const char*)b->data + b->byte_offset;
    for (int64_t k = 0; k < n; k++) {
        if (f64) {
            ((double*)r->data)[k] = apply(which, ((const double*)da)[pa], ((const double*)db)[pb]);
        } else {
            ((float*)r->data)[k] = applyf(which, ((const float*)da)[pa], ((const float*)db)[pb]);
        }
        /* The next index in row-major order, carrying the operands' positions along. */
        for (int i = rank - 1; i >= 0; i--) {
            pa += sa[i];
            pb += sb[i];
            if (++index[i] < shape[i]) break;
            pa -= sa[i] * shape[i];
            pb -= sb[i] * shape[i];
            index[i] = 0;
        }
    }
    return OPSPEC_OK;
}

static const opspec_adapter ADAPTER = {
    sizeof(opspec_adapter), OPSPEC_ABI_MAJOR, OPSPEC_ABI_MINOR, "c-example", "1.0", NULL,
    supports,               call,             NULL,             NULL,
};

OPSPEC_EXPORT const opspec_adapter* opspec_adapter_open(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                        const char* config, opspec_error* err) {
    (void)host_abi_minor;
    (void)config;
    if (host_abi_major != OPSPEC_ABI_MAJOR) {
        fail(err, OPSPEC_UNSUPPORTED, "the C example speaks opspec C ABI 1.x");
        return NULL;
    }
    return &ADAPTER;
}
