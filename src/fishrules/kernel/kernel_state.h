/* The runtime of the fishrules kernel in C, second part: the helpers that know the state's layout.
 *
 * Generated code defines, before including this: the zones (ZB: where each starts, ZC: how many
 * cards it holds; NZONES), WHERE, UP, MIXED, DICE, EMPTY (where cards' zones, faces, shuffled zones,
 * dice and the counts of empty draws are in S), NCARDS, LABEL (a number per card label) and
 * SAME_LABELS, NFACES, UNROLLED and CANON (the faces), MAX_SUBSET, and the board (BOARD_LOW,
 * BOARD_HIGH, ADJ_AT/ADJ, RUN_AT/RUN_OFF/RUNS); the ABI (fishrules/kernel/abi.py: the header,
 * the fault codes, MAX_LIST_LENGTH, ...) comes first of all.
 * Each helper mirrors its namesake in fishrules/kernel/pyruntime.py.
 */

/* a zone's cards, the dice's faces changed: the kept defines that read them are stale (generated) */
static void k_zstale(K *k, I zid);
static void k_dstale(K *k);

/* ---- the record (fishrules.kernel.record): written only while k->recording ------------------- */

/* who sees each `seen by` value now, into out[0 .. NSEEN) (generated: the program's looks) */
static void k_seen(K *k, I *out);

/* cards (valid, distinct) about to move onto dest: `3, dest, facing, seen.., n, (card, from, up)..` */
static void k_note_move(K *k, const I *cards, I n, I dest, I facing) {
    I *S = k->S;
    I seen[NSEEN + 1];
    k_seen(k, seen);
    if (n < 0 || n > NCARDS) k_fault(k, FAULT_RULE);
    I *r = k_rec(k, 4 + NSEEN + 3 * n);
    r[0] = 3; r[1] = dest; r[2] = facing;
    for (I i = 0; i < NSEEN; i++) r[3 + i] = seen[i];
    r[3 + NSEEN] = n;
    for (I i = 0; i < n; i++) {
        I c = cards[i];
        if ((U)c >= (U)NCARDS) k_fault(k, FAULT_RULE);
        r[4 + NSEEN + 3 * i] = c;
        r[5 + NSEEN + 3 * i] = S[WHERE + c];
        r[6 + NSEEN + 3 * i] = S[UP + c];
    }
}

/* the items of noted value v at S[at]: `n, items..` (a scalar: one item) */
static void k_note_value(K *k, I v, I at) {
    I *S = k->S;
    if ((U)v >= (U)NNOTED) k_fault(k, FAULT_RULE);
    k_idx(k, at);
    if (NOTED_LIST[v]) {
        I n = S[at];
        if ((U)n > (U)MAX_LIST_LENGTH) k_fault(k, FAULT_CAPACITY);
        k_idx(k, at + n);
        I *r = k_rec(k, 1 + n);
        r[0] = n;
        for (I i = 0; i < n; i++) r[1 + i] = S[at + 1 + i];
    } else {
        I *r = k_rec(k, 2);
        r[0] = 1;
        r[1] = S[at];
    }
}

/* before a noted value is written (outside a playout): `5, v, at, n, old..` at the end of the trace;
   note_new keeps it only if the value changed and a record is kept */
static void k_note_old(K *k, I v, I at) {
    k->note_at = k->nrec;
    I *r = k_rec(k, 3);
    r[0] = 5; r[1] = v; r[2] = at;
    k_note_value(k, v, at);
}

/* after: `.. n, new.., seen..` if it changed (recording it is work, as the engine counts it) */
static void k_note_new(K *k, I v, I at) {
    I start = k->note_at;
    if (start < 0 || start > k->nrec - 4 || k->rec[start] != 5) k_fault(k, FAULT_RULE);  /* never */
    I here = k->nrec;
    k_note_value(k, v, at);
    const I *old = k->rec + start + 3, *now = k->rec + here;
    if (old[0] == now[0] && memcmp(old + 1, now + 1, (size_t)old[0] * sizeof(I)) == 0) {
        k->nrec = start;
        return;
    }
    k_charge(k, 2);
    if (!k->recording) {  /* (the trace held the old value only to compare) */
        k->nrec = start;
        return;
    }
    I seen[NSEEN + 1];
    k_seen(k, seen);
    I *r = k_rec(k, NSEEN);
    for (I i = 0; i < NSEEN; i++) r[i] = seen[i];
}

