/* Fisherman (rulesets/fisherman.fish), written by hand in plain C99: the physical limit.
 *
 * The same rules as benchmarks/baselines/fisherman.py (its docstring reads them out of the
 * ruleset), played under the kernel's rules of chance and choice (fishrules.kernel.reference,
 * fishrules.kernel.pyruntime), so that a seed plays exactly the engine's game:
 *
 *   - one generator: splitmix64 of the draw's number, mix(seed, n); below(k) draws until
 *     r < 2^64 - (2^64 mod k) and returns r mod k.  Chance uses the game's seed; the random
 *     choices a second generator seeded decision_seed(seed) = mix(seed, 2^64 - 2) >> 1.
 *   - each round the deck is every card in card-id order (suit-major: horse_mackerel 1..10,
 *     puffer_fish, sea_bream, goby, squid; squid out with 3 players); a draw takes the card at
 *     index below(len) and the later cards shift down.  Hands are dealt hand_size cards each,
 *     starting left of the dealer, each hand in the order its cards were drawn.
 *   - at every decision (one with a single legal move too) move below(n) of the n legal moves in
 *     the engine's order: choose_target: the suits in play in suit order; choose_valuation:
 *     large, small; choose_size: 1..9; choose_valuation_and_size (3 players): large 1..9, then
 *     small 1..9; choose_not_target: the suits in play but the Target; play_card: the hand in
 *     its order, or only its cards of the lead suit when it holds any (not the leader).
 *
 * Written for speed, the way one writes a game for a simulation study: cards are small ints
 * (suit << 4 | number); the deck is its cards as bytes packed in 64-bit words (a draw shifts the
 * words above it down one byte); a hand is its cards in the order drawn plus bit masks of the slots
 * still held, all and per suit, so that a move is the k-th bit set of one mask and playing a card
 * clears a bit; each round's card values and trick strengths are small tables; no allocation, and
 * the state of a game is a few hundred bytes on the stack.
 * Built as a shared library and called through ctypes (benchmarks/baselines/cbaseline.py):
 *
 *   fisherman_play(players, seed, scores, &winners_mask, &decisions)       one game
 *   fisherman_play_many(players, seed0, games, &total_score, &total_decisions)
 *                                     games seeded seed0, seed0 + 1, ... (mod 2^64), totals only
 *   fisherman_record(players, seed, record, capacity)                      one game's history
 *
 * Each returns a negative number for players other than 3 or 4 (or a record too small).
 */

#include <stdint.h>
#include <string.h>

#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)

/* ---- the generator ------------------------------------------------------------------------- */

/* A counter-based splitmix64: z is seed + n * GOLDEN after n draws; draw n is the finaliser of
 * seed + (n + 1) * GOLDEN. */
typedef struct {
    uint64_t z;
} gen;

static inline uint64_t finalise(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* 2^64 mod k, for k = 1..63 (at most 50 cards or moves are ever counted): (2^64 - k) mod k. */
#define R(K) ((UINT64_C(0) - (uint64_t)(K)) % (uint64_t)(K))
#define R8(K) R(K), R(K + 1), R(K + 2), R(K + 3), R(K + 4), R(K + 5), R(K + 6), R(K + 7)
static const uint64_t REM[64] = {0, R(1), R(2), R(3), R(4), R(5), R(6), R(7),
                                 R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56)};
#undef R8
#undef R

/* A number 0 <= r < k (1 <= k <= 63), exactly uniform by rejection; k = 1 uses a draw too. */
static inline unsigned below(gen *g, unsigned k) {
    uint64_t accept_max = UINT64_MAX - REM[k]; /* r < 2^64 - (2^64 mod k) */
    for (;;) {
        uint64_t r;
        g->z += GOLDEN;
        if (k == 1)
            return 0;
        r = finalise(g->z);
        if (r <= accept_max)
            return (unsigned)(r % k);
    }
}

/* ---- the game ------------------------------------------------------------------------------ */

#define SUIT(c) ((c) >> 4)

