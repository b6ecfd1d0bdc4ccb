/* A loop around KestoG's CheckerBoard call `getmove`, for benchmarks/engine_opponents.py (ours; KestoG's
 * own source is never in this tree: the benchmark exports it beside this file and compiles the two).
 *
 * Each input line:  go <color: 1 white, 2 black> <milliseconds> <64 numbers: board[x][y], x-major>
 * Each answer:      board <64 numbers: the board after the engine's move>
 * (KestoG's own prints, its search lines, come before the answer and are skipped by the reader.)
 *
 * The time: KestoG looks at the clock only between the iterations of its iterative deepening and stops
 * after the first one that ends past `maxtime`, so it overruns by up to the length of its last
 * iteration. The driver therefore also uses CheckerBoard's "play now": an interval timer sets
 * `*playnow` when the time is up, and KestoG plays the best move of its last completed iteration.
 */
#include <signal.h>
#include <sys/time.h>

#define main kestog_demo_main
#include "KestoG.C"
#undef main

static int playnow = 0;

static void time_is_up(int signal_number) {
  (void)signal_number;
  playnow = 1;
}

int main(void) {
  static char line[8192];
  while (fgets(line, sizeof line, stdin)) {
    int board[8][8];
    int color = 0, ms = 0, used = 0, offset = 0;
    if (sscanf(line, "go %d %d%n", &color, &ms, &offset) != 2) continue;
    char *p = line + offset;
    for (int i = 0; i < 64; i++) {
      int value = 0;
      sscanf(p, "%d%n", &value, &used);
      p += used;
      board[i / 8][i % 8] = value;
    }
    char status[1024];
    struct CBmove move;
    struct itimerval timer = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
    struct itimerval off = {{0, 0}, {0, 0}};
    playnow = 0;
    signal(SIGALRM, time_is_up);
    setitimer(ITIMER_REAL, &timer, NULL);
    getmove(board, color, ms / 1000.0, status, &playnow, 0, 0, &move);
    setitimer(ITIMER_REAL, &off, NULL);
    printf("\nboard");
    for (int i = 0; i < 64; i++) printf(" %d", board[i / 8][i % 8]);
    printf("\n");
    fflush(stdout);
  }
  return 0;
}