/* ---- zones ------------------------------------------------------------------------------------ */

static inline I k_zone_ok(K *k, I z) {
    if ((U)z >= (U)NZONES) k_fault(k, FAULT_RULE);
    return z;
}

/* take card c out of its zone, if it is in one; the size that zone had (0 if none) */
static I k_take(K *k, I c, I *src_out) {
    I *S = k->S;
    I src = S[WHERE + c];
    *src_out = src;
    if (src < 0) return 0;
    k_zstale(k, src);
    I b = ZB[src], n = S[b];
    for (I i = 0; i < n; i++) {
        if (S[b + 1 + i] == c) {
            memmove(S + b + 1 + i, S + b + 2 + i, (size_t)(n - 1 - i) * sizeof(I));
            S[b + n] = 0;
            S[b] = n - 1;
            return n;
        }
    }
    k_fault(k, FAULT_RULE);  /* a card not where it is said to be: never */
    return 0;
}

/* card c onto dest, recorded by the caller (k_move_one, k_draw) */
static void k_put_one(K *k, I c, I dest, I facing) {
    I *S = k->S;
    if (c == NIL) return;
    if ((U)c >= (U)NCARDS) k_fault(k, FAULT_RULE);
    k_zone_ok(k, dest);
    k_zstale(k, dest);
    I src;
    I n = k_take(k, c, &src);
    if (src >= 0) k_charge(k, 1 + n);
    I d = ZB[dest], m = S[d];
    if (m >= ZC[dest]) k_fault(k, FAULT_CAPACITY);
    S[d + 1 + m] = c;
    S[d] = m + 1;
    S[WHERE + c] = dest;
    if (facing) S[UP + c] = (facing == 1);
}

static void k_move_one(K *k, I c, I dest, I facing) {
    if (c == NIL) return;
    if ((U)c >= (U)NCARDS) k_fault(k, FAULT_RULE);
    k_zone_ok(k, dest);
    if (k->recording) k_note_move(k, &c, 1, dest, facing);
    k_put_one(k, c, dest, facing);
}

static void k_move(K *k, B cards, I dest, I facing) {
    I *S = k->S;
    if (cards.n == 0) return;
    if (cards.n == 1) { k_move_one(k, cards.p[0], dest, facing); return; }
    k_zone_ok(k, dest);
    /* the cards, each once, in order: `moving` marks them (and which zones they leave) */
    B moving = k_alloc(k, NCARDS + NZONES);
    memset(moving.p, 0, (size_t)(NCARDS + NZONES) * sizeof(I));
    B uniq = k_alloc(k, cards.n);
    for (I i = 0; i < cards.n; i++) {
        I c = cards.p[i];
        if (c == NIL || (U)c >= (U)NCARDS) k_fault(k, FAULT_RULE);
        if (!moving.p[c]) { moving.p[c] = 1; uniq.p[uniq.n++] = c; }
    }
    if (uniq.n == 1) { k_move_one(k, uniq.p[0], dest, facing); return; }
    if (k->recording) k_note_move(k, uniq.p, uniq.n, dest, facing);
    I *left = moving.p + NCARDS;
    I work = uniq.n;
    for (I i = 0; i < uniq.n; i++) {
        I z = S[WHERE + uniq.p[i]];
        if (z >= 0 && !left[z]) { left[z] = 1; work += S[ZB[z]]; }
    }
    k_charge(k, work);
    k_zstale(k, dest);
    for (I z = 0; z < NZONES; z++) {
        if (!left[z]) continue;
        k_zstale(k, z);
        I b = ZB[z], n = S[b], m = 0;
        for (I i = 0; i < n; i++) {
            I c = S[b + 1 + i];
            if (!moving.p[c]) S[b + 1 + m++] = c;
        }
        for (I i = m; i < n; i++) S[b + 1 + i] = 0;
        S[b] = m;
    }
    I d = ZB[dest], m = S[d];
    if (m + uniq.n > ZC[dest]) k_fault(k, FAULT_CAPACITY);
    for (I i = 0; i < uniq.n; i++) {
        I c = uniq.p[i];
        S[d + 1 + m + i] = c;
        S[WHERE + c] = dest;
        if (facing) S[UP + c] = (facing == 1);
    }
    S[d] = m + uniq.n;
}

