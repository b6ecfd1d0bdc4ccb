// The analysis board's engine panel: the server's engine lines for the position shown, over /ws/analysis
// (deeper results as they come): several best moves (multi-PV) with their score, depth and principal
// variation; the best one is drawn as an arrow on the board by the page.

import { LiveSocket } from "./api.js";
import { h } from "./dom.js";
import { errorText, t } from "./i18n.js";

const SECONDS = 5; // the search budget per position
const SETTLE_MS = 200; // stepping through moves quickly asks only for the position stopped at

/** A score as a player reads it: material in pieces from White's point of view, or a proven win. */
export function scoreText(score) {
  if (!score) return "";
  if (score.kind === "win") {
    const n = score.moves;
    return score.winner === "white" ? t("analysis.whiteWinsIn", { n }) : t("analysis.blackWinsIn", { n });
  }
  const value = score.value;
  return `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)}`;
}

export class EnginePanel {
  /** `onLines(lines, fen)`: the latest lines for the position `fen` (to draw the best move's arrow). */
  constructor({ onLines }) {
    this.onLines = onLines;
    this.on = false;
    this.count = 3;
    this.socket = null;
    this.request = 0;
    this.position = null; // {variant, fen, moves, start, doubleDiagonal}
    this.report = null;
    this.error = null;
    this.timer = null;
    this.el = h("section", { class: "card analysis-engine", id: "engine" });
    this.draw();
  }

  /** Analyse this position (when the engine is on): `start` and `moves` give the game's history. */
  show(position) {
    this.position = position;
    this.report = null;
    this.error = null;
    this.request += 1; // answers about the previous position are no longer wanted
    clearTimeout(this.timer);
    if (this.on) this.timer = setTimeout(() => this.send(), SETTLE_MS);
    this.draw();
  }

  toggle() {
    this.on = !this.on;
    if (this.on) {
      if (!this.socket) this.socket = new LiveSocket("/ws/analysis", (m) => this.message(m));
      this.send();
    } else {
      if (this.socket) this.socket.send({ type: "stop" });
      this.report = null;
      this.onLines([], null);
    }
    this.draw();
  }

  send() {
    const p = this.position;
    if (!p || !this.socket) return;
    this.request += 1;
    this.report = null;
    this.socket.send({
      type: "analyse",
      id: this.request,
      variant: p.variant,
      fen: p.start,
      moves: p.moves,
      double_diagonal: p.doubleDiagonal,
      lines: this.count,
      seconds: SECONDS,
    });
  }

  message(m) {
    if (m.id !== this.request || !this.on) return; // an answer about a position no longer shown
    if (m.type === "error") {
      this.error = errorText(m.error);
      this.report = null;
    } else if (m.type === "lines") {
      this.report = m;
      this.error = null;
      this.onLines(m.lines, m.fen);
    }
    this.draw();
  }

  close() {
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
    this.socket = null;
  }

  draw() {
    const toggle = h(
      "button",
      { class: this.on ? "" : "secondary", id: "engine-toggle", "aria-pressed": this.on ? "true" : "false", onClick: () => this.toggle() },
      this.on ? t("analysis.engineOff") : t("analysis.engineOn")
    );
    const count = h(
      "select",
      {
        id: "engine-lines",
        "aria-label": t("analysis.lineCount"),
        onChange: (e) => {
          this.count = Number(e.target.value);
          if (this.on) this.send();
        },
      },
      [1, 2, 3, 4, 5].map((n) => h("option", { value: n, selected: n === this.count }, t("analysis.lines", { n })))
    );
    const head = h("div", { class: "row engine-head" }, h("h2", {}, t("analysis.engine")), toggle, count);
    const body = [];
    const report = this.report;
    if (this.on && this.error) body.push(h("p", { class: "error", id: "engine-error" }, this.error));
    else if (this.on && !report) body.push(h("p", { class: "muted" }, h("span", { class: "spinner" }), t("analysis.thinking")));
    if (this.on && report) {
      const status = report.done ? t("analysis.depth", { depth: report.depth }) : t("analysis.depthSearching", { depth: report.depth });
      body.push(h("p", { class: "muted", id: "engine-depth", dataset: { depth: String(report.depth), done: report.done ? "1" : "0" } }, status));
      if (!report.lines.length) body.push(h("p", { class: "muted" }, t("analysis.noMoves")));
      body.push(
        h(
          "ol",
          { class: "engine-lines", id: "engine-lines-list" },
          report.lines.map((line) =>
            h(
              "li",
              { class: "engine-line", dataset: { move: line.move } },
              h("strong", { class: "score" }, scoreText(line.score)),
              h("small", { class: "muted" }, ` ${t("analysis.depthShort", { depth: line.depth })} `),
              h("span", { class: "pv" }, line.pv.slice(0, 12).join(" "))
            )
          )
        )
      );
    }
    this.el.replaceChildren(head, ...body);
  }
}
