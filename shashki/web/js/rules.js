// The rules pages: Russian giveaway (poddavki) explained first and in full, then every other variant
// from the parameters the server plays it by (/web/variants.json), in the player's language.
//
// The diagrams are positions of RULES.md §7 with their complete legal moves as arrows (copied from the
// specification, not computed here).

import { Board } from "./board.js";
import { h } from "./dom.js";
import { variant, variants } from "./geometry.js";
import { t } from "./i18n.js";
import { variantName } from "./widgets.js";

const PODDAVKI = "russian-giveaway";
const COLORS = ["green", "blue", "red"];

// Each diagram: a FEN (algebraic squares) and the legal moves RULES.md §7 lists for it.
const DIAGRAMS = {
  start: { fen: null, moves: [] },
  compulsory: { fen: "W:Wc3:Bd4,f6", moves: ["c3:e5:g7"] },
  backward: { fen: "W:We5:Bd4", moves: ["e5:c3"] },
  freeChoice: { fen: "W:Wa3,g3:Bb4,d6,f4,f6", moves: ["a3:c5:e7:g5:e3", "g3:e5:c7", "g3:e5:g7"] },
  turkish: { fen: "W:WKb2:Bb4,c3,b6,e7", moves: ["b2:d4:a7", "b2:f6:d8:a5"] },
  landing: { fen: "W:WKa1:Bc3,f4", moves: ["a1:e5:g3", "a1:e5:h2"] },
  promotion: { fen: "W:Wb6:Bc7,f6", moves: ["b6:d8:g5", "b6:d8:h4"] },
  blocked: { fen: "W:Wh2:Bg3,f4", moves: [] },
  sacrifice: { fen: "W:WKg1:BKe5", moves: ["g1-d4"] },
  doubleDiagonal: {
    fen: "W:WKc5:BKd6",
    moves: [],
    marks: Object.fromEntries(
      ["g1", "f2", "e3", "d4", "c5", "b6", "a7", "h2", "g3", "f4", "e5", "d6", "c7", "b8"].map((sq) => [sq, "diagonal"])
    ),
  },
};

function diagram(name, variantKey = PODDAVKI) {
  const spec = DIAGRAMS[name];
  const board = new Board({ variant: variantKey, coordinates: true });
  const start = variant(variantKey);
  board.set({
    fen: spec.fen || startFen(start),
    arrows: spec.moves.map((move, i) => ({ path: move.split(/[-:x]/), color: COLORS[i % COLORS.length] })),
    marks: spec.marks || {},
  });
  return h(
    "figure",
    { class: "diagram", dataset: { diagram: name } },
    board.el,
    h("figcaption", {}, t(`rules.diagram.${name}`), spec.moves.length ? h("code", {}, " ", spec.moves.join(", ")) : null)
  );
}

function startFen(v) {
  // The start position: the first rows of numbered squares for each side (RULES.md §1).
  const men = v.men_per_side;
  const black = Array.from({ length: men }, (_, i) => i + 1);
  const white = Array.from({ length: men }, (_, i) => v.squares - men + i + 1);
  return `${v.first_player === "white" ? "W" : "B"}:W${white.join(",")}:B${black.join(",")}`;
}

function section(id, title, ...content) {
  // Text on the left, its diagram (if any) on the right; one column on a phone.
  const figures = content.filter((el) => el.tagName === "FIGURE");
  const text = content.filter((el) => el.tagName !== "FIGURE");
  return h(
    "section",
    { class: "rule", id },
    h("h2", {}, title),
    h("div", { class: figures.length ? "rule-body with-figure" : "rule-body" }, h("div", {}, ...text), ...figures)
  );
}

function paragraphs(key) {
  return t(key)
    .split("\n")
    .filter(Boolean)
    .map((text) => h("p", {}, text));
}

function poddavkiPage() {
  return [
    h("h1", {}, t("rules.poddavki.title")),
    h("p", { class: "lead" }, t("rules.poddavki.lead")),
    section("goal", t("rules.poddavki.goal.title"), ...paragraphs("rules.poddavki.goal"), diagram("blocked")),
    section("board", t("rules.poddavki.board.title"), ...paragraphs("rules.poddavki.board"), diagram("start")),
    section("moves", t("rules.poddavki.moves.title"), ...paragraphs("rules.poddavki.moves")),
    section("compulsory", t("rules.poddavki.compulsory.title"), ...paragraphs("rules.poddavki.compulsory"), diagram("compulsory")),
    section("backward", t("rules.poddavki.backward.title"), ...paragraphs("rules.poddavki.backward"), diagram("backward")),
    section("free-choice", t("rules.poddavki.freeChoice.title"), ...paragraphs("rules.poddavki.freeChoice"), diagram("freeChoice")),
    section("turkish-strike", t("rules.poddavki.turkish.title"), ...paragraphs("rules.poddavki.turkish"), diagram("turkish")),
    section("landing", t("rules.poddavki.landing.title"), ...paragraphs("rules.poddavki.landing"), diagram("landing")),
    section("promotion", t("rules.poddavki.promotion.title"), ...paragraphs("rules.poddavki.promotion"), diagram("promotion")),
    section("who-wins", t("rules.poddavki.wins.title"), ...paragraphs("rules.poddavki.wins"), diagram("sacrifice")),
    section("draws", t("rules.poddavki.draws.title"), ...paragraphs("rules.poddavki.draws")),
    section(
      "double-diagonal",
      t("rules.poddavki.doubleDiagonal.title"),
      ...paragraphs("rules.poddavki.doubleDiagonal"),
      diagram("doubleDiagonal"),
      h("p", { class: "note" }, t("rules.poddavki.doubleDiagonal.note"))
    ),
    section("notation", t("rules.poddavki.notation.title"), ...paragraphs("rules.poddavki.notation")),
    section("sources", t("rules.sources.title"), ...paragraphs("rules.sources")),
  ];
}

