/* A loop around KestoG's CheckerBoard call `getmove`, for benchmarks/engine_opponents.py (ours; KestoG's
 * own source is never in this tree: the benchmark exports it beside this file and compiles the two).
 *
 * Each input line:  go <color: 1 white, 2 black> <milliseconds> <64 numbers: board[x][y], x-major>
 * Each answer:      board <64 numbers: the board after the engine's move>
 * (KestoG's own prints, its search lines, come before the answer and are skipped by the reader.)
 */
#define main kestog_demo_main
#include "KestoG.C"
#undef main

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
    int playnow = 0;
    struct CBmove move;
    getmove(board, color, ms / 1000.0, status, &playnow, 0, 0, &move);
    printf("\nboard");
    for (int i = 0; i < 64; i++) printf(" %d", board[i / 8][i % 8]);
    printf("\n");
    fflush(stdout);
  }
  return 0;
}
