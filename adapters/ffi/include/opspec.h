/*
 * opspec.h: the C ABI of opspec adapters, version 1.0.
 *
 * A shared library exports one function, opspec_adapter_open, which returns a table of
 * function pointers (opspec_adapter). `opspec run --adapter NAME=lib:PATH` runs
 * `opspec adapter-host --lib PATH` in a child process, which loads the library and serves it
 * over the wire protocol (docs/PROTOCOL.md), so a crash or hang in the library costs a call,
 * never the run.
 *
 * Versions: OPSPEC_ABI_MAJOR changes on an incompatible change (the host refuses a library of
 * another major version); OPSPEC_ABI_MINOR changes when members are appended to
 * opspec_adapter. The table starts with its size, so a host reads only the members a library
 * has: a member past struct_size, or a NULL one, is absent.
 *
 * Tensors are host memory (device {1, 0}, DLPack's kDLCPU), laid out as DLPack's DLTensor (a
 * library that includes dlpack.h may cast opspec_tensor* to DLTensor*). Inputs are read-only
 * and valid for the duration of the call. Calls come one at a time: a library need not be
 * thread-safe (the host runs several processes to use several threads).
 */
#ifndef OPSPEC_H
#define OPSPEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPSPEC_ABI_MAJOR 1
#define OPSPEC_ABI_MINOR 0

/* What every entry returns: 0, or the kind of error (opspec's ErrorKind). */
enum {
    OPSPEC_OK = 0,
    OPSPEC_UNSUPPORTED = 1,
    OPSPEC_SHAPE_MISMATCH = 2,
    OPSPEC_DTYPE_MISMATCH = 3,
    OPSPEC_NAME_MISMATCH = 4,
    OPSPEC_INDEX_DTYPE = 5,
    OPSPEC_RANK = 6,
    OPSPEC_OUT_OF_RANGE = 7,
    OPSPEC_NOT_CONTIGUOUS = 8,
    OPSPEC_OTHER = 9
};

/* DLPack's DLDataType codes: f16 {2,16,1}, bf16 {4,16,1}, f32 {2,32,1}, f64 {2,64,1},
 * i8..i64 {0,bits,1}, u8..u64 {1,bits,1}, bool {6,8,1} (one byte, 0 or 1). */
enum { OPSPEC_INT = 0, OPSPEC_UINT = 1, OPSPEC_FLOAT = 2, OPSPEC_BFLOAT = 4, OPSPEC_COMPLEX = 5, OPSPEC_BOOL = 6 };

typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } opspec_dtype; /* = DLDataType */
typedef struct { int32_t device_type; int32_t device_id; } opspec_device;    /* = DLDevice */

/* = DLTensor. The element at index (i0, i1, ...) is at
 * (char*)data + byte_offset + (i0*strides[0] + i1*strides[1] + ...) * (bits / 8). */
typedef struct {
    void* data;
    opspec_device device;
    int32_t ndim;
    opspec_dtype dtype;
    const int64_t* shape;
    const int64_t* strides; /* in elements, never NULL; may be 0 (broadcast) or negative */
    uint64_t byte_offset;
} opspec_tensor;

/* An error, owned by the caller: write a NUL-terminated message of at most capacity bytes
 * (truncate to fit) and, optionally, a document's error code ("E0404") into code. */
typedef struct {
    char* message;
    size_t capacity;
    char code[16];
} opspec_error;

/* How a call's operands and result are given (the `form` of docs/PROTOCOL.md). */
enum { OPSPEC_FORM_TENSORS = 0, OPSPEC_FORM_SCALAR = 1, OPSPEC_FORM_OUT = 2 };

/* An operand: a tensor, or a host scalar with Python's semantics (an int or a float). */
enum { OPSPEC_ARG_TENSOR = 0, OPSPEC_ARG_INT = 1, OPSPEC_ARG_FLOAT = 2 };
typedef struct {
    uint32_t kind;
    const opspec_tensor* tensor; /* OPSPEC_ARG_TENSOR */
    int64_t int_value;           /* OPSPEC_ARG_INT */
    double float_value;          /* OPSPEC_ARG_FLOAT */
} opspec_arg;

/* Where a new result goes: the library asks the host for it, once per call, with the dtype and
 * shape it decided; it gets a zero-filled row-major tensor the host owns (NULL if it cannot be
 * had: then return OPSPEC_OTHER). Nothing is freed across the boundary. */
typedef struct opspec_output opspec_output;
struct opspec_output {
    opspec_tensor* (*alloc)(opspec_output* self, opspec_dtype dtype, int32_t ndim, const int64_t* shape);
    void* host;
};

/* Scatter modes: how out-of-range index vectors are treated. */
enum { OPSPEC_SCATTER_IGNORE = 0, OPSPEC_SCATTER_ERROR = 1, OPSPEC_SCATTER_CLIP = 2 };

typedef struct opspec_adapter {
    size_t struct_size;  /* sizeof(opspec_adapter) as the library was compiled */
    uint32_t abi_major;  /* OPSPEC_ABI_MAJOR as the library was compiled */
    uint32_t abi_minor;  /* OPSPEC_ABI_MINOR as the library was compiled */
    const char* name;    /* the implementation, for reports ("mylib") */
    const char* version; /* its version ("1.2.3") */
    void* ctx;           /* handed back to every entry */

    /* Whether `op` ("add", "fused_mul_add", "scatter_add": the array API's names) is
     * implemented in `form` for operands of `dtype`: OPSPEC_OK, or OPSPEC_UNSUPPORTED with the
     * reason in `why`. Asked once per pair at start-up. */
    int32_t (*supports)(void* ctx, const char* op, uint32_t form, opspec_dtype dtype, opspec_error* why);

    /* `op` on `nargs` operands. With `out` (form OPSPEC_FORM_OUT) the result is written into
     * `out`, which may be strided, and `result` is NULL; otherwise `out` is NULL and the result
     * goes where result->alloc says. */
    int32_t (*call)(void* ctx, const char* op, size_t nargs, const opspec_arg* args, opspec_tensor* out,
                    opspec_output* result, opspec_error* err);

    /* `input` with the slices of `updates` added at the index vectors of `indices` (its last
     * axis is the index depth); `mode` is an OPSPEC_SCATTER_* value. */
    int32_t (*scatter_add)(void* ctx, const opspec_tensor* input, const opspec_tensor* indices,
                           const opspec_tensor* updates, uint32_t mode, opspec_output* result, opspec_error* err);

    /* Releases ctx; the table is not used afterwards. */
    void (*close)(void* ctx);

    /* Members of later 1.x versions are appended here, and only here. */
} opspec_adapter;

/* The one exported symbol. The host passes the version it speaks and the `CONFIG` text of
 * `lib:PATH CONFIG` (NULL without one); the library returns its table (static or allocated,
 * valid until close) or NULL with the reason in `err`. The host refuses a table whose
 * abi_major differs from its own. */
#if defined(_WIN32)
#define OPSPEC_EXPORT __declspec(dllexport)
#else
#define OPSPEC_EXPORT __attribute__((visibility("default")))
#endif
OPSPEC_EXPORT const opspec_adapter* opspec_adapter_open(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                        const char* config, opspec_error* err);

#ifdef __cplusplus
}
#endif

#endif /* OPSPEC_H */
