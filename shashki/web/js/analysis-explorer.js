// The analysis board's opening explorer: for the position shown, the moves played from it in finished
// games on this server (how many games, White wins / draws / Black wins as a bar, the players' average
// rating; GET /api/explorer) and the engine's opening book's moves (how often the engine's self-play
// chose each, and its score; GET /api/explorer/book). Clicking a move plays it on the board. A toggle
// shows or hides it (remembered in this browser). The tables are real tables (a caption, column
// headers, the bar's figures in words) so that a screen reader reads them as such.

import { api } from "./api.js";
import { h, s } from "./dom.js";
import { t } from "./i18n.js";
import { scoreText } from "./analysis-engine.js";

const SETTLE_MS = 150; // stepping through moves quickly asks only about the position stopped at
const STORED = "shashki.explorer";

const percent = (part, whole) => (whole ? Math.round((100 * part) / whole) : 0);

/** The results as a bar: White's wins, draws, Black's wins, each as wide as its share (SVG: no inline style). */
function resultBar(row) {
  const total = row.white + row.draws + row.black;
  const shares = [
    ["white", percent(row.white, total)],
    ["draws", percent(row.draws, total)],
    ["black", percent(row.black, total)],
  ];
  let x = 0;
  const rects = shares.map(([kind, share]) => {
    const rect = s("rect", { x, y: 0, width: share, height: 10, class: `bar-${kind}` });
    x += share;
    return rect;
  });
  const words = t("explorer.resultsText", { white: shares[0][1], draws: shares[1][1], black: shares[2][1] });
  return [
    s("svg", { class: "result-bar", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" }, rects),
    h("span", { class: "visually-hidden" }, words),
    h("span", { class: "bar-figures", "aria-hidden": "true" }, shares.map(([, share]) => `${share}%`).join(" · ")),
  ];
}

export class ExplorerPanel {
  /** `onPlay(move)`: play this move (its notation) on the board from the position shown. */
  constructor({ onPlay }) {
    this.onPlay = onPlay;
    this.on = localStorage.getItem(STORED) !== "off";
    this.position = null; // {variant, fen, doubleDiagonal}
    this.games = null;
    this.book = null;
    this.error = null;
    this.request = 0;
    this.timer = null;
    this.toggleButton = null;
    this.key = null; // the position shown: variant, option, FEN
    this.head = h("div", { class: "row explorer-head" });
    this.body = h("div", { id: "explorer-body" });
    this.el = h("section", { class: "card analysis-explorer", id: "explorer", "aria-labelledby": "explorer-title" }, this.head, this.body);
    this.draw();
  }

  /** Explore this position (when the panel is shown). */
  show(position) {
    const key = `${position.variant}|${position.doubleDiagonal ? 1 : 0}|${position.fen}`;
    if (key === this.key && this.on && !this.error) return; // the same position drawn again (a promotion)
    this.key = key;
    this.position = position;
    this.games = null;
    this.book = null;
    this.error = null;
    this.request += 1; // answers about the previous position are no longer wanted
    clearTimeout(this.timer);
    if (this.on) this.timer = setTimeout(() => this.load(), SETTLE_MS);
    this.draw();
  }

  toggle() {
    this.on = !this.on;
    localStorage.setItem(STORED, this.on ? "on" : "off");
    this.key = null;
    if (this.on && this.position) this.show(this.position);
    else this.draw();
  }

  async load() {
    const p = this.position;
    if (!p) return;
    const id = ++this.request;
    const params = new URLSearchParams({ variant: p.variant, fen: p.fen });
    if (p.doubleDiagonal) params.set("double_diagonal", "true");
    try {
      const [games, book] = await Promise.all([api("GET", `/api/explorer?${params}`), api("GET", `/api/explorer/book?${params}`)]);
      if (id !== this.request) return;
      this.games = games;
      this.book = book;
    } catch (e) {
      if (id !== this.request) return;
      this.error = e.message;
    }
    this.draw();
  }

  close() {
    clearTimeout(this.timer);
    this.request += 1;
  }

  moveButton(move) {
    return h("button", { type: "button", class: "link explorer-move", "aria-label": t("explorer.playMove", { move }), onClick: () => this.onPlay(move) }, move);
  }

  gamesTable(games) {
    if (!games.moves.length) return h("p", { class: "muted", id: "explorer-no-games" }, t("explorer.noGames"));
    const head = ["explorer.move", "explorer.count", "explorer.results", "explorer.rating"];
    return h(
      "table",
      { class: "explorer-table", id: "explorer-games" },
      h("caption", {}, t("explorer.gamesCaption", { n: games.games })),
      h("thead", {}, h("tr", {}, head.map((key) => h("th", { scope: "col" }, t(key))))),
      h(
        "tbody",
        {},
        games.moves.map((row) =>
          h(
            "tr",
            { dataset: { move: row.move, games: String(row.games), white: String(row.white), draws: String(row.draws), black: String(row.black) } },
            h("th", { scope: "row" }, this.moveButton(row.move)),
            h("td", { class: "num" }, String(row.games)),
            h("td", { class: "results" }, resultBar(row)),
            h("td", { class: "num" }, row.average_rating == null ? "—" : String(row.average_rating))
          )
        )
      )
    );
  }

  bookTable(book) {
    if (!book.book) return h("p", { class: "muted", id: "explorer-no-book" }, t("explorer.noBookVariant"));
    if (!book.moves.length) return h("p", { class: "muted", id: "explorer-no-book" }, t("explorer.noBook"));
    const head = ["explorer.move", "explorer.share", "explorer.score"];
    return h(
      "table",
      { class: "explorer-table", id: "explorer-book" },
      h("caption", {}, t("explorer.bookCaption")),
      h("thead", {}, h("tr", {}, head.map((key) => h("th", { scope: "col" }, t(key))))),
      h(
        "tbody",
        {},
        book.moves.map((row) =>
          h(
            "tr",
            { dataset: { move: row.move } },
            h("th", { scope: "row" }, this.moveButton(row.move)),
            h("td", { class: "num" }, `${row.share}%`),
            h("td", { class: "num" }, scoreText(row.score))
          )
        )
      )
    );
  }

  draw() {
    // The toggle and the heading stay in place (a keyboard user's focus stays on the toggle).
    if (!this.toggleButton) {
      this.toggleButton = h("button", { type: "button", class: "secondary", id: "explorer-toggle", "aria-controls": "explorer-body", onClick: () => this.toggle() });
      this.head.append(h("h2", { id: "explorer-title" }, t("explorer.title")), this.toggleButton);
    }
    this.toggleButton.setAttribute("aria-expanded", this.on ? "true" : "false");
    this.toggleButton.textContent = this.on ? t("explorer.hide") : t("explorer.show");
    const body = this.body;
    body.hidden = !this.on;
    body.setAttribute("aria-busy", this.on && !this.games && !this.error ? "true" : "false");
    body.dataset.fen = this.games ? this.games.fen : "";
    if (!this.on) body.replaceChildren();
    else if (this.error) body.replaceChildren(h("p", { class: "error", role: "alert" }, this.error));
    else if (!this.games || !this.book) body.replaceChildren(h("p", { class: "muted" }, t("explorer.loading")));
    else body.replaceChildren(this.gamesTable(this.games), this.bookTable(this.book));
  }
}
