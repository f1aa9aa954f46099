/* The runtime of the fishrules kernel in C: what generated code may call (fishrules.kernel.emit_c).
 *
 * Every value is an int64_t; NIL (INT64_MIN) is nothing.  The state is one array S; a context K
 * holds the scratch arena for collections, the lists of legal moves and the place to go back to
 * when a rule goes wrong (longjmp: the state is then thrown away by the caller, which plays the
 * step on the engine's own machine).  Every index into S, a table, the arena or a move list is
 * checked before it is used; every sum, difference and product is checked for overflow.
 *
 * Each helper does what its namesake in fishrules/kernel/pyruntime.py does, in the same order,
 * counting the same work, drawing the same random numbers.
 *
 * The ABI (the header's slots H_*, CUR_*, the fault codes FAULT_*, NIL, the limits, the generator's
 * constants) is defined in fishrules/kernel/abi.py and comes first in the generated C, as #defines
 * written from it: nothing of it is written here.
 */
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <stdlib.h>

typedef int64_t I;
typedef uint64_t U;

typedef struct { I *p; I n; } B;

typedef struct K {
    I *S;
    I size;
    I *arena;
    I top, arena_cap;
    I *ok, *bad;
    I nok, nbad, moves_cap, act_ok, act_bad;
    I width, moves_max;  /* a move record's numbers; the most moves ok and bad may grow to hold */
    I epoch;  /* bumped at every call in, and when a game is set up again: every kept value expires */
    I *dv;  /* a version per kept define, bumped by a write of anything it reads (fishrules.kernel.keep) */
    I *dva;  /* a version per argument of the defines that read a family of zones at their argument */
    I *dcache;  /* the kept values of defines (see emit_c: each define's entries) */
    I *rec;  /* the trace of a record being kept (fishrules.kernel.record): rec[0 .. nrec) of rec_cap */
    I nrec, rec_cap, note_at, rec_mark;
    int recording;  /* 1 while a caller keeps a record: the kernel writes its trace (never in a playout) */
    jmp_buf jb;
    int fault;
} K;

/* the kernel stops: `code` says why (FAULT_*); a rule that goes wrong with no words of its own
   clears S[H_WHY] (kernel/faults.py then leaves the words to the engine) */
static void k_fault(K *k, int code) {
    if (code == FAULT_RULE && k->S) k->S[H_WHY] = WHY_NONE;
    k->fault = code;
    longjmp(k->jb, 1);
}
/* a rule went wrong, with words: `why` (WHY_*, packed with its own position: abi.why), and the
   value they name (S[H_WHY_ARG]) */
static void k_fail(K *k, I why, I arg) {
    k->S[H_WHY] = why;
    k->S[H_WHY_ARG] = arg;
    k->fault = FAULT_RULE;
    longjmp(k->jb, 1);
}

/* room for n more numbers at the end of the trace (grown as needed, at most REC_MAX) */
static I *k_rec(K *k, I n) {
    if (n < 0 || n > REC_MAX || k->nrec < 0 || k->nrec > REC_MAX - n) k_fault(k, FAULT_CAPACITY);
    if (k->nrec + n > k->rec_cap) {
        I cap = k->rec_cap > 0 ? k->rec_cap : 1024;
        while (cap < k->nrec + n) cap *= 2;
        if (cap > REC_MAX) cap = REC_MAX;
        I *p = (I *)realloc(k->rec, (size_t)cap * sizeof(I));
        if (!p) k_fault(k, FAULT_CAPACITY);
        k->rec = p;
        k->rec_cap = cap;
    }
    I *out = k->rec + k->nrec;
    k->nrec += n;
    return out;
}

/* room for more moves in the lists being made (ok and bad, `moves_cap` records of `width` numbers
   each): doubled, at most `moves_max` (native.py: MOVES_CAP moves, and MOVE_BYTES_MAX bytes a list,
   so that rules of wide moves list as many as their bytes allow) */
