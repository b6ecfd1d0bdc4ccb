// The analysis board (/analysis): set up any position (analysis-editor.js), play moves on it into a tree
// with variations (analysis-tree.js), see the engine's lines live (analysis-engine.js), import PDN
// (analysis-pdn.js), explore the opening (analysis-explorer.js: the server's games and the engine's book
// from the position shown). No account is needed. The position and the tree are kept in the address
// (?variant=…&fen=…&pdn=…&at=…), so that a copied link opens the same board: the page sends the movetext
// to the server's PDN reader to rebuild the tree. Every position, legal move and outcome is the server's.

import { api } from "./api.js";
import { Board } from "./board.js";
import { h, toast } from "./dom.js";
import { EnginePanel } from "./analysis-engine.js";
import { ExplorerPanel } from "./analysis-explorer.js";
import { Editor } from "./analysis-editor.js";
import { PdnImport } from "./analysis-pdn.js";
import {
  childByMove,
  drawTree,
  indicesTo,
  inVariation,
  makeNode,
  movesTo,
  movetext,
  nodeAt,
  promote,
  remove,
  treeFromImport,
} from "./analysis-tree.js";
import { defaultVariant, variant } from "./geometry.js";
import { has, t } from "./i18n.js";
import { variantSelect } from "./widgets.js";

function loadStyle() {
  if (document.getElementById("analysis-css")) return;
  document.head.append(h("link", { rel: "stylesheet", id: "analysis-css", href: "/static/analysis.css" }));
}

