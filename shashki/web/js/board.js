// The board: an SVG drawing of a position, and move input by clicking or dragging (board-input.js).
//
// The board never decides what is legal. It is given the legal moves the server sent ({move, path,
// captures}, squares labelled in the variant's notation) and lets the player walk along their paths one
// square at a time: the squares reachable next are highlighted, the pieces jumped so far stay on the
// board as "ghosts" (they are removed only when the move ends: the Turkish strike), and when a king may
// land on several squares behind a piece, those squares are offered as a choice. When the path walked
// names exactly one legal move, the board hands that move's notation to `onMove`.
//
// While the opponent is to move, a board given `premoveColor` takes a premove instead: a path of squares
// from one of that side's pieces, drawn highlighted and handed to `onPremove` (the game page plays it when
// it turns out legal). An interactive board is also a grid for the keyboard and screen readers
// (board-keys.js): each square is a cell with its name and what stands on it.

import { PathInput, samePrefix } from "./board-input.js";
import { BoardKeys } from "./board-keys.js";
import { s, h } from "./dom.js";
import { geometry, parseFen } from "./geometry.js";
import { t } from "./i18n.js";

const UNIT = 100;

function crown(color) {
  // A small crown drawn on a king.
  return s("path", {
    class: `crown ${color}`,
    d: "M -17 9 L -20 -11 L -9 -2 L 0 -16 L 9 -2 L 20 -11 L 17 9 Z",
  });
}

export class Board {
  /**
   * options: variant (key), orientation ("white" | "black"), interactive, coordinates,
   * onMove(notation, move), onHint(kind, data) — kind: null | "continue" | "landing" | "ambiguous",
   * onPremove(path) — the premove entered so far (at least two squares), or [] when it is dropped;
   * mini: a small picture of a position (a tournament's running games): no input, no square names.
   */
  constructor(options = {}) {
    this.options = options;
    this.geom = geometry(options.variant);
    this.orientation = options.orientation || "white";
    this.mini = !!options.mini;
    this.interactive = !!options.interactive && !this.mini;
    this.coordinates = options.coordinates !== false && !this.mini;
    this.pieces = new Map();
    this.legal = [];
    this.movable = false;
    this.lastMove = [];
    this.prefix = []; // the squares of the move entered so far (board-input.js walks it)
    this.arrows = [];
    this.marks = new Map();
    this.premove = []; // the squares of the premove entered so far
    this.premoveColor = null; // the side whose premove the board takes (while the other side is to move)
    this.size = this.geom.size * UNIT;

    // A picture for the eye; for assistive technology an interactive board is the grid of its squares.
    this.svg = s("svg", {
      class: this.mini ? "board mini" : "board",
      viewBox: `0 0 ${this.size} ${this.size}`,
      role: this.interactive ? "group" : "img",
      "aria-label": t("play.board"),
      dataset: { size: String(this.geom.size), variant: this.geom.variant.key },
    });
    this.layers = {};
    for (const name of ["squares", "marks", "pieces", "coords", "targets", "arrows", "drag", "focus"]) {
      const grid = this.interactive && name === "squares";
      const attrs = grid ? { role: "grid", "aria-label": t("play.board") } : { "aria-hidden": this.interactive ? "true" : undefined };
      this.layers[name] = s("g", { class: `layer-${name}`, ...attrs });
      this.svg.append(this.layers[name]);
    }
    this.el = h("div", { class: this.mini ? "board-wrap mini" : "board-wrap" }, this.svg);
    this.input = this.interactive ? new PathInput(this) : null;
    this.keys = this.interactive ? new BoardKeys(this) : null;
    this.drawSquares();
  }

  /** A small non-interactive picture of the position `fen` (see the `mini` option). */
  static mini(variant, fen, orientation = "white") {
    const board = new Board({ variant, orientation, mini: true });
    board.set({ fen });
    return board;
  }

  // -- what to show ---------------------------------------------------------------------------------

  /**
   * Show a position: {fen, lastMove: [labels], legal: [...], movable, premoveColor}. Keeps a selection
   * still valid; a premove stays until it is played or dropped (`setPremove`).
   */
  set({ fen, lastMove, legal, movable, arrows, marks, premoveColor } = {}) {
    if (fen !== undefined) this.pieces = parseFen(fen, this.geom).pieces;
    if (premoveColor !== undefined) this.premoveColor = premoveColor || null;
    if (lastMove !== undefined) this.lastMove = lastMove || [];
    if (arrows !== undefined) this.arrows = arrows || [];
    if (marks !== undefined) this.marks = new Map(Object.entries(marks || {}));
    if (legal !== undefined || movable !== undefined) {
      this.legal = legal || [];
      this.movable = !!movable && this.legal.length > 0;
      if (!this.movable || !this.legal.some((m) => samePrefix(m.path, this.prefix))) this.prefix = [];
    }
    this.render();
  }