__attribute__((cold, noinline)) static void k_more_moves(K *k) {
    I cap = k->moves_cap * 2;
    if (cap > k->moves_max) cap = k->moves_max;
    if (cap <= k->moves_cap) k_fault(k, FAULT_CAPACITY);
    I *ok = (I *)realloc(k->ok, (size_t)cap * (size_t)k->width * sizeof(I));
    if (!ok) k_fault(k, FAULT_CAPACITY);
    k->ok = ok;
    I *bad = (I *)realloc(k->bad, (size_t)cap * (size_t)k->width * sizeof(I));
    if (!bad) k_fault(k, FAULT_CAPACITY);  /* (ok kept its larger room: nothing is lost) */
    k->bad = bad;
    k->moves_cap = cap;
}

/* ---- checked arithmetic -------------------------------------------------------------------- */

static inline I k_add(K *k, I a, I b) {
    I r;
    if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0);
    if (__builtin_add_overflow(a, b, &r)) k_fault(k, FAULT_RULE);
    return r;
}
static inline I k_sub(K *k, I a, I b) {
    I r;
    if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0);
    if (__builtin_sub_overflow(a, b, &r)) k_fault(k, FAULT_RULE);
    return r;
}
static inline I k_mul(K *k, I a, I b) {
    I r;
    if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0);
    /* past 64 bits is past MAX_NUMBER: every `*` of the rules is checked against it (ir.Bounded) */
    if (__builtin_mul_overflow(a, b, &r)) k_fail(k, WHY_NUMBER, 0);
    return r;
}
static inline I k_neg(K *k, I a) {
    if (a == NIL) k_fail(k, WHY_NOBODY, 0);
    return -a;
}
static inline I k_div(K *k, I a, I b, I why) {
    if (b == 0) k_fail(k, why, 0);  /* (before anything else, as the engine's `divide`) */
    if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0);
    if (a == INT64_MIN + 1 && b == -1) k_fault(k, FAULT_RULE);
    I q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline I k_mod(K *k, I a, I b) {
    if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0);
    if (b == 0) k_fault(k, FAULT_RULE);
    I r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline I k_num(K *k, I a) { if (a == NIL) k_fail(k, WHY_NOBODY, 0); return a; }
static inline I k_lt(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return a < b; }
static inline I k_le(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return a <= b; }
static inline I k_gt(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return a > b; }
static inline I k_ge(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return a >= b; }
static inline I k_checked(K *k, I v) {
    if (v != NIL && (v > MAX_NUMBER || v < -MAX_NUMBER)) k_fail(k, WHY_NUMBER, 0);
    return v;
}
static inline I k_abs(K *k, I a) { if (a == NIL) k_fail(k, WHY_NOBODY, 0); return a < 0 ? -a : a; }
static inline I k_min2(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return b < a ? b : a; }
static inline I k_max2(K *k, I a, I b) { if (a == NIL || b == NIL) k_fail(k, WHY_NOBODY, 0); return b > a ? b : a; }

/* ---- where things are ---------------------------------------------------------------------- */

static inline I k_idx(K *k, I i) {
    if ((U)i >= (U)k->size) k_fault(k, FAULT_CAPACITY);
    return i;
}
static inline I k_tab(K *k, const I *t, I len, I i) {
    if ((U)i >= (U)len) k_fault(k, FAULT_RULE);
    return t[i];
}
static inline I k_attr(K *k, const I *t, I len, I c) {
    if (c == NIL) return NIL;
    if ((U)c >= (U)len) k_fault(k, FAULT_RULE);
    return t[c];
}
/* a seat: nobody is a fault worded as `why` says (nobody, the seat of nobody, a zone of nobody, ...) */
static inline I k_seat(K *k, I p, I why) {
    if (p == NIL) k_fail(k, why, 0);
    if (p < 0 || p >= k->S[H_N]) k_fault(k, FAULT_RULE);
    return p;
}
static inline I k_die(K *k, I d) {
    if (d == NIL) k_fail(k, WHY_NOBODY, 0);
    if (d < 0 || d >= k->S[H_NDICE]) k_fault(k, FAULT_RULE);
    return d;
}
static inline I k_fam(K *k, I first, I i, I low, I count, I why) {
    if (i == NIL || i < low || i >= low + count) k_fail(k, why, i);
    return first + i - low;
}
static inline I k_famstart(K *k, I start, I i, I low, I count, I stride, I why) {
    if (i == NIL || i < low || i >= low + count) k_fail(k, why, i);
    return start + (i - low) * stride;
}

/* ---- work ---------------------------------------------------------------------------------- */

