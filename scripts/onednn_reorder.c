/* oneDNN's reorder as a contestant of `python3 scripts/bench_peers.py convert` (which builds
 * this file against the oneDNN of a throwaway virtualenv): the blocked layouts (nchw to
 * nChw16c and back) and the relayouts with a conversion a reorder can express (f32 to bf16
 * and f16 with permuted strides, and back; f32 to s8 with a scale), each a primitive made once
 * and run into a warm buffer, as oneDNN's users run it. Reads `<case> <threads> <reps>` per
 * line on stdin and prints the median time of `reps` runs in nanoseconds (the first run, a
 * warm-up, not counted), or `-` when the case is not one of its own. */
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                            \
    do {                                                                    \
        dnnl_status_t s_ = (x);                                             \
        if (s_ != dnnl_success) {                                           \
            fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, (int)s_); \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

typedef struct {
    const char *name;
    dnnl_primitive_t prim;
    dnnl_memory_t src, dst, scale;
} job;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* A reorder from `src` to `dst`, with a destination scale when `scale` is not 0. */
static job make(const char *name, dnnl_memory_desc_t src, dnnl_memory_desc_t dst, float scale) {
    job j = {strdup(name), NULL, NULL, NULL, NULL};
    dnnl_primitive_attr_t attr;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (scale != 0.0f) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, src, eng, dst, eng, attr));
    CHECK(dnnl_primitive_create(&j.prim, pd));
    CHECK(dnnl_memory_create(&j.src, src, eng, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&j.dst, dst, eng, DNNL_MEMORY_ALLOCATE));
    /* Values in [-4, 4) (the bytes of any type are written as floats where f32). */
    void *p;
    CHECK(dnnl_memory_get_data_handle(j.src, &p));
    size_t n = dnnl_memory_desc_get_size(src);
    memset(p, 0x3f, n);
    if (scale != 0.0f) {
        dnnl_dim_t one[DNNL_MAX_NDIMS] = {1};
        dnnl_memory_desc_t smd;
        CHECK(dnnl_memory_desc_create_with_tag(&smd, 1, one, dnnl_f32, dnnl_a));
        CHECK(dnnl_memory_create(&j.scale, smd, eng, DNNL_MEMORY_ALLOCATE));
        void *s;
        CHECK(dnnl_memory_get_data_handle(j.scale, &s));
        *(float *)s = scale;
    }
    return j;
}

static dnnl_memory_desc_t tag(int nd, const dnnl_dim_t *dims, dnnl_data_type_t t, dnnl_format_tag_t f) {
    dnnl_memory_desc_t md;
    CHECK(dnnl_memory_desc_create_with_tag(&md, nd, dims, t, f));
    return md;
}

static dnnl_memory_desc_t strided(int nd, const dnnl_dim_t *dims, dnnl_data_type_t t, const dnnl_dim_t *st) {
    dnnl_memory_desc_t md;
    CHECK(dnnl_memory_desc_create_with_strides(&md, nd, dims, t, st));
    return md;
}