static void k_draw(K *k, I count, I src, I dest, I facing) {
    I *S = k->S;
    k_zone_ok(k, src);
    k_zone_ok(k, dest);
    if (count == NIL) k_fault(k, FAULT_RULE);
    I b = ZB[src];
    while (count > 0) {
        I n = S[b];
        if (n == 0) {  /* counted for simulations: a deal that ran out of cards */
            S[EMPTY + 2 * src + (S[H_DECISIONS] ? 1 : 0)] += 1;
            break;
        }
        I at;
        if (S[MIXED + src]) {
            at = k_randbelow(k, n);
            if (SAME_LABELS) {  /* the first card nobody can tell from it */
                I card = S[b + 1 + at], lab = LABEL[card], u = S[UP + card];
                for (I i = 0; i < at; i++) {
                    I c = S[b + 1 + i];
                    if (LABEL[c] == lab && S[UP + c] == u) { at = i; break; }
                }
            }
            S[H_CHANCES] += 1;
        } else {
            at = n - 1;  /* the top card: no chance involved */
        }
        /* the card at `at` leaves the zone (as k_move_one, without looking for it) */
        I card = S[b + 1 + at];
        if (k->recording) {
            if (S[MIXED + src]) {  /* a chance outcome, before its move */
                I *r = k_rec(k, 2);
                r[0] = 2;
                r[1] = card;
            }
            k_note_move(k, &card, 1, dest, facing);
        }
        k_zstale(k, src);
        k_charge(k, 1 + n);
        memmove(S + b + 1 + at, S + b + 2 + at, (size_t)(n - 1 - at) * sizeof(I));
        S[b + n] = 0;
        S[b] = n - 1;
        S[WHERE + card] = -1;
        k_put_one(k, card, dest, facing);
        count -= 1;
    }
}

/* chance left to the caller (S[H_MANUAL]): a draw takes its cards one at a time.  The next card:
   0 when it is done (no more to draw, or the zone is empty), 1 when the top card of a zone not
   shuffled was taken, 2 when the caller is to say which card of the shuffled zone is drawn */
static I k_draw_step(K *k, I count, I src, I dest, I facing) {
    I *S = k->S;
    k_zone_ok(k, src);
    k_zone_ok(k, dest);
    if (count == NIL) k_fault(k, FAULT_RULE);
    if (count <= 0) return 0;
    I b = ZB[src], n = S[b];
    if (n == 0) {  /* counted for simulations: a deal that ran out of cards */
        S[EMPTY + 2 * src + (S[H_DECISIONS] ? 1 : 0)] += 1;
        return 0;
    }
    if (S[MIXED + src]) {
        if (S[H_MANUAL]) return 2;
        k_draw(k, 1, src, dest, facing);  /* chance handed to the generator since the draw began */
        return 1;
    }
    k_move_one(k, S[b + n], dest, facing);  /* the top card: no chance involved */
    return 1;
}

/* the card the caller wrote into the first move slot is drawn (one of zone src, else a fault):
   the first card nobody can tell from it, as the generator's draw takes */