function yesNo(value) {
  return t(value ? "rules.yes" : "rules.no");
}

/** A move and a capture in numeric notation that exist on the variant's board (22x15x8 is none on 10×10). */
function numericExample(v) {
  const sep = v.capture_separator;
  return v.board_size === 10
    ? { move: "32-28", capture: `32${sep}23${sep}14` }
    : { move: "22-18", capture: `22${sep}15${sep}8` };
}

function parameterTable(v) {
  const rows = [
    [t("rules.param.board"), t("rules.param.boardValue", { size: v.board_size, men: v.men_per_side }) + (v.mirrored ? ` — ${t("rules.param.mirrored")}` : "")],
    [t("rules.param.first"), t(`color.${v.first_player}`)],
    [t("rules.param.backward"), yesNo(v.men_capture_backward)],
    [t("rules.param.flying"), t(v.flying_kings ? "rules.param.flying.yes" : "rules.param.flying.no")],
    [t("rules.param.compulsory"), t("rules.compulsory")],
    [t("rules.param.precedence"), t(`rules.precedence.${v.precedence}`)],
    [t("rules.param.promotion"), t(`rules.promotion.${v.promotion_in_capture}`)],
    [t("rules.param.menCaptureKings"), yesNo(v.men_capture_kings)],
    [t("rules.param.result"), t(v.giveaway ? "rules.result.giveaway" : "rules.result.normal")],
    // Each automatic draw with its exact count and where the count starts (RULES.md §4, issue 17).
    [t("rules.param.draws"), h("ul", {}, v.draw_rules.map((rule) => h("li", {}, t(`rules.drawRule.${rule}`))))],
    [
      t("rules.param.notation"),
      v.algebraic
        ? t("rules.param.notation.algebraic", { sep: v.capture_separator })
        : t("rules.param.notation.numeric", { squares: v.squares, ...numericExample(v) }),
    ],
  ];
  return h("table", { class: "params" }, h("tbody", {}, rows.map(([name, value]) => h("tr", {}, h("th", {}, name), h("td", {}, value)))));
}

function variantPage(v) {
  const base = v.key.replace(/-giveaway$/, "");
  return [
    h("h1", {}, variantName(v.key)),
    v.giveaway
      ? h(
          "p",
          { class: "lead" },
          t("rules.giveawayForm", { base: variantName(base) }),
          " ",
          h("a", { href: `/rules/${base}` }, t("rules.readBase", { base: variantName(base) }))
        )
      : h("p", { class: "lead" }, t(`rules.about.${base}`)),
    parameterTable(v),
    // How the counted draws count, and the sources (with where two official texts disagree).
    ...(v.giveaway
      ? []
      : [h("p", {}, t("rules.draws.counting")), h("p", { class: "note" }, t(`rules.draws.note.${base}`))]),
    diagram("start", v.key),
    h("p", {}, t("rules.compareWithPoddavki"), " ", h("a", { href: `/rules/${PODDAVKI}` }, variantName(PODDAVKI))),
  ];
}

function indexPage() {
  const list = variants();
  return [
    h("h1", {}, t("rules.title")),
    h("p", { class: "lead" }, t("rules.intro")),
    h(
      "ul",
      { class: "variant-list" },
      list.map((v) =>
        h(
          "li",
          { dataset: { variant: v.key } },
          h("a", { href: `/rules/${v.key}` }, variantName(v.key)),
          h("small", {}, ` ${v.board_size}×${v.board_size}${v.giveaway ? ` · ${t("rules.giveaway")}` : ""}`)
        )
      )
    ),
  ];
}

export async function mount(container, { variant: key } = {}) {
  let content;
  if (!key) content = indexPage();
  else {
    const v = variant(key);
    if (v.key !== key) {
      history.replaceState({}, "", `/rules/${v.key}`);
    }
    content = v.key === PODDAVKI ? poddavkiPage() : variantPage(v);
  }
  const nav = h(
    "nav",
    { class: "rules-nav" },
    h("a", { href: "/rules" }, t("rules.all")),
    variants().map((v) => h("a", { href: `/rules/${v.key}`, class: v.key === key ? "active" : "" }, variantName(v.key)))
  );
  container.append(h("div", { class: "rules-page" }, nav, h("article", { class: "card rules" }, ...content)));
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  return { unmount() {} };
}
