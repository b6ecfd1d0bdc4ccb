// The lobby's "Puzzle of the day": a small picture of the day's poddavki puzzle (board.js's `mini` mode,
// turned for the side to find the move), a link to it on the trainer. Hidden when the server has none.

import { api } from "./api.js";
import { Board } from "./board.js";
import { fill, h } from "./dom.js";
import { defaultVariant } from "./geometry.js";
import { t } from "./i18n.js";
import { loadPuzzleStyle } from "./puzzle-widgets.js";

/** The card: {el}; filled when the day's puzzle arrives. */
export function dailyPuzzleCard(variantKey = defaultVariant()) {
  loadPuzzleStyle();
  const body = h("div", { class: "daily-puzzle-body" });
  const el = h("section", { class: "card daily-puzzle", id: "daily-puzzle", hidden: true }, h("h2", {}, t("puzzle.daily")), body);
  api("GET", `/api/puzzles/daily?variant=${encodeURIComponent(variantKey)}`)
    .then(({ puzzle }) => {
      if (!puzzle) return;
      const board = Board.mini(puzzle.variant, puzzle.fen, puzzle.solver);
      fill(
        body,
        h(
          "a",
          { class: "mini-game daily-puzzle-link", id: "daily-puzzle-link", href: `/puzzles/${puzzle.id}`, dataset: { puzzle: String(puzzle.id) } },
          board.el,
          h("span", { class: "name" }, t(`puzzle.toMove.${puzzle.solver}`)),
          h("small", { class: "muted" }, t("puzzle.puzzleRating", { rating: puzzle.rating }))
        )
      );
      el.hidden = false;
    })
    .catch(() => {}); // no puzzles on this server (yet): no card
  return { el };
}