/* The deck in card-id order, card i in byte i % 8 of word i / 8 (a card is suit << 4 | number:
 * 0x01 is horse_mackerel-1, 0x4A squid-10); with 3 players, no squid. */
static const uint64_t DECK4[8] = {
    UINT64_C(0x0807060504030201), UINT64_C(0x1615141312110A09),
    UINT64_C(0x242322211A191817), UINT64_C(0x32312A2928272625),
    UINT64_C(0x3A39383736353433), UINT64_C(0x4847464544434241),
    UINT64_C(0x0000000000004A49), UINT64_C(0x0000000000000000)};
static const uint64_t DECK3[8] = {
    UINT64_C(0x0807060504030201), UINT64_C(0x1615141312110A09),
    UINT64_C(0x242322211A191817), UINT64_C(0x32312A2928272625),
    UINT64_C(0x3A39383736353433), UINT64_C(0x0000000000000000),
    UINT64_C(0x0000000000000000), UINT64_C(0x0000000000000000)};

/* The slot of the lowest bit set in a 32-bit word: de Bruijn multiplication. */
static const uint8_t DEBRUIJN[32] = {0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
                                     31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9};

/* The slot of the k-th (from 0) bit set in m (which has more than k bits set). */
static inline unsigned select_bit(uint32_t m, unsigned k) {
    for (; k; k--)
        m &= m - 1;
    return DEBRUIJN[((m & (0u - m)) * UINT32_C(0x077CB531)) >> 27];
}

static const int SHIELD[5] = {0, 5, 3, 1, 0}; /* by place 1..4 */

/* What a history holds, for fisherman_record: each entry two ints (kind, value). */
enum { R_DRAW, R_TARGET, R_VALUATION, R_SIZE, R_VALUATION_AND_SIZE, R_NOT_TARGET, R_PLAY };

#define REC(kind, value)                      \
    do {                                      \
        if (rec) {                            \
            if (rec_end - rec < 2)            \
                return -2;                    \
            rec[0] = (kind);                  \
            rec[1] = (value);                 \
            rec += 2;                         \
        }                                     \
    } while (0)

/* One whole game.  vp[players] gets the victory points; returns the number of decisions, or a
 * negative number (bad players, record too small).  With rec, writes the history there. */