static job *find(const char *name) {
    static job jobs[32];
    static int n = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(jobs[i].name, name)) return &jobs[i];
    const dnnl_dim_t nchw[DNNL_MAX_NDIMS] = {32, 64, 56, 56};
    /* Heads: the output (b, h, t, d) = (16, 12, 512, 64), the input stored as (b, t, h, d). */
    const dnnl_dim_t heads[DNNL_MAX_NDIMS] = {16, 12, 512, 64}, heads_in[DNNL_MAX_NDIMS] = {512 * 768, 64, 768, 1};
    /* Back: the output (b, t, h, d) = (16, 512, 12, 64), the input stored as (b, h, t, d). */
    const dnnl_dim_t back[DNNL_MAX_NDIMS] = {16, 512, 12, 64}, back_in[DNNL_MAX_NDIMS] = {12 * 512 * 64, 64, 512 * 64, 1};
    const dnnl_dim_t sq[DNNL_MAX_NDIMS] = {4096, 4096}, sq_t[DNNL_MAX_NDIMS] = {1, 4096};
    const dnnl_dim_t k1[DNNL_MAX_NDIMS] = {1024, 1024}, k1_t[DNNL_MAX_NDIMS] = {1, 1024};
    /* (8,)*8 with its axes reversed: output axis k reads the input's axis 7 - k. */
    const dnnl_dim_t r8[DNNL_MAX_NDIMS] = {8, 8, 8, 8, 8, 8, 8, 8},
                     r8_t[DNNL_MAX_NDIMS] = {1, 8, 64, 512, 4096, 32768, 262144, 2097152};
    const dnnl_dim_t q[DNNL_MAX_NDIMS] = {16, 768, 512}, q_in[DNNL_MAX_NDIMS] = {512 * 768, 1, 768};
    job j;
    if (!strcmp(name, "nchw16c"))
        j = make(name, tag(4, nchw, dnnl_f32, dnnl_nchw), tag(4, nchw, dnnl_f32, dnnl_nChw16c), 0);
    else if (!strcmp(name, "nchw16c_back"))
        j = make(name, tag(4, nchw, dnnl_f32, dnnl_nChw16c), tag(4, nchw, dnnl_f32, dnnl_nchw), 0);
    else if (!strcmp(name, "heads_bf16"))
        j = make(name, strided(4, heads, dnnl_f32, heads_in), tag(4, heads, dnnl_bf16, dnnl_abcd), 0);
    else if (!strcmp(name, "heads_f16"))
        j = make(name, strided(4, heads, dnnl_f32, heads_in), tag(4, heads, dnnl_f16, dnnl_abcd), 0);
    else if (!strcmp(name, "heads_bf16_back"))
        j = make(name, strided(4, back, dnnl_bf16, back_in), tag(4, back, dnnl_f32, dnnl_abcd), 0);
    else if (!strcmp(name, "heads_f16_back"))
        j = make(name, strided(4, back, dnnl_f16, back_in), tag(4, back, dnnl_f32, dnnl_abcd), 0);
    else if (!strcmp(name, "transpose_4096_bf16"))
        j = make(name, strided(2, sq, dnnl_f32, sq_t), tag(2, sq, dnnl_bf16, dnnl_ab), 0);
    else if (!strcmp(name, "plain_transpose_4096_f32"))
        j = make(name, strided(2, sq, dnnl_f32, sq_t), tag(2, sq, dnnl_f32, dnnl_ab), 0);
    else if (!strcmp(name, "plain_transpose_1024_f32"))
        j = make(name, strided(2, k1, dnnl_f32, k1_t), tag(2, k1, dnnl_f32, dnnl_ab), 0);
    else if (!strcmp(name, "plain_transpose_4096_u8"))
        j = make(name, strided(2, sq, dnnl_u8, sq_t), tag(2, sq, dnnl_u8, dnnl_ab), 0);
    else if (!strcmp(name, "plain_rank8_reversed_f32"))
        j = make(name, strided(8, r8, dnnl_f32, r8_t), tag(8, r8, dnnl_f32, dnnl_abcdefgh), 0);
    else if (!strcmp(name, "quant_i8"))
        j = make(name, strided(3, q, dnnl_f32, q_in), tag(3, q, dnnl_s8, dnnl_abc), 0.02f);
    else
        return NULL;
    jobs[n] = j;
    return &jobs[n++];
}

static void run(job *j) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, j->src}, {DNNL_ARG_DST, j->dst},
                               {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, j->scale}};
    CHECK(dnnl_primitive_execute(j->prim, strm, j->scale ? 3 : 2, args));
    CHECK(dnnl_stream_wait(strm));
}

int main(void) {
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    char name[64];
    int threads, reps;
    while (scanf("%63s %d %d", name, &threads, &reps) == 3) {
        job *j = find(name);
        if (!j) {
            printf("-\n");
            fflush(stdout);
            continue;
        }
        omp_set_num_threads(threads);
        run(j);
        long long *t = malloc(sizeof(long long) * reps);
        for (int r = 0; r < reps; r++) {
            long long a = now_ns();
            run(j);
            t[r] = now_ns() - a;
        }
        qsort(t, reps, sizeof(long long), cmp);
        printf("%lld\n", t[reps / 2]);
        fflush(stdout);
        free(t);
    }
    return 0;
}
