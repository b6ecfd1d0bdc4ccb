// The puzzle trainer (/puzzles, /puzzles/{id}): a position where one side has a single winning line —
// in poddavki, forced give-aways that win. The player finds the moves on the same board the game and the
// analysis pages use (clicks, drags, multi-capture entry, keyboard and screen reader: board.js), the server
// judges each one and answers with the opponent's reply, played back after a short pause (puzzle-solve.js).
// After the attempt: the rating change (accounts; a visitor solves unrated), the puzzle's rating and
// themes, the solution, "Analyse" (the analysis board at the puzzle's position), a link to share.
// The variant and theme chosen are remembered in this browser; /puzzles/history lists the attempts.

import { api, isAnonymous, session } from "./api.js";
import { analysisUrl } from "./analysis-url.js";
import { Board } from "./board.js";
import { fill, h, toast } from "./dom.js";
import { defaultVariant, geometry, squaresOf, variant, variants } from "./geometry.js";
import { t } from "./i18n.js";
import { loginHref } from "./router.js";
import { Attempt, solutionFrom } from "./puzzle-solve.js";
import { SolutionView } from "./puzzle-solution.js";
import { loadPuzzleStyle, signed, themeName } from "./puzzle-widgets.js";

const REPLY_DELAY_MS = 500; // the opponent's reply comes after the solver's move has been seen
const CHOICE_KEY = "shashki.puzzle";