static int64_t play_game(int players, uint64_t seed, int vp[4], int32_t *rec, int32_t *rec_end) {
    const int n = players;
    const int nsuits = n == 3 ? 4 : 5;
    const int ncards = nsuits * 10;
    const int hs = ncards / n; /* 13 or 12; the extra card(s) go back to the box */
    gen chance, choice;
    /* A hand: the cards dealt in slots 0..hand_size-1 in the order drawn; `held` has bit i set
     * while slot i holds its card, `of_suit[s]` the held slots of suit s, `count` their numbers. */
    uint8_t hand[4][16];
    uint32_t held[4], of_suit[4][5];
    int len[4];
    int count[4][5];
    uint64_t deck[8]; /* byte i of the deck: bits 8 * (i % 8) of word i / 8 */
    int value[80], strength[80];
    int points[4];
    int64_t decisions = 0;
    int dealer, p, i, j;

    if (n != 3 && n != 4)
        return -1;
    chance.z = seed;
    choice.z = finalise(seed + (UINT64_C(0) - 1) * GOLDEN) >> 1; /* mix(seed, 2^64 - 2) >> 1 */
    for (p = 0; p < n; p++)
        vp[p] = 0;

    for (dealer = 0; dealer < n; dealer++) {
        int target, not_target, large, low, leader, trick;

        /* distribution: the deck in card-id order, dealt from the left of the dealer */
        memcpy(deck, n == 3 ? DECK3 : DECK4, sizeof deck);
        {
            int left = ncards;
            for (j = 1; j <= n; j++) {
                p = (dealer + j) % n;
                memset(count[p], 0, sizeof count[p]);
                memset(of_suit[p], 0, sizeof of_suit[p]);
                for (i = 0; i < hs; i++) {
                    unsigned k = below(&chance, (unsigned)left);
                    unsigned w = k >> 3, sh = (k & 7) * 8;
                    uint64_t x = deck[w], low = sh ? x & ((UINT64_C(1) << sh) - 1) : 0;
                    uint8_t c = (uint8_t)(x >> sh);
                    /* take byte k out: the bytes above it move down one */
                    deck[w] = low | ((x >> sh >> 8) << sh) | deck[w + 1] << 56;
                    for (w++; w <= (unsigned)(left - 1) >> 3; w++)
                        deck[w] = deck[w] >> 8 | deck[w + 1] << 56;
                    left--;
                    hand[p][i] = c;
                    count[p][SUIT(c)]++;
                    of_suit[p][SUIT(c)] |= 1u << i;
                    REC(R_DRAW, c);
                }
                len[p] = hs;
                held[p] = (1u << hs) - 1;
            }
        }

        /* rule decision: left of the dealer the Target, then the Valuation and Size, the dealer
         * the Not Target */
        target = (int)below(&choice, (unsigned)nsuits);
        REC(R_TARGET, target);
        if (n == 4) {
            large = below(&choice, 2) == 0;
            REC(R_VALUATION, !large);
            low = (int)below(&choice, 9) + 1;
            REC(R_SIZE, low);
        } else {
            unsigned k = below(&choice, 18);
            large = k < 9;
            low = (int)(k % 9) + 1;
            REC(R_VALUATION_AND_SIZE, (int)(k >= 9) << 4 | low);
        }
        not_target = (int)below(&choice, (unsigned)(nsuits - 1));
        if (not_target >= target)
            not_target++;
        REC(R_NOT_TARGET, not_target);
        decisions += n;

        /* each card's round points and trick strength (+100 for the Not Target suit) */
        for (i = 0; i < ncards; i++) {
            int s = i / 10, k = i % 10 + 1, c = s << 4 | k;
            int v = (s == target) - (s == not_target);
            if (k == low || k == low + 1)
                v += s == not_target ? -1 : 1;
            value[c] = v;
            strength[c] = (large ? k : 11 - k) + (s == not_target ? 100 : 0);
        }

        /* fishing: the dealer leads the first trick, the winner of a trick the next */
        for (p = 0; p < n; p++)
            points[p] = 0;
        leader = dealer;
        for (trick = 0; trick < hs; trick++) {
            unsigned slot = select_bit(held[leader], below(&choice, (unsigned)len[leader]));
            uint8_t c = hand[leader][slot];
            int lead = SUIT(c), best = strength[c], winner = leader, total = value[c];
            held[leader] &= ~(1u << slot);
            of_suit[leader][lead] &= ~(1u << slot);
            len[leader]--;
            count[leader][lead]--;
            REC(R_PLAY, c);
            for (j = 1; j < n; j++) {
                int s;
                p = leader + j;
                if (p >= n)
                    p -= n;
                if (count[p][lead]) /* follow the lead suit: the k-th card of it */
                    slot = select_bit(of_suit[p][lead], below(&choice, (unsigned)count[p][lead]));
                else
                    slot = select_bit(held[p], below(&choice, (unsigned)len[p]));
                c = hand[p][slot];
                s = SUIT(c);
                held[p] &= ~(1u << slot);
                of_suit[p][s] &= ~(1u << slot);
                len[p]--;
                count[p][s]--;
                REC(R_PLAY, c);
                total += value[c];
                if (s == lead || s == not_target) {
                    if (strength[c] > best) {
                        best = strength[c];
                        winner = p;
                    }
                }
            }
            points[winner] += total;
            leader = winner;
        }
        decisions += (int64_t)n * hs;

        /* results: a shield by place, 1 + how many have more points */
        for (p = 0; p < n; p++) {
            int place = 1, q;
            for (q = 0; q < n; q++)
                place += points[q] > points[p];
            vp[p] += SHIELD[place];
        }
    }
    return decisions;
}

static int winners_of(int n, const int vp[4]) {
    int best = vp[0], mask = 0, p;
    for (p = 1; p < n; p++)
        if (vp[p] > best)
            best = vp[p];
    for (p = 0; p < n; p++)
        if (vp[p] == best)
            mask |= 1 << p;
    return mask;
}

