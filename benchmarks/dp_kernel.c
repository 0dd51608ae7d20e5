/* The optimiser's programme (graphfit/planner/tuning/optimize.py) in a compiled loop: the
 * reference `bench_optimize.py` times the pure-Python hull queue against. Same recurrence,
 * same monotone hull queue, same tie-breaking; integer weights, 128-bit cross products.
 *
 * c[0..m] (c[0] = 0), A[0..m], B[0..m]: candidates and prefix sums of w and n*w.
 * Writes the chosen candidate indexes (K of them, the last is m) and returns the waste. */
#include <stdint.h>
#include <stdlib.h>

typedef __int128 i128;

int64_t optimal_ladder(int32_t m, int32_t K, const int64_t *c, const int64_t *A,
                       const int64_t *B, int32_t *chosen) {
    int64_t *base = malloc(sizeof(int64_t) * (m + 1));
    int64_t *F = malloc(sizeof(int64_t) * (m + 1));
    int64_t *G = malloc(sizeof(int64_t) * (m + 1));
    int64_t *S = malloc(sizeof(int64_t) * (m + 1));
    int64_t *Y = malloc(sizeof(int64_t) * (m + 1));
    int32_t *ID = malloc(sizeof(int32_t) * (m + 1));
    int32_t *parent = malloc(sizeof(int32_t) * (size_t)(K > 1 ? K - 1 : 1) * (m + 1));
    for (int32_t j = 0; j <= m; j++) {
        base[j] = c[j] * A[j] - B[j];
        F[j] = base[j];
        G[j] = 0;
    }
    for (int32_t k = 2; k <= K; k++) {
        int32_t last = m - (K - k);
        int32_t head = 0, tail = -1;
        int32_t *par = parent + (size_t)(k - 2) * (m + 1);
        for (int32_t j = 0; j <= m; j++) G[j] = 0;
        for (int32_t j = k; j <= last; j++) {
            int32_t i = j - 1;
            int64_t s = -A[i], y = F[i] + B[i];
            int push = 1;
            while (tail >= head) {
                int64_t s2 = S[tail], y2 = Y[tail];
                if (s2 == s) {
                    if (y2 <= y) { push = 0; break; }
                } else if (tail == head ||
                           (i128)(y - Y[tail - 1]) * (S[tail - 1] - s2) >
                           (i128)(y2 - Y[tail - 1]) * (S[tail - 1] - s)) {
                    break;
                }
                tail--;
            }
            if (push) { tail++; S[tail] = s; Y[tail] = y; ID[tail] = i; }
            int64_t x = c[j];
            int64_t best = S[head] * x + Y[head];
            while (head < tail) {
                int64_t nxt = S[head + 1] * x + Y[head + 1];
                if (nxt > best) break;
                head++;
                best = nxt;
            }
            G[j] = base[j] + best;
            par[j] = ID[head];
        }
        int64_t *t = F; F = G; G = t;
    }
    int64_t cost = F[m];
    int32_t j = m;
    chosen[K - 1] = m;
    for (int32_t k = K; k >= 2; k--) {
        j = parent[(size_t)(k - 2) * (m + 1) + j];
        chosen[k - 2] = j;
    }
    free(base); free(F); free(G); free(S); free(Y); free(ID); free(parent);
    return cost;
}
