// The computer's analysis of a finished game: a button to ask for it (an account is needed), its
// progress while the engine works, then the evaluation graph (White's advantage over the game, in men),
// the moves marked as inaccuracies, mistakes and blunders with the engine's better move, and each
// player's accuracy. The server stores one analysis per game and shows it to everyone
// (GET/POST /api/games/{id}/analysis).

import { api, isAnonymous } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const SHOWN = 600; // hundredths of a man: the graph's scale stops at ±6 men

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export function graph(evals, { onPly } = {}) {
  const width = 300;
  const height = 80;
  const n = Math.max(1, evals.length - 1);
  const y = (cp) => height / 2 - (Math.max(-SHOWN, Math.min(SHOWN, cp)) / SHOWN) * (height / 2 - 2);
  const points = evals.map((cp, i) => `${((i / n) * width).toFixed(1)},${y(cp).toFixed(1)}`);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "eval-graph", role: "img", "aria-label": t("review.graph") });
  root.append(svg("rect", { x: 0, y: 0, width, height, class: "eval-black" }));
  root.append(svg("polygon", { points: `0,${height} ${points.join(" ")} ${width},${height}`, class: "eval-white" }));
  root.append(svg("line", { x1: 0, y1: height / 2, x2: width, y2: height / 2, class: "eval-axis" }));
  if (onPly) {
    root.addEventListener("click", (e) => {
      const box = root.getBoundingClientRect();
      onPly(Math.round(((e.clientX - box.left) / box.width) * n));
    });
  }
  return root;
}

export function mountReview(section, gameId, { onPly } = {}) {
  let timer = null;

  async function load() {
    try {
      const { analysis } = await api("GET", `/api/games/${gameId}/analysis`);
      show(analysis);
    } catch {
      fill(section);
    }
  }

  async function ask(button) {
    button.disabled = true;
    try {
      const { analysis } = await api("POST", `/api/games/${gameId}/analysis`);
      show(analysis);
    } catch (error) {
      button.disabled = false;
      fill(section, h("h2", {}, t("review.title")), h("p", { class: "error", role: "alert" }, error.message));
    }
  }

  function show(analysis) {
    clearTimeout(timer);
    const title = h("h2", {}, t("review.title"));
    if (analysis.status === "none") {
      const button = h("button", { type: "button", id: "request-analysis" }, t("review.request"));
      button.addEventListener("click", () => ask(button));
      fill(section, title, isAnonymous() ? h("p", { class: "muted" }, t("review.loginToRequest")) : button);
      return;
    }
    if (analysis.status === "queued" || analysis.status === "running") {
      const { done, total } = analysis.progress;
      fill(
        section,
        title,
        h("p", { id: "analysis-progress" }, t("review.progress", { done, total })),
        h("progress", { max: Math.max(1, total), value: done, "aria-label": t("review.title") })
      );
      timer = setTimeout(load, 1500);
      return;
    }
    if (analysis.status === "failed") {
      fill(section, title, h("p", { class: "error" }, t("review.failed")));
      return;
    }
    const accuracy = analysis.accuracy || {};
    const marked = analysis.moves.filter((m) => m.mark);
    fill(
      section,
      title,
      graph(analysis.evals, { onPly }),
      h(
        "p",
        { id: "accuracy" },
        t("review.accuracy", { white: accuracy.white ?? "–", black: accuracy.black ?? "–" })
      ),
      marked.length
        ? h(
            "ul",
            { class: "marks", id: "analysis-marks" },
            ...marked.map((m) =>
              h(
                "li",
                { class: `mark-${m.mark}` },
                `${Math.floor(m.ply / 2) + 1}${m.ply % 2 ? "…" : "."} ${m.move} — ${t(`review.mark.${m.mark}`)}`,
                m.best ? ` (${t("review.better", { move: m.best })})` : ""
              )
            )
          )
        : h("p", { class: "muted" }, t("review.noMarks"))
    );
  }

  load();
  return { stop: () => clearTimeout(timer) };
}
