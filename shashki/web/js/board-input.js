// Entering a move on the board, by clicking squares or dragging the piece: the player walks along the
// paths of the legal moves the server sent, one square at a time (the Board draws each step), and the
// move is handed on when the path walked names exactly one of them.
//
// While the opponent is to move (the board's `premoveColor` set, no legal moves yet) the same clicks and
// drags enter a premove: a piece of the player's, then the squares it goes to, each on a diagonal from
// the last (a capture's landing squares one by one). Which of these are legal is not known until the
// opponent has moved; the game page matches the path against the legal moves then (game-premove.js).

const DRAG_THRESHOLD = 5; // pixels the pointer moves before a press becomes a drag

/** Whether `path` begins with the squares of `prefix`. */
export function samePrefix(path, prefix) {
  return prefix.every((label, i) => path[i] === label);
}

export class PathInput {
  /** Listens to `board`'s pointer events; the move walked so far is `board.prefix`. */
  constructor(board) {
    this.board = board;
    this.press = null; // the pointer held down: {label, x, y, draggable, dragging, from}
    this.listen();
  }

  listen() {
    this.board.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.board.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.board.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.board.svg.addEventListener("pointercancel", () => this.endPress());
    this.board.svg.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      this.board.cancel();
    });
  }

  /** The squares walked so far: of the move being entered, or of the premove. */
  get walked() {
    return this.board.movable ? this.board.prefix : this.board.premove;
  }

  /** Whether the player's own piece stands on `label` (a premove starts from one). */
  ownPiece(label) {
    const piece = this.board.pieces.get(label);
    return !!piece && piece.color === this.board.premoveColor;
  }

  pointerDown(e) {
    if (e.button !== 0 || !(this.board.movable || this.board.premoveColor)) return;
    const sq = this.board.squareAtPoint(e.clientX, e.clientY);
    if (!sq) return;
    e.preventDefault();
    // Before a move is begun any piece that can move may be dragged; in the middle of a capture, the
    // capturing piece from where it stands.
    const walked = this.walked;
    const canStart = this.board.movable ? this.board.legal.some((m) => m.path[0] === sq.label) : this.ownPiece(sq.label);
    const draggable = walked.length <= 1 ? canStart : sq.label === walked[walked.length - 1];
    this.press = { label: sq.label, x: e.clientX, y: e.clientY, draggable, dragging: false, from: null };
    try {
      this.board.svg.setPointerCapture(e.pointerId);
    } catch {
      /* synthetic events have no capturable pointer */
    }
  }

  pointerMove(e) {
    const press = this.press;
    if (!press || !press.draggable) return;
    if (!press.dragging) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_THRESHOLD) return;
      press.dragging = true;
      if (this.walked.length <= 1) {
        if (this.board.movable) this.board.prefix = [press.label];
        else this.board.premove = [press.label];
      }
      press.from = this.walked[this.walked.length - 1];
      this.board.render();
    }
    const rect = this.board.svg.getBoundingClientRect();
    const x = ((e.clientX - rect.left) / rect.width) * this.board.size;
    const y = ((e.clientY - rect.top) / rect.height) * this.board.size;
    const start = this.walked[0];
    const piece = this.board.pieces.get(start);
    if (!piece) return;
    this.board.layers.drag.replaceChildren(this.board.pieceShape(piece, x, y, ["piece", piece.color, "dragged"], ""));
  }

  pointerUp(e) {
    const press = this.press;
    if (!press) return;
    const sq = this.board.squareAtPoint(e.clientX, e.clientY);
    this.endPress();
    if (press.dragging) {
      if (sq && sq.label !== press.from) this.step(sq.label);
      else this.board.render();
    } else if (sq && sq.label === press.label) {
      this.step(sq.label);
    }
  }

  endPress() {
    this.press = null;
    this.board.layers.drag.replaceChildren();
  }

  /** One square clicked or dropped on: select a piece, take the next step of a move, or finish it. */
  step(label) {
    if (!this.board.movable) {
      if (this.board.premoveColor) this.premoveStep(label);
      return;
    }
    const prefix = this.board.prefix;
    if (!prefix.length) {
      if (this.board.legal.some((m) => m.path[0] === label)) this.board.prefix = [label];
      this.board.hint(null);
      this.board.render();
      return;
    }
    const k = prefix.length;
    const candidates = this.board.candidates();
    if (k === 1 && label === prefix[0]) {
      this.board.cancel();
      return;
    }
    let next = candidates.filter((m) => m.path[k] === label);
    if (!next.length) {
      // A square further along: fine when every move through it takes the same way there.
      const ahead = candidates.filter((m) => m.path.indexOf(label, k) > k);
      if (ahead.length) {
        const until = (m) => m.path.slice(0, m.path.indexOf(label, k) + 1).join(" ");
        if (ahead.every((m) => until(m) === until(ahead[0]))) {
          this.board.prefix = until(ahead[0]).split(" ");
          return this.afterStep();
        }
        this.board.hint("ambiguous");
        return;
      }
      if (k === 1 && this.board.legal.some((m) => m.path[0] === label)) {
        this.board.prefix = [label]; // another piece
        this.board.hint(null);
        this.board.render();
        return;
      }
      if (k === 1) this.board.cancel();
      return;
    }
    this.board.prefix = [...prefix, label];
    this.afterStep();
  }

  afterStep() {
    const candidates = this.board.candidates();
    // A capture must be completed, so a whole path is never the beginning of another: the move is done.
    const done = candidates.find((m) => m.path.length === this.board.prefix.length);
    if (done) {
      this.submit(done);
      return;
    }
    const k = this.board.prefix.length;
    const nextBySame = new Map();
    for (const m of candidates) {
      const key = m.captures[k - 1] ?? "";
      nextBySame.set(key, (nextBySame.get(key) || new Set()).add(m.path[k]));
    }
    const landing = [...nextBySame.values()].some((set) => set.size > 1);
    this.board.hint(landing ? "landing" : k > 1 ? "continue" : null);
    this.board.render();
  }

  submit(move) {
    // Show the move at once; the server's next state confirms it (or the page restores the position).
    this.board.hint(null);
    this.board.showMove(move);
    if (this.board.options.onMove) this.board.options.onMove(move.move, move);
  }

  /**
   * One square of a premove: the player's piece first (another of them starts again; the same one
   * again drops the premove), then each square it goes to, on a diagonal from the square before.
   */
  premoveStep(label) {
    const board = this.board;
    const path = board.premove;
    if (!path.length) {
      if (this.ownPiece(label)) board.setPremove([label]);
      return;
    }
    const last = board.geom.square(path[path.length - 1]);
    const sq = board.geom.square(label);
    const diagonal = sq && last && sq !== last && Math.abs(sq.row - last.row) === Math.abs(sq.col - last.col);
    if (this.ownPiece(label) && label !== path[0]) board.setPremove([label]);
    else if (diagonal && !(label === path[0] && path.length === 1)) board.setPremove([...path, label]);
    else board.setPremove([]); // the piece clicked again, or a square it cannot go to: no premove
  }
}