  setOrientation(color) {
    this.orientation = color;
    this.drawSquares();
    this.render();
  }

  flip() {
    this.setOrientation(this.orientation === "white" ? "black" : "white");
  }

  /** Forget a half-entered move, and the premove if there is one. */
  cancel() {
    if (this.prefix.length) {
      this.prefix = [];
      this.hint(null);
      this.render();
    }
    if (this.premove.length) this.setPremove([]);
  }

  /** Take `path` as the premove ([] drops it); `onPremove` hears of it once it names a move. */
  setPremove(path) {
    const before = this.premove.length >= 2;
    this.premove = [...path];
    this.render();
    if ((before || this.premove.length >= 2 || !path.length) && this.options.onPremove) {
      this.options.onPremove(this.premove.length >= 2 ? [...this.premove] : []);
    }
  }

  /** A square chosen (clicked, dropped on or picked with the keyboard): the next step of a move or premove. */
  choose(label) {
    if (this.input) this.input.step(label);
  }

  /** Show `move` ({path, captures}) as made, before the server's next state confirms it. */
  showMove(move) {
    const start = move.path[0];
    const end = move.path[move.path.length - 1];
    const piece = this.pieces.get(start);
    this.pieces.delete(start);
    for (const c of move.captures) this.pieces.delete(c);
    if (piece) this.pieces.set(end, piece);
    this.lastMove = move.path;
    this.prefix = [];
    this.movable = false;
    this.render();
  }

  // -- geometry on screen -----------------------------------------------------------------------------

  place(sq) {
    const flipped = this.orientation === "black";
    const size = this.geom.size;
    const x = (flipped ? size - 1 - sq.col : sq.col) * UNIT;
    const y = (flipped ? size - 1 - sq.row : sq.row) * UNIT;
    return { x, y, cx: x + UNIT / 2, cy: y + UNIT / 2 };
  }

  squareAtPoint(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    const size = this.geom.size;
    let col = Math.floor(((clientX - rect.left) / rect.width) * size);
    let row = Math.floor(((clientY - rect.top) / rect.height) * size);
    if (col < 0 || row < 0 || col >= size || row >= size) return null;
    if (this.orientation === "black") [row, col] = [size - 1 - row, size - 1 - col];
    return this.geom.at(row, col);
  }

  drawSquares() {
    // Squares below the pieces; their names and numbers above them, so that a piece never hides them.
    const layer = this.layers.squares;
    const labels = this.layers.coords;
    const focused = layer.contains(document.activeElement); // a cell had the keyboard's focus (board-keys.js)
    layer.replaceChildren();
    labels.replaceChildren();
    const size = this.geom.size;
    const flipped = this.orientation === "black";
    const numeric = !this.geom.variant.algebraic;
    for (let dr = 0; dr < size; dr++) {
      // On an interactive board each screen row is a row of the grid, each square a cell (board-keys.js).
      const line = this.interactive ? s("g", { role: "row" }) : layer;
      if (line !== layer) layer.append(line);
      for (let dc = 0; dc < size; dc++) {
        const row = flipped ? size - 1 - dr : dr;
        const col = flipped ? size - 1 - dc : dc;
        const dark = this.geom.isDark(row, col);
        const sq = dark ? this.geom.at(row, col) : null;
        const cell = this.interactive ? { role: "gridcell", tabindex: "-1" } : {};
        line.append(
          s("rect", {
            x: dc * UNIT,
            y: dr * UNIT,
            width: UNIT,
            height: UNIT,
            class: dark ? "sq dark" : "sq light",
            ...cell,
            dataset: { ...(sq ? { square: sq.label } : {}), row: String(row), col: String(col) },
          })
        );
        if (!this.coordinates) continue;
        const tone = dark ? "on-dark" : "on-light";
        if (numeric && sq) {
          labels.append(s("text", { x: dc * UNIT + 5, y: dr * UNIT + 21, class: `coord ${tone}` }, sq.number));
        } else if (!numeric) {
          if (dc === 0) {
            labels.append(s("text", { x: 5, y: dr * UNIT + 24, class: `coord ${tone}` }, size - row));
          }
          if (dr === size - 1) {
            const file = "abcdefghij"[col];
            labels.append(
              s("text", { x: dc * UNIT + UNIT - 7, y: size * UNIT - 7, class: `coord ${tone} end` }, file)
            );
          }
        }
      }
    }
    if (this.keys) this.keys.squaresDrawn(focused);
  }

  // -- drawing ----------------------------------------------------------------------------------------

  candidates() {
    return this.legal.filter((m) => samePrefix(m.path, this.prefix));
  }