static inline void k_charge(K *k, I n) {
    I *S = k->S;
    S[H_WORK] += n;
    if (S[H_WORK] > KERNEL_BUDGET) k_fault(k, FAULT_BUDGET);
}

/* ---- the arena: collections worked out while a step runs ----------------------------------- */

static inline B k_alloc(K *k, I cap) {
    B b;
    if (cap < 0 || cap > k->arena_cap - k->top) k_fault(k, FAULT_CAPACITY);
    b.p = k->arena + k->top;
    b.n = 0;
    k->top += cap;
    return b;
}
static inline void k_push(K *k, B *b, I cap, I v) {
    if (b->n >= cap) k_fault(k, FAULT_CAPACITY);
    b->p[b->n++] = v;
}
static inline B k_copy(K *k, B into, I cap, B from) {
    if (from.n > cap) k_fault(k, FAULT_CAPACITY);
    memmove(into.p, from.p, (size_t)from.n * sizeof(I));
    into.n = from.n;
    return into;
}

/* ---- the random generators (fishrules.splitmix: mix, below) -------------------------------- */

static inline U k_mix(U seed, U n) {
    U z = seed + (n + 1) * MIX_GAMMA;
    z = (z ^ (z >> 30)) * MIX_MUL1;
    z = (z ^ (z >> 27)) * MIX_MUL2;
    return z ^ (z >> 31);
}
/* a number 0 <= r < bound (bound >= 1), exactly uniform: draws r below 2**64 - (2**64 mod bound) */
static inline I k_below(I *S, int at_seed, int at_draws, U bound) {
    U rem = ((U)0 - bound) % bound;  /* 2**64 mod bound */
    for (;;) {
        U r = k_mix((U)S[at_seed], (U)S[at_draws]);
        S[at_draws] += 1;
        if (rem == 0 || r < (U)0 - rem) return (I)(r % bound);
    }
}
static inline I k_choose(K *k, I n) { return k_below(k->S, H_DSEED, H_DDRAWS, (U)n); }
static inline I k_randbelow(K *k, I n) { return k_below(k->S, H_SEED, H_DRAWS, (U)n); }

/* ---- collections ----------------------------------------------------------------------------- */