static void k_draw_card(K *k, I src, I dest, I facing) {
    I *S = k->S;
    I card = S[H_MOVE];
    if ((U)card >= (U)NCARDS || S[WHERE + card] != src) k_fault(k, FAULT_CAPACITY);
    if (SAME_LABELS) {
        I b = ZB[src], n = S[b], lab = LABEL[card], u = S[UP + card];
        for (I i = 0; i < n; i++) {
            I c = S[b + 1 + i];
            if (LABEL[c] == lab && S[UP + c] == u) { card = c; break; }
        }
    }
    S[H_CHANCES] += 1;
    S[H_CHANCE] = 0;
    if (k->recording) {  /* a chance outcome, before its move */
        I *r = k_rec(k, 2);
        r[0] = 2;
        r[1] = card;
    }
    k_move_one(k, card, dest, facing);
}

static inline void k_shuffle(K *k, I z) { k->S[MIXED + k_zone_ok(k, z)] = 1; }

static void k_reveal(K *k, B cards) {
    I *S = k->S;
    for (I i = 0; i < cards.n; i++) {
        I c = cards.p[i];
        if (c == NIL || (U)c >= (U)NCARDS) k_fault(k, FAULT_RULE);
    }
    if (k->recording) {  /* `4, m, cards.., zones..`: those face down before (each time it is named) */
        I m = 0;
        for (I i = 0; i < cards.n; i++) if (!S[UP + cards.p[i]]) m++;
        if (m) {
            I *r = k_rec(k, 2 + 2 * m);
            r[0] = 4;
            r[1] = m;
            I j = 0;
            for (I i = 0; i < cards.n; i++) {
                I c = cards.p[i];
                if (S[UP + c]) continue;
                r[2 + j] = c;
                r[2 + m + j] = S[WHERE + c];
                j++;
            }
        }
    }
    for (I i = 0; i < cards.n; i++) S[UP + cards.p[i]] = 1;
}

/* ---- dice ----------------------------------------------------------------------------------- */

/* the dice rolled (checked already): `1, die, face` each */
static void k_note_rolls(K *k, B dice) {
    if (!k->recording) return;
    if (dice.n < 0 || dice.n > MAX_DICE) k_fault(k, FAULT_RULE);
    I *r = k_rec(k, 3 * dice.n);
    for (I i = 0; i < dice.n; i++) {
        r[3 * i] = 1;
        r[3 * i + 1] = dice.p[i];
        r[3 * i + 2] = k->S[DICE + dice.p[i]];
    }
}

static void k_roll(K *k, B dice) {
    I *S = k->S;
    k_dstale(k);
    for (I i = 0; i < dice.n; i++) S[DICE + k_die(k, dice.p[i])] = UNROLLED;
    I n = dice.n;
    if (n == 0) return;
    /* NFACES**n, if it is at most 2**62: one draw for the whole group */
    U total = 1;
    int one = 1;
    for (I i = 0; i < n; i++) {
        if (total > ((U)1 << 62) / (U)NFACES) { one = 0; break; }
        total *= (U)NFACES;
    }
    if (one) {
        U r = (U)k_randbelow(k, (I)total);
        for (I i = 0; i < n; i++) {
            I f = (I)(r % (U)NFACES);
            r /= (U)NFACES;
            S[DICE + dice.p[i]] = CANON[f];
        }
    } else {
        for (I i = 0; i < n; i++) S[DICE + dice.p[i]] = CANON[k_randbelow(k, NFACES)];
    }
    S[H_CHANCES] += n;
    k_note_rolls(k, dice);
}

static void k_roll_one(K *k, I d) {
    I one[1];
    B b;
    one[0] = d;
    b.p = one;
    b.n = 1;
    k_roll(k, b);
}

/* the dice of a group from the i-th on, rolled together by the generator (chance handed to it
   while the group waited: the engine's `roll_wait`) */
static void k_roll_rest(K *k, B dice, I i) {
    B rest;
    if (i < 0 || i > dice.n) k_fault(k, FAULT_RULE);
    rest.p = dice.p + i;
    rest.n = dice.n - i;
    k_roll(k, rest);
}