  render() {
    const { marks, pieces, targets, arrows } = this.layers;
    marks.replaceChildren();
    pieces.replaceChildren();
    targets.replaceChildren();
    arrows.replaceChildren();

    const mark = (label, cls) => {
      const sq = this.geom.square(label);
      if (!sq) return;
      const { x, y } = this.place(sq);
      marks.append(s("rect", { x, y, width: UNIT, height: UNIT, class: `mark ${cls}`, dataset: { mark: cls } }));
    };
    for (const label of this.lastMove) mark(label, "last");
    for (const [label, cls] of this.marks) mark(label, cls);
    for (const label of this.premove) mark(label, "premove");

    // The position as it stands while a move is being entered: the piece on its way, the jumped ones ghosts.
    const shown = new Map(this.pieces);
    const ghosts = new Set();
    const candidates = this.candidates();
    if (this.prefix.length) {
      const start = this.prefix[0];
      const current = this.prefix[this.prefix.length - 1];
      const piece = shown.get(start);
      shown.delete(start);
      if (piece) shown.set(current, { ...piece, moving: true });
      const jumps = this.prefix.length - 1;
      if (candidates.length) for (const c of candidates[0].captures.slice(0, jumps)) ghosts.add(c);
      mark(start, "from");
      if (current !== start) mark(current, "selected");
      else mark(start, "selected");
    }

    // Pieces that can move; when capture is compulsory they are marked as the ones that must capture.
    const movers = new Set();
    const mustCapture = this.movable && this.legal.length > 0 && this.legal[0].captures.length > 0;
    if (this.movable && !this.prefix.length) for (const m of this.legal) movers.add(m.path[0]);

    for (const [label, piece] of shown) {
      const sq = this.geom.square(label);
      if (!sq) continue;
      const { cx, cy } = this.place(sq);
      const press = this.input && this.input.press;
      const lifted = press && press.dragging && press.from === label;
      const classes = ["piece", piece.color];
      if (piece.king) classes.push("king");
      if (ghosts.has(label)) classes.push("ghost");
      if (lifted) classes.push("lifted");
      if (movers.has(label)) classes.push(mustCapture ? "must-capture" : "movable");
      pieces.append(this.pieceShape(piece, cx, cy, classes, label));
    }

    // Where the piece can go next; a king's choice of landing squares is marked as such.
    if (this.prefix.length && this.movable) {
      const k = this.prefix.length;
      const byCapture = new Map();
      for (const m of candidates) {
        const next = m.path[k];
        if (next === undefined) continue;
        const key = m.captures[k - 1] ?? `quiet:${next}`;
        if (!byCapture.has(key)) byCapture.set(key, new Set());
        byCapture.get(key).add(next);
      }
      const landing = new Set();
      for (const squares of byCapture.values()) if (squares.size > 1) for (const l of squares) landing.add(l);
      const next = new Set([...byCapture.values()].flatMap((set) => [...set]));
      for (const label of next) {
        const sq = this.geom.square(label);
        const { cx, cy } = this.place(sq);
        const cls = landing.has(label) ? "target landing" : "target";
        const r = landing.has(label) ? 38 : 16;
        targets.append(s("circle", { cx, cy, r, class: cls, dataset: { target: label } }));
      }
    }

    for (const arrow of this.arrows) this.drawArrow(arrow);
    if (this.premove.length >= 2) this.drawArrow({ path: this.premove, color: "premove" });
    if (this.keys) this.keys.rendered(shown);
  }

  pieceShape(piece, cx, cy, classes, label) {
    const g = s("g", {
      class: classes.join(" "),
      transform: `translate(${cx} ${cy})`,
      dataset: { piece: label, color: piece.color, king: piece.king ? "1" : "0" },
    });
    g.append(
      s("circle", { r: 39, class: "body" }),
      s("circle", { r: 29, class: "rim" }),
      s("circle", { r: 18, class: "rim inner" })
    );
    if (piece.king) g.append(crown(piece.color));
    return g;
  }

  drawArrow({ path, color = "green" }) {
    const points = path
      .map((label) => this.geom.square(label))
      .filter(Boolean)
      .map((sq) => this.place(sq));
    if (points.length < 2) return;
    const id = `arrowhead-${color}`;
    if (!this.svg.querySelector(`#${id}`)) {
      this.svg.prepend(
        s(
          "defs",
          {},
          s(
            "marker",
            { id, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto" },
            s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: `arrowhead ${color}` })
          )
        )
      );
    }
    this.layers.arrows.append(
      s("polyline", {
        points: points.map((p) => `${p.cx},${p.cy}`).join(" "),
        class: `arrow ${color}`,
        "marker-end": `url(#${id})`,
      })
    );
  }

  hint(kind) {
    if (this.options.onHint) this.options.onHint(kind, { prefix: [...this.prefix] });
  }
}
