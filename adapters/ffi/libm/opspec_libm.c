/*
 * The platform's C library (libm) as an opspec adapter, in plain C99: the array API's unary
 * and binary functions that libm has, for f32 (expf, atan2f, ...) and f64 (exp, atan2, ...),
 * called element by element, with NumPy broadcasting and strided operands (as
 * adapters/ffi/example/c_example.c). Everything else is refused as unsupported, so opspec skips
 * it. Name "libm", version the C library's (glibc's gnu_get_libc_version(), else "unknown").
 *
 *   cc -std=c99 -O2 -fPIC -shared -I adapters/ffi/include adapters/ffi/libm/opspec_libm.c \
 *      -o target/libopspec_libm.so -lm
 *   opspec run --adapter libm=lib:target/libopspec_libm.so --filter '*:libm:exp:*'
 *
 * docs/LIBM.md has the commands and what to expect; tests/libm_adapter.rs runs them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opspec.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#define MAX_RANK 32

/* round: the array API rounds halves to even (specs/elementwise/round.yaml, row half-to-even),
 * which is nearbyint under the default rounding mode (round() would round halves away from
 * zero). abs is fabs; copysign and nextafter are IEEE 754's, whose rows (NaN signs, signed
 * zeros) the array API's tables restate. maximum and minimum are not fmax and fmin (those drop
 * a NaN operand), so they stay unsupported. */
typedef struct {
    const char* name;
    double (*f64)(double);
    float (*f32)(float);
} unary_fn;

typedef struct {
    const char* name;
    double (*f64)(double, double);
    float (*f32)(float, float);
} binary_fn;

static const unary_fn UNARY[] = {
    {"acos", acos, acosf},   {"acosh", acosh, acoshf}, {"asin", asin, asinf},
    {"asinh", asinh, asinhf}, {"atan", atan, atanf},   {"atanh", atanh, atanhf},
    {"cos", cos, cosf},      {"cosh", cosh, coshf},    {"exp", exp, expf},
    {"expm1", expm1, expm1f}, {"log", log, logf},      {"log1p", log1p, log1pf},
    {"log2", log2, log2f},   {"log10", log10, log10f}, {"sin", sin, sinf},
    {"sinh", sinh, sinhf},   {"sqrt", sqrt, sqrtf},    {"tan", tan, tanf},
    {"tanh", tanh, tanhf},   {"ceil", ceil, ceilf},    {"floor", floor, floorf},
    {"trunc", trunc, truncf}, {"abs", fabs, fabsf},    {"round", nearbyint, nearbyintf},
};

static const binary_fn BINARY[] = {
    {"atan2", atan2, atan2f},          {"hypot", hypot, hypotf},
    {"pow", pow, powf},                {"copysign", copysign, copysignf},
    {"nextafter", nextafter, nextafterf},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const unary_fn* find_unary(const char* name) {
    for (size_t i = 0; i < COUNT(UNARY); i++) {
        if (strcmp(name, UNARY[i].name) == 0) return &UNARY[i];
    }
    return NULL;
}

static const binary_fn* find_binary(const char* name) {
    for (size_t i = 0; i < COUNT(BINARY); i++) {
        if (strcmp(name, BINARY[i].name) == 0) return &BINARY[i];
    }
    return NULL;
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

static int32_t supports(void* ctx, const char* op, uint32_t form, opspec_dtype dtype, opspec_error* why) {
    (void)ctx;
    if (find_unary(op) == NULL && find_binary(op) == NULL) {
        return fail(why, OPSPEC_UNSUPPORTED, "libm has no function for this operation");
    }
    if (form != OPSPEC_FORM_TENSORS) return fail(why, OPSPEC_UNSUPPORTED, "the libm adapter takes tensors only");
    if (!is_float(dtype, 32) && !is_float(dtype, 64)) {
        return fail(why, OPSPEC_UNSUPPORTED, "libm has f32 and f64 functions only");
    }
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
    const unary_fn* u = find_unary(op);
    const binary_fn* bin = find_binary(op);
    size_t arity = u ? 1 : 2;
    if ((u == NULL && bin == NULL) || nargs != arity || out != NULL) {
        return fail(err, OPSPEC_UNSUPPORTED, "the libm adapter has libm's unary and binary functions of "
                                             "tensors only");
    }
    for (size_t i = 0; i < nargs; i++) {
        if (args[i].kind != OPSPEC_ARG_TENSOR) {
            return fail(err, OPSPEC_UNSUPPORTED, "the libm adapter takes tensors only");
        }
    }
    const opspec_tensor *a = args[0].tensor, *b = args[nargs - 1].tensor;
    if (a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits) {
        return fail(err, OPSPEC_DTYPE_MISMATCH, "the operands' dtypes differ");
    }
    if (!is_float(a->dtype, 32) && !is_float(a->dtype, 64)) {
        return fail(err, OPSPEC_UNSUPPORTED, "libm has f32 and f64 functions only");
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
            double x = ((const double*)da)[pa];
            ((double*)r->data)[k] = u ? u->f64(x) : bin->f64(x, ((const double*)db)[pb]);
        } else {
            float x = ((const float*)da)[pa];
            ((float*)r->data)[k] = u ? u->f32(x) : bin->f32(x, ((const float*)db)[pb]);
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

static opspec_adapter adapter = {
    sizeof(opspec_adapter), OPSPEC_ABI_MAJOR, OPSPEC_ABI_MINOR, "libm", "unknown", NULL,
    supports,               call,             NULL,             NULL,
};

OPSPEC_EXPORT const opspec_adapter* opspec_adapter_open(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                        const char* config, opspec_error* err) {
    (void)host_abi_minor;
    (void)config;
    if (host_abi_major != OPSPEC_ABI_MAJOR) {
        fail(err, OPSPEC_UNSUPPORTED, "the libm adapter speaks opspec C ABI 1.x");
        return NULL;
    }
#ifdef __GLIBC__
    adapter.version = gnu_get_libc_version();
#endif
    return &adapter;
}