/* chance left to the caller (S[H_MANUAL]): the group's dice show no face, then each die gets the
   face the caller wrote into the first move slot (one that stands for its kind) */
static void k_roll_start(K *k, B dice) {
    I *S = k->S;
    k_dstale(k);
    for (I i = 0; i < dice.n; i++) S[DICE + k_die(k, dice.p[i])] = UNROLLED;
}

static void k_roll_face(K *k, I d) {
    I *S = k->S;
    I f = S[H_MOVE];
    d = k_die(k, d);
    if (f < 0 || f >= NFACES || CANON[f] != f) k_fault(k, FAULT_CAPACITY);
    k_dstale(k);
    S[DICE + d] = f;
    S[H_CHANCES] += 1;
    S[H_CHANCE] = 0;
    if (k->recording) {
        I *r = k_rec(k, 3);
        r[0] = 1;
        r[1] = d;
        r[2] = f;
    }
}

/* ---- lists ---------------------------------------------------------------------------------- */

/* `cap`: the room the layout keeps for the list (Layout.list_cap) */
static void k_set_list(K *k, I at, B items, I cap) {
    I *S = k->S;
    if (items.n > MAX_LIST_LENGTH) k_fail(k, WHY_LIST, 0);
    if (items.n > cap) k_fault(k, FAULT_CAPACITY);
    S[at] = items.n;
    for (I i = 0; i < cap; i++) S[at + 1 + i] = i < items.n ? items.p[i] : 0;
}
static void k_list_append(K *k, I at, I v, I cap) {
    I *S = k->S;
    v = k_checked(k, v);
    I n = S[at];
    if (n >= MAX_LIST_LENGTH) k_fail(k, WHY_LIST, 0);
    if (n >= cap) k_fault(k, FAULT_CAPACITY);
    S[at + 1 + n] = v;
    S[at] = n + 1;
}
static void k_list_extend(K *k, I at, B items, I cap) {
    I *S = k->S;
    I n = S[at];
    if (n + items.n > MAX_LIST_LENGTH) k_fail(k, WHY_LIST, 0);
    for (I i = 0; i < items.n; i++) k_checked(k, items.p[i]);
    if (n + items.n > cap) k_fault(k, FAULT_CAPACITY);
    for (I i = 0; i < items.n; i++) S[at + 1 + n + i] = items.p[i];
    S[at] = n + items.n;
}
static void k_list_remove(K *k, I at, I v) {
    I *S = k->S;
    I n = S[at];
    for (I i = 0; i < n; i++) {
        if (S[at + 1 + i] == v) {
            memmove(S + at + 1 + i, S + at + 2 + i, (size_t)(n - 1 - i) * sizeof(I));
            S[at + n] = 0;
            S[at] = n - 1;
            return;
        }
    }
    k_fail(k, WHY_NOT_IN_LIST, v);
}

/* ---- what a parameter may be ----------------------------------------------------------------- */

/* identical cards are one choice; a face-up copy stands for them if there is one */
static B k_card_choices(K *k, I cap, B items) {
    I *S = k->S;
    k_charge(k, items.n);
    B out = k_alloc(k, cap);
    if (!SAME_LABELS) {  /* no two cards look alike: every card is a choice of its own */
        for (I i = 0; i < items.n; i++) {
            I v = items.p[i];
            if (v == NIL || (U)v >= (U)NCARDS) k_fault(k, FAULT_RULE);
            k_push(k, &out, cap, v);
        }
        return out;
    }
    for (I i = 0; i < items.n; i++) {
        I v = items.p[i], at = -1;
        if (v == NIL || (U)v >= (U)NCARDS) k_fault(k, FAULT_RULE);
        for (I j = 0; j < out.n; j++) if (LABEL[out.p[j]] == LABEL[v]) { at = j; break; }
        if (at < 0) k_push(k, &out, cap, v);
        else if (S[UP + v] && !S[UP + out.p[at]]) out.p[at] = v;
    }
    return out;
}