/* ---- exported ------------------------------------------------------------------------------ */

/* One game: scores[players] (victory points), the winners as a bit mask (bit p for seat p), the
 * number of decisions.  Returns 0, or -1 for players other than 3 or 4. */
int fisherman_play(int players, uint64_t seed, int64_t *scores, int *winners_mask, int64_t *decisions) {
    int vp[4], p;
    int64_t d;
    d = play_game(players, seed, vp, 0, 0);
    if (d < 0)
        return (int)d;
    for (p = 0; p < players; p++)
        scores[p] = vp[p];
    *winners_mask = winners_of(players, vp);
    *decisions = d;
    return 0;
}

/* `games` games seeded seed0, seed0 + 1, ...: the sum of every player's score and the sum of the
 * decisions, over all of them.  Returns 0, or -1 for players other than 3 or 4. */
int fisherman_play_many(int players, uint64_t seed0, int64_t games, int64_t *total_score, int64_t *total_decisions) {
    int vp[4], p;
    int64_t g, score = 0, decisions = 0;
    if (players != 3 && players != 4)
        return -1;
    for (g = 0; g < games; g++) {
        decisions += play_game(players, seed0 + (uint64_t)g, vp, 0, 0);
        for (p = 0; p < players; p++)
            score += vp[p];
    }
    *total_score = score;
    *total_decisions = decisions;
    return 0;
}

/* One game's history, as the engine's history lists it (chance included): `capacity` ints at
 * `record`, two per entry (kind, value); kinds in the enum above, cards as suit << 4 | number,
 * valuation 0 large 1 small, valuation_and_size as small << 4 | low.  Returns the number of
 * entries, -1 for players other than 3 or 4, -2 if the record is too small. */
int fisherman_record(int players, uint64_t seed, int32_t *record, int capacity) {
    int vp[4];
    int64_t d;
    if (capacity < 0)
        return -2;
    d = play_game(players, seed, vp, record, record + capacity);
    if (d < 0)
        return (int)d;
    return (int)(d + (int64_t)players * players * (players == 3 ? 13 : 12));
}

/* ---- a program, for the sanitizer build of the tests ------------------------------------------ */

#ifdef FISHERMAN_MAIN
#include <stdio.h>
#include <stdlib.h>

/* fisherman PLAYERS SEED0 GAMES: plays the games through every entry point, prints
 * "total_score total_decisions", and exits 1 if the entry points disagree. */
int main(int argc, char **argv) {
    int players, mask;
    uint64_t seed0;
    int64_t games, g, score = 0, decisions = 0, total_score, total_decisions, scores[4], d;
    int32_t record[2 * 400];
    if (argc != 4) {
        fprintf(stderr, "usage: %s PLAYERS SEED0 GAMES\n", argv[0]);
        return 2;
    }
    players = atoi(argv[1]);
    seed0 = strtoull(argv[2], 0, 10);
    games = strtoll(argv[3], 0, 10);
    for (g = 0; g < games; g++) {
        int p, entries;
        if (fisherman_play(players, seed0 + (uint64_t)g, scores, &mask, &d) != 0)
            return 2;
        for (p = 0; p < players; p++)
            score += scores[p];
        decisions += d;
        entries = fisherman_record(players, seed0 + (uint64_t)g, record, 2 * 400);
        if (entries <= 0 || fisherman_record(players, seed0 + (uint64_t)g, record, 2 * entries - 1) != -2) {
            fprintf(stderr, "fisherman_record: %d entries\n", entries);
            return 1;
        }
    }
    if (fisherman_play_many(players, seed0, games, &total_score, &total_decisions) != 0)
        return 2;
    if (total_score != score || total_decisions != decisions) {
        fprintf(stderr, "fisherman_play_many disagrees with fisherman_play\n");
        return 1;
    }
    printf("%lld %lld\n", (long long)total_score, (long long)total_decisions);
    return 0;
}
#endif