static B k_top(K *k, I cap, I count, B v) {
    if (count == NIL) k_fault(k, FAULT_RULE);
    B out = k_alloc(k, cap);
    if (count <= 0) return out;
    I from = v.n - count;
    if (from < 0) from = 0;
    for (I i = from; i < v.n; i++) out.p[out.n++] = v.p[i];
    return out;
}
static B k_distinct(K *k, I cap, B v) {
    k_charge(k, v.n);
    B out = k_alloc(k, cap);
    /* small non-negative values (seats, circles, cards, symbols): a mark each; else compare */
    I small = 1, hi = 0;
    for (I i = 0; i < v.n; i++) {
        if (v.p[i] < 0 || v.p[i] >= 4096) { small = 0; break; }
        if (v.p[i] > hi) hi = v.p[i];
    }
    if (small && v.n > 8) {
        B mark = k_alloc(k, hi + 1);
        memset(mark.p, 0, (size_t)(hi + 1) * sizeof(I));
        for (I i = 0; i < v.n; i++) if (!mark.p[v.p[i]]) { mark.p[v.p[i]] = 1; out.p[out.n++] = v.p[i]; }
        return out;
    }
    for (I i = 0; i < v.n; i++) {
        I x = v.p[i], seen = 0;
        for (I j = 0; j < out.n; j++) if (out.p[j] == x) { seen = 1; break; }
        if (!seen) out.p[out.n++] = x;
    }
    return out;
}
static int k_cmp_asc(const void *a, const void *b) {
    I x = *(const I *)a, y = *(const I *)b;
    return (x > y) - (x < y);
}
static int k_cmp_desc(const void *a, const void *b) { return k_cmp_asc(b, a); }
static B k_largest(K *k, I cap, I count, B v, I desc) {
    if (count == NIL) k_fault(k, FAULT_RULE);
    B out = k_alloc(k, cap);
    if (count <= 0) return out;
    k_charge(k, v.n);
    for (I i = 0; i < v.n; i++) { if (v.p[i] == NIL) k_fault(k, FAULT_RULE); out.p[i] = v.p[i]; }
    out.n = v.n;
    qsort(out.p, (size_t)out.n, sizeof(I), desc ? k_cmp_desc : k_cmp_asc);
    if (out.n > count) out.n = count;
    return out;
}
static B k_best(K *k, I cap, B items, B keys, I highest) {  /* (their work: counted as they were made) */
    B out = k_alloc(k, cap);
    I have = 0, best = 0;
    for (I i = 0; i < items.n; i++) {
        I v = keys.p[i];
        if (v == NIL) k_fault(k, FAULT_RULE);
        if (!have || (highest ? v > best : v < best)) { have = 1; best = v; out.n = 0; out.p[out.n++] = items.p[i]; }
        else if (v == best) out.p[out.n++] = items.p[i];
    }
    return out;
}
static B k_without_one(K *k, I cap, B items, I x) {
    k_charge(k, items.n);
    B out = k_alloc(k, cap);
    for (I i = 0; i < items.n; i++) if (items.p[i] != x) out.p[out.n++] = items.p[i];
    return out;
}
static B k_without_all(K *k, I cap, B items, B xs) {
    k_charge(k, xs.n);
    k_charge(k, items.n);
    B out = k_alloc(k, cap);
    for (I i = 0; i < items.n; i++) {
        I keep = 1;
        for (I j = 0; j < xs.n; j++) if (xs.p[j] == items.p[i]) { keep = 0; break; }
        if (keep) out.p[out.n++] = items.p[i];
    }
    return out;
}
/* players in turn order from `first` (keys (p - first) mod n; a stable sort) */
static B k_order(K *k, I cap, B items, I first, I backwards) {
    I n = k->S[H_N];
    B out = k_alloc(k, cap);
    if (items.n == 0) return out;
    if (first == NIL) k_fault(k, FAULT_RULE);
    for (I step = 0; step < n; step++) {
        I p = backwards ? (((first - step) % n) + n) % n : (first + step) % n;
        for (I i = 0; i < items.n; i++) {
            if (items.p[i] == NIL) k_fault(k, FAULT_RULE);
            if (items.p[i] == p) out.p[out.n++] = p;
        }
    }
    if (out.n != items.n) k_fault(k, FAULT_RULE);  /* a value that is not a seat */
    return out;
}
static B k_rotate(K *k, I cap, B items, I first) {
    k_charge(k, items.n);
    return k_order(k, cap, items, first, 0);
}
static B k_direction(K *k, I cap, B items, I d, I ccw) {
    if (items.n == 0) return k_alloc(k, cap);
    k_charge(k, items.n);
    return k_order(k, cap, items, items.p[0], d == ccw);
}
static B k_numbers(K *k, I cap, I low, I high, I why) {
    if (low == NIL || high == NIL) k_fail(k, WHY_NOBODY, 0);
    if (high - low + 1 > MAX_CHOICES) k_fail(k, why, high - low + 1);
    B out = k_alloc(k, cap);
    for (I v = low; v <= high; v++) out.p[out.n++] = v;
    return out;
}
static B k_distinct_seats(K *k, I cap, B items) {
    B out = k_alloc(k, cap);
    for (I i = 0; i < items.n; i++) {
        I x = items.p[i], seen = 0;
        if (x == NIL) continue;
        for (I j = 0; j < out.n; j++) if (out.p[j] == x) { seen = 1; break; }
        if (!seen) k_push(k, &out, cap, x);
    }
    return out;
}
static B k_sorted_set(K *k, I cap, B items) {
    B out = k_alloc(k, cap > items.n ? cap : items.n);
    for (I i = 0; i < items.n; i++) { if (items.p[i] == NIL) k_fault(k, FAULT_RULE); out.p[i] = items.p[i]; }
    out.n = items.n;
    qsort(out.p, (size_t)out.n, sizeof(I), k_cmp_asc);
    I m = 0;
    for (I i = 0; i < out.n; i++) if (m == 0 || out.p[m - 1] != out.p[i]) out.p[m++] = out.p[i];
    out.n = m;
    return out;
}
static I k_same(B a, B b) {
    if (a.n != b.n) return 0;
    for (I i = 0; i < a.n; i++) if (a.p[i] != b.p[i]) return 0;
    return 1;
}