/* every nonempty subset of the pool as a mask of its positions: by size, then in the order
   itertools.combinations gives; with `cards`, one per different set of labels */
static void k_sort_small(I *a, I n) {
    for (I i = 1; i < n; i++) {
        I x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}
static B k_subsets(K *k, I cap, B pool, I cards, I why) {
    I n = pool.n;
    if (n > MAX_SUBSET) k_fail(k, why, n);
    k_charge(k, (I)1 << n);
    B out = k_alloc(k, ((I)1 << n));
    /* for cards: the sorted labels of each subset kept of the current size, to keep one per set */
    B keys = k_alloc(k, cards ? ((I)1 << n) * (n > 0 ? n : 1) : 1);
    I idx[64];
    for (I size = 1; size <= n; size++) {
        I kept = 0;  /* subsets of this size kept so far: their keys are keys.p[0 .. kept*size) */
        for (I i = 0; i < size; i++) idx[i] = i;
        for (;;) {
            I mask = 0;
            for (I i = 0; i < size; i++) mask |= (I)1 << idx[i];
            int keep = 1;
            if (cards) {
                I *key = keys.p + kept * size;
                for (I i = 0; i < size; i++) key[i] = LABEL[pool.p[idx[i]]];
                k_sort_small(key, size);
                for (I j = 0; j < kept && keep; j++)
                    if (memcmp(keys.p + j * size, key, (size_t)size * sizeof(I)) == 0) keep = 0;
                if (keep) kept++;
            }
            if (keep) out.p[out.n++] = mask;
            I i = size - 1;
            while (i >= 0 && idx[i] == n - size + i) i--;
            if (i < 0) break;
            idx[i]++;
            for (I j = i + 1; j < size; j++) idx[j] = idx[j - 1] + 1;
        }
    }
    (void)cap;
    return out;
}

static B k_unmask(K *k, I cap, B pool, I mask) {
    B out = k_alloc(k, cap);
    for (I t = 0; t < pool.n; t++) if (mask & ((I)1 << t)) k_push(k, &out, cap, pool.p[t]);
    return out;
}

/* ---- the board ------------------------------------------------------------------------------ */

static B k_adjacent(K *k, I cap, I c) {
    B out = k_alloc(k, cap);
    if (c == NIL || c < BOARD_LOW || c > BOARD_HIGH) return out;
    I i = c - BOARD_LOW;
    for (I j = ADJ_AT[i]; j < ADJ_AT[i + 1]; j++) k_push(k, &out, cap, ADJ[j]);
    return out;
}

static B k_slide(K *k, I cap, I c, B blocked) {
    k_charge(k, blocked.n);
    B out = k_alloc(k, cap);
    if (c == NIL || c < BOARD_LOW || c > BOARD_HIGH) return out;
    I i = c - BOARD_LOW;
    k_charge(k, RUN_AT[i + 1] - RUN_AT[i]);
    I nb = BOARD_HIGH - BOARD_LOW + 1;
    /* seen.p[x]: 1 reached, 2 blocked (a circle is blocked if it is on the board and in `blocked`) */
    B seen = k_alloc(k, nb);
    memset(seen.p, 0, (size_t)nb * sizeof(I));
    for (I t = 0; t < blocked.n; t++) {
        I x = blocked.p[t];
        if (x != NIL && x >= BOARD_LOW && x <= BOARD_HIGH) seen.p[x - BOARD_LOW] = 2;
    }
    for (I r = RUN_AT[i]; r < RUN_AT[i + 1]; r++) {
        for (I j = RUN_OFF[r]; j < RUN_OFF[r + 1]; j++) {
            I x = RUNS[j] - BOARD_LOW;
            if (seen.p[x] == 2) break;
            seen.p[x] = 1;
        }
    }
    for (I j = 0; j < nb; j++) if (seen.p[j] == 1) k_push(k, &out, cap, j + BOARD_LOW);
    return out;
}