function savedChoice() {
  try {
    return JSON.parse(localStorage.getItem(CHOICE_KEY)) || {};
  } catch {
    return {};
  }
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function mount(container, params = {}) {
  loadPuzzleStyle();
  const saved = savedChoice();
  const state = {
    variant: variant(saved.variant || defaultVariant()).key,
    theme: saved.theme || "any",
    puzzle: null,
    attempt: null,
    first: true, // whether this is the puzzle's first (rated) attempt on this page
  };
  let board = null;
  let closed = false;
  const account = !!session.user && !isAnonymous();

  const el = {
    variant: h("select", { id: "puzzle-variant", "aria-label": t("puzzle.variant") }),
    theme: h("select", { id: "puzzle-theme", "aria-label": t("puzzle.theme") }),
    mine: h("p", { class: "puzzle-mine", id: "puzzle-mine" }),
    boardSlot: h("div", { class: "board-slot" }),
    hint: h("p", { class: "hint", id: "hint", "aria-live": "polite" }),
    status: h("p", { class: "puzzle-status", id: "puzzle-status", role: "status", "aria-live": "polite" }),
    about: h("p", { class: "puzzle-about muted", id: "puzzle-about" }),
    result: h("section", { class: "card puzzle-result", id: "puzzle-result", hidden: true }),
    buttons: h("div", { class: "row puzzle-buttons", id: "puzzle-buttons" }),
  };
  const solution = new SolutionView({ getBoard: () => board, getPuzzle: () => state.puzzle });

  // -- the choice of variant and theme ----------------------------------------------------------------

  async function loadChoices() {
    let data = { variants: [], themes: [] };
    try {
      data = await api("GET", `/api/puzzles/themes?variant=${encodeURIComponent(state.variant)}`);
    } catch (e) {
      console.warn("puzzle themes:", e);
    }
    const counts = new Map((data.variants || []).map((v) => [v.key, v.count]));
    const offered = variants().filter((v) => !counts.size || counts.get(v.key) || v.key === state.variant);
    fill(el.variant, offered.map((v) => h("option", { value: v.key, selected: v.key === state.variant }, t(`variant.${v.key}`))));
    const themes = data.themes || [];
    if (state.theme !== "any" && !themes.some((th) => th.key === state.theme)) state.theme = "any";
    fill(
      el.theme,
      h("option", { value: "any" }, t("puzzle.theme.any")),
      themes.map((th) => h("option", { value: th.key, selected: th.key === state.theme }, `${themeName(th.key)} (${th.count})`))
    );
    el.theme.value = state.theme;
  }

  function remember() {
    localStorage.setItem(CHOICE_KEY, JSON.stringify({ variant: state.variant, theme: state.theme }));
  }

  async function loadMine() {
    if (!account) {
      fill(el.mine, h("a", { href: loginHref() }, t("puzzle.loginToRate")));
      return;
    }
    try {
      const me = await api("GET", `/api/puzzles/me?variant=${encodeURIComponent(state.variant)}`);
      fill(
        el.mine,
        t("puzzle.myRating", { rating: Math.round(me.rating) }),
        " · ",
        t("puzzle.myStats", { solved: me.solved, attempts: me.attempts }),
        " · ",
        h("a", { href: "/puzzles/history", id: "puzzle-history-link" }, t("puzzle.history"))
      );
      el.mine.dataset.rating = String(Math.round(me.rating));
    } catch (e) {
      el.mine.textContent = "";
    }
  }

  // -- a puzzle ---------------------------------------------------------------------------------------

  async function next() {
    const query = new URLSearchParams({ variant: state.variant, theme: state.theme });
    try {
      const data = await api("GET", `/api/puzzles/next?${query}`);
      show(data.puzzle, { push: true });
    } catch (e) {
      showNone(e.status === 404 ? t("puzzle.none") : e.message);
    }
  }

  async function open(id) {
    try {
      const data = await api("GET", `/api/puzzles/${encodeURIComponent(id)}`);
      show(data.puzzle, { push: false });
    } catch (e) {
      showNone(e.status === 404 ? t("puzzle.notFound") : e.message);
    }
  }

  function showNone(message) {
    state.puzzle = null;
    board = null;
    fill(el.boardSlot, h("p", { class: "muted", id: "puzzle-none" }, message));
    el.status.textContent = "";
    el.about.textContent = "";
    el.result.hidden = true;
    fill(el.buttons, nextButton());
    solution.clear();
  }

  function show(puzzle, { push }) {
    if (closed) return;
    const changed = !state.puzzle || state.puzzle.id !== puzzle.id;
    state.puzzle = puzzle;
    state.first = changed ? true : state.first;
    state.attempt = new Attempt(puzzle);
    const address = `/puzzles/${puzzle.id}`;
    if (location.pathname !== address) history[push ? "pushState" : "replaceState"]({}, "", address);
    if (variant(puzzle.variant).key !== state.variant) {
      // A puzzle of another variant (a shared link): its themes and the player's rating in it.
      state.variant = variant(puzzle.variant).key;
      state.theme = "any";
      loadChoices();
      loadMine();
    }
    board = new Board({
      variant: puzzle.variant,
      orientation: puzzle.solver,
      interactive: true,
      onMove: (move) => play(move),
      onHint: (kind) => (el.hint.textContent = kind ? t(`game.hint.${kind}`) : ""),
    });
    board.el.dataset.puzzle = String(puzzle.id);
    el.boardSlot.replaceChildren(board.el);
    solution.clear();
    el.result.hidden = true;
    el.about.textContent = t("puzzle.number", { id: puzzle.id }) + (state.first ? "" : ` · ${t("puzzle.retryUnrated")}`);
    drawPosition(puzzle.position, []);
    yourTurn();
    fill(el.buttons, analyseLink(), shareButton());
  }

  function drawPosition(position, lastMove, extra = {}) {
    const movable = !state.attempt.over && !position.outcome && position.legal_moves.length > 0;
    board.set({ fen: position.fen, lastMove, legal: movable ? position.legal_moves : [], movable, arrows: [], ...extra });
  }

  function yourTurn() {
    setStatus("turn", t(`puzzle.yourTurn.${state.puzzle.solver}`));
  }

  function setStatus(kind, text) {
    el.status.className = `puzzle-status ${kind}`;
    el.status.dataset.state = kind;
    el.status.dataset.ply = String(state.attempt ? state.attempt.line.length : 0); // the moves played so far
    el.status.textContent = text;
  }

  async function play(move) {
    const attempt = state.attempt;
    const before = attempt.position;
    const puzzle = state.puzzle;
    let data;
    try {
      data = await attempt.play(move);
    } catch (e) {
      toast(e.message, "error");
      drawPosition(before, []);
      return;
    }
    if (closed || attempt !== state.attempt) return;
    const geom = geometry(puzzle.variant);
    const path = (notation) => squaresOf(notation, geom).map((sq) => sq.label);
    if (data.result === "correct") {
      setStatus("correct", t("puzzle.correct"));
      await wait(REPLY_DELAY_MS); // the solver's move stays on the board a moment before the reply
      if (closed || attempt !== state.attempt) return;
      drawPosition(data.position, data.reply ? path(data.reply) : []);
      setStatus("turn", `${t("puzzle.replied", { move: data.reply || "" })} ${t(`puzzle.yourTurn.${puzzle.solver}`)}`);
    } else if (data.result === "wrong") {
      // Back to the position before the mistake: the wrong move in red, the right one in green.
      const arrows = [{ path: path(move), color: "red" }];
      if (data.expected) arrows.push({ path: path(data.expected), color: "green" });
      const marks = Object.fromEntries((data.expected ? path(data.expected) : []).map((label) => [label, "expected"]));
      drawPosition(before, [], { arrows, marks });
      setStatus("wrong", t("puzzle.wrong", { move, expected: data.expected || "?" }));
      ended(data, { solved: false, expected: data.expected });
    } else {
      drawPosition(data.position, path(move));
      setStatus("solved", t("puzzle.solved"));
      ended(data, { solved: true });
    }
  }

  function ended(data, { solved, expected }) {
    const puzzle = state.puzzle;
    const rating = data.rating;
    const parts = [];
    if (rating) {
      parts.push(
        h(
          "p",
          { class: "puzzle-rating-change", id: "puzzle-delta", dataset: { delta: String(rating.delta) } },
          t("puzzle.ratingChange", { after: Math.round(rating.after), delta: signed(rating.delta) })
        )
      );
      el.mine.dataset.rating = String(Math.round(rating.after));
    } else {
      parts.push(h("p", { class: "muted", id: "puzzle-unrated" }, t(account ? "puzzle.unratedAgain" : "puzzle.unratedVisitor")));
    }
    parts.push(h("p", { id: "puzzle-rating" }, t("puzzle.puzzleRating", { rating: data.puzzle_rating ?? puzzle.rating })));
    if (puzzle.themes && puzzle.themes.length) {
      parts.push(
        h(
          "p",
          { id: "puzzle-themes" },
          `${t("puzzle.themes")}: `,
          puzzle.themes.map((key, i) => [i ? ", " : "", h("span", { class: "theme", dataset: { theme: key } }, themeName(key))])
        )
      );
    }
    parts.push(h("p", { class: "muted" }, t(`puzzle.verified.${puzzle.verified === "tablebase" ? "tablebase" : "search"}`)));
    if (puzzle.source && puzzle.source.game) {
      parts.push(h("p", {}, h("a", { href: `/game/${puzzle.source.game}`, id: "puzzle-source" }, t("puzzle.fromGame"))));
    }
    fill(el.result, h("h2", {}, t(solved ? "puzzle.solvedTitle" : "puzzle.wrongTitle")), parts);
    el.result.dataset.result = solved ? "solved" : "wrong";
    el.result.hidden = false;
    state.first = false;
    loadMine();

    const attempt = state.attempt;
    const line = attempt.line; // right so far: the whole solution when solved
    const viewSolution = h(
      "button",
      {
        class: "secondary",
        id: "puzzle-view-solution",
        onClick: async () => {
          viewSolution.disabled = true;
          try {
            const { moves, complete } = solved ? { moves: line, complete: true } : await solutionFrom(puzzle);
            if (closed || state.puzzle !== puzzle) return;
            setStatus("review", t(complete ? "puzzle.solutionShown" : "puzzle.solutionPartial"));
            await solution.show(moves, complete);
          } catch (e) {
            toast(e.message, "error");
            viewSolution.disabled = false;
          }
        },
      },
      t("puzzle.viewSolution")
    );
    const retry = solved
      ? null
      : h("button", { class: "secondary", id: "puzzle-retry", onClick: () => show(puzzle, { push: false }) }, t("puzzle.retry"));
    fill(el.buttons, retry, nextButton(), viewSolution, analyseLink(), shareButton());
    (retry || el.buttons.querySelector("#puzzle-next")).focus();
  }

  function nextButton() {
    return h("button", { id: "puzzle-next", onClick: () => next() }, t("puzzle.next"));
  }

  function analyseLink() {
    const moves = state.attempt ? state.attempt.line : [];
    const href = analysisUrl({ variant: state.puzzle.variant, initial_fen: state.puzzle.fen, moves }, state.puzzle.solver);
    return h("a", { class: "button secondary", id: "puzzle-analyse", href }, t("puzzle.analyse"));
  }

  function shareButton() {
    const address = `${location.origin}/puzzles/${state.puzzle.id}`;
    return h(
      "button",
      {
        class: "secondary",
        id: "puzzle-share",
        dataset: { link: address },
        onClick: async () => {
          try {
            await navigator.clipboard.writeText(address);
            toast(t("puzzle.linkCopied"));
          } catch {
            toast(address);
          }
        },
      },
      t("puzzle.share")
    );
  }

  // -- the page ---------------------------------------------------------------------------------------

  el.variant.addEventListener("change", async () => {
    state.variant = el.variant.value;
    state.theme = "any";
    remember();
    await loadChoices();
    loadMine();
    next();
  });
  el.theme.addEventListener("change", () => {
    state.theme = el.theme.value;
    remember();
    next();
  });

  container.append(
    h(
      "div",
      { class: "puzzle-page", id: "puzzle" },
      h("div", { class: "board-area" }, el.boardSlot, el.hint, el.status),
      h(
        "aside",
        { class: "side" },
        h(
          "section",
          { class: "card" },
          h("h1", {}, t("puzzle.title")),
          h(
            "div",
            { class: "row" },
            h("label", { class: "field" }, h("span", {}, t("puzzle.variant")), el.variant),
            h("label", { class: "field" }, h("span", {}, t("puzzle.theme")), el.theme)
          ),
          el.mine
        ),
        h("section", { class: "card puzzle-controls" }, el.about, el.buttons),
        el.result,
        solution.el
      )
    )
  );

  const onKey = (e) => {
    if (e.target.closest("input, textarea, select, svg.board")) return; // the board's grid has its own keys
    if (e.key === "Escape" && board) board.cancel();
    else if (solution.handleKey(e.key)) e.preventDefault();
  };
  document.addEventListener("keydown", onKey);

  await loadChoices();
  loadMine();
  if (params.id) await open(params.id);
  else await next();

  return {
    unmount() {
      closed = true;
      document.removeEventListener("keydown", onKey);
    },
  };
}
