// The address of the analysis board for a game (the game page's "Analyse" link): its variant, its start
// position when it did not begin from the variant's, and its moves as movetext, opened at the last move,
// seen from `orientation` (the player's side, as lichess opens a game's analysis: `color=black`).

export function analysisUrl({ variant, initial_fen: fen, moves = [], double_diagonal: dd }, orientation = "white") {
  const params = new URLSearchParams({ variant });
  if (fen) params.set("fen", fen);
  if (dd) params.set("dd", "1");
  if (moves.length) params.set("pdn", moves.join(" "));
  params.set("at", "end");
  if (orientation === "black") params.set("color", "black");
  return `/analysis?${params}`;
}