export async function mount(container) {
  loadStyle();
  const state = { variant: defaultVariant(), dd: false, root: null, current: null, startFen: null, orientation: "white" };
  let board = null;
  let closed = false;

  const el = {
    boardSlot: h("div", { class: "board-slot" }),
    hint: h("p", { class: "hint", id: "hint", "aria-live": "polite" }),
    info: h("p", { class: "analysis-info", id: "analysis-info", "aria-live": "polite" }),
    tree: h("div", { class: "tree-slot" }),
    fen: h("input", { id: "analysis-fen", readonly: true, spellcheck: false, "aria-label": "FEN", onFocus: (e) => e.target.select() }),
    variant: null,
    tools: h("div", { class: "row analysis-tools" }),
  };

  const engine = new EnginePanel({
    onLines: (lines, fen) => {
      if (!board || editor.active || !state.current || fen !== state.current.fen) return;
      const best = lines[0];
      board.set({ arrows: best ? [{ path: best.path, color: "green" }] : [] });
    },
  });
  const editor = new Editor({
    getBoard: () => board,
    onDone: (fen) => usePosition(fen),
    onStart: () => {
      state.dd = false;
      start(state.variant).then(() => editor.open(state.root.fen));
    },
    onCancel: () => {
      editor.close();
      show();
    },
  });
  const pdn = new PdnImport({ onOpen: (game) => openGame(game) });
  const explorer = new ExplorerPanel({ onPlay: (move) => play(move) });

  // -- the tree and the board ------------------------------------------------------------------------

  function buildBoard() {
    board = new Board({
      variant: state.variant,
      orientation: state.orientation,
      interactive: true,
      onMove: (move) => play(move),
      onHint: (kind) => (el.hint.textContent = kind ? t(`game.hint.${kind}`) : ""),
    });
    board.el.dataset.analysis = "1";
    el.boardSlot.replaceChildren(board.el);
    if (editor.active) editor.attach(board);
  }

  function setTree(root, key, dd, at = []) {
    const rebuild = !board || key !== state.variant;
    state.variant = key;
    state.dd = !!dd;
    state.root = root;
    state.current = nodeAt(root, at);
    if (el.variant) el.variant.value = key;
    if (rebuild) buildBoard();
    editor.close();
    show();
  }

  async function start(key) {
    const data = await api("POST", "/api/analysis/position", { variant: key });
    state.startFen = data.fen;
    setTree(makeNode(data), key, false);
  }

  async function play(move) {
    const from = state.current;
    const known = childByMove(from, move);
    if (known) return go(known);
    try {
      const data = await api("POST", "/api/analysis/position", {
        variant: state.variant,
        fen: state.root.fen,
        moves: [...movesTo(from), move],
        double_diagonal: state.dd,
      });
      const node = makeNode({ ...data, move: data.moves[data.moves.length - 1], path: data.last_move }, from);
      from.children.push(node);
      go(node);
    } catch (e) {
      toast(e.message, "error");
      show();
    }
  }

  function go(node) {
    if (!node) return;
    state.current = node;
    show();
  }

  async function usePosition(fen) {
    try {
      const data = await api("POST", "/api/analysis/position", { variant: state.variant, fen, double_diagonal: state.dd });
      editor.close();
      setTree(makeNode(data), state.variant, state.dd);
    } catch (e) {
      toast(e.message, "error");
      const error = document.getElementById("editor-error") || h("p", { class: "error", id: "editor-error", role: "alert" });
      error.textContent = e.message;
      editor.el.append(error);
    }
  }

  function openGame(game) {
    setTree(treeFromImport(game.nodes), game.variant, game.double_diagonal);
    el.boardSlot.scrollIntoView({ block: "nearest" });
  }

  // -- drawing ----------------------------------------------------------------------------------------

  function show() {
    if (closed || !state.current) return;
    const node = state.current;
    if (!editor.active) {
      board.set({ fen: node.fen, lastMove: node.path, legal: node.legal, movable: node.legal.length > 0, arrows: [] });
    }
    el.fen.value = node.fen;
    drawInfo(node);
    drawTree_();
    drawTools();
    engine.show({ variant: state.variant, start: state.root.fen, moves: movesTo(node), doubleDiagonal: state.dd });
    explorer.show({ variant: state.variant, fen: node.fen, doubleDiagonal: state.dd });
    saveAddress();
  }

  function drawInfo(node) {
    const parts = [];
    if (node.outcome) {
      const reason = `reason.${node.outcome.reason}`;
      parts.push(t("analysis.gameOver", { result: node.outcome.result }) + (has(reason) ? ` — ${t(reason)}` : ""));
    } else {
      parts.push(node.side_to_move === "white" ? t("analysis.whiteToMove") : t("analysis.blackToMove"));
    }
    const tb = node.tablebase;
    if (tb) {
      const key = tb.result === "draw" ? "analysis.tbDraw" : tb.winner === "white" ? "analysis.tbWhiteWins" : "analysis.tbBlackWins";
      parts.push(t(key, { n: tb.moves ?? 0 }) + (tb.counts === "may_draw" ? ` (${t("analysis.tbCountsMayDraw")})` : ""));
    }
    el.info.textContent = parts.join(" · ");
    el.info.dataset.tablebase = tb ? tb.result : "";
  }

  function drawTree_() {
    const first = variant(state.variant).first_player;
    el.tree.replaceChildren(drawTree(state.root, state.current, first, go));
    const current = el.tree.querySelector(".tree-move.current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  function drawTools() {
    const node = state.current;
    const button = (id, label, onClick, disabled) =>
      h("button", { class: "secondary", id, title: label, "aria-label": label, onClick, disabled }, label);
    el.tools.replaceChildren(
      button("nav-first", "«", () => go(state.root), !node.parent),
      button("nav-prev", "‹", () => go(node.parent), !node.parent),
      button("nav-next", "›", () => go(node.children[0]), !node.children.length),
      button("nav-last", "»", () => go(nodeAt(node, "end")), !node.children.length),
      button("promote", t("analysis.promote"), () => {
        promote(node);
        show();
      }, !inVariation(node)),
      button("delete", t("analysis.delete"), () => go(remove(node)), !node.parent)
    );
    for (const [id, key] of [["nav-first", "game.nav.first"], ["nav-prev", "game.nav.prev"], ["nav-next", "game.nav.next"], ["nav-last", "analysis.navLast"]]) {
      const b = el.tools.querySelector(`#${id}`);
      b.title = t(key);
      b.setAttribute("aria-label", t(key));
    }
  }

  function saveAddress() {
    const params = new URLSearchParams({ variant: state.variant });
    if (state.root.fen !== state.startFen) params.set("fen", state.root.fen);
    if (state.dd) params.set("dd", "1");
    const text = movetext(state.root);
    if (text) params.set("pdn", text);
    const at = indicesTo(state.current);
    if (at.length) params.set("at", at.join("."));
    if (state.orientation === "black") params.set("color", "black");
    const address = `/analysis?${params}`;
    if (location.pathname + location.search !== address) history.replaceState({}, "", address);
  }

  // -- from the address -------------------------------------------------------------------------------

  async function fromAddress() {
    const params = new URLSearchParams(location.search);
    const key = variant(params.get("variant") || defaultVariant()).key;
    const fen = params.get("fen");
    const moves = params.get("pdn");
    const dd = params.get("dd") === "1";
    state.orientation = params.get("color") === "black" ? "black" : "white";
    const at = params.get("at") === "end" ? "end" : (params.get("at") || "").split(".").filter(Boolean).map(Number);
    state.startFen = (await api("POST", "/api/analysis/position", { variant: key })).fen;
    if (!fen && !moves) return start(key);
    const tags = [`[Variant "${key}"]`];
    if (dd) tags.push('[Options "double-diagonal"]');
    const quotable = fen && fen.replace(/["\\]/g, ""); // a tag value holds no quote or backslash
    if (fen) tags.push(`[FEN "${quotable}"]`);
    const data = await api("POST", "/api/analysis/pdn", { pdn: `${tags.join("\n")}\n\n${moves || ""} *\n` });
    const game = data.games[0];
    if (game.error) {
      toast(game.error.message, "error");
      return start(key);
    }
    setTree(treeFromImport(game.nodes), game.variant, game.double_diagonal, at);
  }

  // -- the page ---------------------------------------------------------------------------------------

  el.variant = variantSelect({
    id: "analysis-variant",
    "aria-label": t("analysis.variant"),
    onChange: (e) => start(e.target.value).catch((err) => toast(err.message, "error")),
  });
  const editButton = h("button", { class: "secondary", id: "edit-position", onClick: () => editor.open(state.current.fen) }, t("analysis.editPosition"));
  const flip = h("button", { class: "secondary", id: "flip", onClick: () => {
    board.flip();
    state.orientation = board.orientation;
    saveAddress();
  } }, t("game.flip"));
  const copy = h(
    "button",
    {
      class: "secondary",
      id: "share",
      onClick: async () => {
        try {
          await navigator.clipboard.writeText(location.href);
          toast(t("analysis.linkCopied"));
        } catch {
          el.fen.value = location.href;
          el.fen.select();
        }
      },
    },
    t("analysis.share")
  );

  const page = h(
    "div",
    { class: "analysis-page", id: "analysis" },
    h("div", { class: "board-area" }, el.boardSlot, el.hint, el.info),
    h(
      "aside",
      { class: "side" },
      h("section", { class: "card" }, h("h1", {}, t("analysis.title")), h("div", { class: "row" }, el.variant, editButton, flip, copy), el.fen),
      editor.el,
      engine.el,
      h("section", { class: "card analysis-moves" }, el.tools, el.tree),
      explorer.el,
      pdn.el
    )
  );
  container.append(page);

  const onKey = (e) => {
    if (e.target.closest("input, textarea, select") || editor.active || !state.current) return;
    const node = state.current;
    const moves = { ArrowLeft: node.parent, ArrowRight: node.children[0], Home: state.root, End: nodeAt(node, "end") };
    if (e.key in moves) {
      e.preventDefault();
      go(moves[e.key]);
    } else if (e.key === "Escape" && board) board.cancel();
  };
  document.addEventListener("keydown", onKey);

  try {
    await fromAddress();
  } catch (e) {
    toast(e.message, "error");
    await start(defaultVariant());
  }

  return {
    unmount() {
      closed = true;
      engine.close();
      explorer.close();
      document.removeEventListener("keydown", onKey);
    },
  };
}
